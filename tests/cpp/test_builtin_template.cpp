// The built-in template code-interpreter-v1 (docs/templates.md): which names mean it, and when resolve_template
// builds it — never when a build of this e2beval's requirements is there and runs, always when it is missing,
// built from other requirements, or its Python is gone. A build is observed through a Python that cannot run
// (the builder cannot start, and says so), so these tests download nothing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"
#include "temporary_directory.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_builtin_template {

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

// The requirements e2beval embeds: the file it embeds them from.
std::string embedded_requirements() { return read_text(fs::path(E2BEVAL_SOURCE_DIR) / "src/local/templates/code-interpreter-v1.txt"); }

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') quoted += '\\';
        if (c == '\n') {
            quoted += "\\n";
            continue;
        }
        quoted += c;
    }
    return quoted + "\"";
}

// A template store in a fresh cache directory (E2BEVAL_CACHE_DIR, restored afterwards).
struct Store {
    e2beval::testing::TemporaryDirectory cache;
    std::string saved;
    bool had = false;
    Store() {
        if (const char* value = std::getenv("E2BEVAL_CACHE_DIR")) {
            had = true;
            saved = value;
        }
        ::setenv("E2BEVAL_CACHE_DIR", cache.path.c_str(), 1);
    }
    ~Store() {
        if (had) ::setenv("E2BEVAL_CACHE_DIR", saved.c_str(), 1);
        else ::unsetenv("E2BEVAL_CACHE_DIR");
    }
    // A built code-interpreter-v1 as the builder leaves one: manifest.json, and venv/bin/python linking to `python`.
    fs::path put_build(const std::string& requirements, const fs::path& python) {
        const auto directory = cache.path / "templates" / "code-interpreter-v1";
        fs::create_directories(directory / "venv" / "bin");
        fs::create_symlink(python, directory / "venv" / "bin" / "python");
        std::ofstream(directory / "manifest.json")
            << "{\"name\": \"code-interpreter-v1\", \"build_id\": \"b1\", \"requirements_hash\": \"h\", \"requirements\": "
            << json_string(requirements) << "}";
        return directory;
    }
};

constexpr const char* kNoPython = "/nonexistent/e2beval-test/python3";

void check_builds(const std::string& name) {
    CHECK_THROWS_WITH_AS(e2beval::resolve_template(name, kNoPython),
                         doctest::Contains("cannot run `/nonexistent/e2beval-test/python3` to build template 'code-interpreter-v1'"),
                         e2beval::sandbox_error);
}

}  // namespace

TEST_CASE("E2B's code-interpreter names are the built-in template; base, e2beval and none the default environment") {
    for (const auto* name : {"code-interpreter-v1", "code-interpreter", "code-interpreter-beta"})
        CHECK(e2beval::builtin_template_name(name) == "code-interpreter-v1");
    for (const auto* name : {"", "base", "e2beval", "data-science", "code-interpreter-v2"})
        CHECK(e2beval::builtin_template_name(name).empty());
    for (const auto* name : {"", "base", "e2beval"}) CHECK(e2beval::is_default_template(name));
    CHECK_FALSE(e2beval::is_default_template("code-interpreter-v1"));
}

TEST_CASE("a build of this e2beval's requirements whose Python runs is used as it is") {
    Store store;
    const auto directory = store.put_build(embedded_requirements(), "/bin/sh");
    for (const auto* name : {"code-interpreter-v1", "code-interpreter"}) {
        const auto manifest = e2beval::resolve_template(name, kNoPython);  // a build would fail: none is tried
        CHECK(manifest.name == "code-interpreter-v1");
        CHECK(manifest.directory == fs::canonical(directory));
        CHECK(manifest.build_id == "b1");
    }
}

TEST_CASE("a missing built-in template is built on first use") {
    Store store;
    check_builds("code-interpreter-v1");
    check_builds("code-interpreter-beta");
}

TEST_CASE("a build of other requirements, or whose Python is gone, is built anew (and kept until the new one is)") {
    Store store;
    const auto directory = store.put_build("numpy==1.0\n", "/bin/sh");
    check_builds("code-interpreter-v1");
    CHECK(fs::exists(directory / "manifest.json"));

    Store other;
    other.put_build(embedded_requirements(), "/nonexistent/e2beval-test/gone-python");
    check_builds("code-interpreter-v1");
}

TEST_CASE("a built-in template removed after its first use is built again on the next") {
    Store store;
    const auto directory = store.put_build(embedded_requirements(), "/bin/sh");
    CHECK(e2beval::resolve_template("code-interpreter-v1", kNoPython).build_id == "b1");
    fs::remove_all(directory);
    check_builds("code-interpreter-v1");
}

TEST_CASE("a user's requirements cannot be built under the built-in template's names") {
    Store store;
    e2beval::TemplateBuildOptions options;
    options.requirements = "/dev/null";
    for (const auto* name : {"code-interpreter-v1", "code-interpreter"}) {
        options.name = name;
        CHECK_THROWS_WITH_AS(e2beval::build_template(options), doctest::Contains("names e2beval's built-in template"),
                             e2beval::input_error);
    }
}

}  // namespace e2beval_test_builtin_template
