// SandboxFusion's language names → e2beval's languages, and the small adaptations two of them need (pytest, go_test).
#include "server/sandbox_fusion/languages.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace e2beval::server::sandbox_fusion {

namespace {

using Shape = ServedLanguage::Shape;

// In the order the unsupported-language message lists them. junit is not here: it needs JUnit's console jar,
// which e2beval does not ship; the others SandboxFusion names (php, csharp, lua, ...) have no e2beval runner.
constexpr std::array<std::pair<std::string_view, ServedLanguage>, 11> kServed{{
    {"python", {Language::python, Shape::program}},
    {"pytest", {Language::python, Shape::pytest}},
    {"cpp", {Language::cpp, Shape::program}},
    {"c", {Language::c, Shape::program}},
    {"go", {Language::go, Shape::program}},
    {"go_test", {Language::go, Shape::go_test}},
    {"java", {Language::java, Shape::program}},
    {"rust", {Language::rust, Shape::program}},
    {"typescript", {Language::typescript, Shape::program}},
    {"nodejs", {Language::javascript, Shape::program}},
    {"bash", {Language::bash, Shape::program}},
}};

// The file pytest collects: SandboxFusion writes a random `tmpXXXX.py`; any name pytest is given works.
constexpr std::string_view kPytestFile = "test_sandbox_fusion.py";

// Runs pytest as `python -m pytest FILE` would, saying so clearly when the sandbox's Python has no pytest
// (exit 1, as a failed run, since the code could not be judged).
constexpr std::string_view kPytestRunner = R"py(import runpy, sys
try:
    import pytest  # noqa: F401
except ImportError:
    sys.stderr.write("e2beval serve: the sandbox's Python has no pytest, so a 'pytest' request cannot run; "
                     "install pytest into the Python e2beval serve runs (--python)\n")
    sys.exit(1)
sys.argv = ["pytest", "-q", "-p", "no:cacheprovider", "test_sandbox_fusion.py"]
sys.path.insert(0, ".")
runpy.run_module("pytest", run_name="__main__", alter_sys=True)
)py";

// A Go test file's package clause names a test package (`package x_test`), so that e2beval's Go builds it with
// `go test -c` (src/core/languages/go.cpp). SandboxFusion's go_test files are often `package main`: the clause is
// renamed, which changes nothing else for a single file. Only the first `package` line (after `//` comments).
std::string as_test_package(std::string code) {
    std::size_t start = 0;
    while (start < code.size()) {
        const auto end = std::min(code.find('\n', start), code.size());
        auto first = code.find_first_not_of(" \t", start);
        if (first != std::string::npos && first < end && code.compare(first, 7, "package") == 0 &&
            first + 7 < end && (code[first + 7] == ' ' || code[first + 7] == '\t')) {
            const auto name_start = code.find_first_not_of(" \t", first + 7);
            auto name_end = code.find_first_of(" \t\r/;\n", name_start);
            if (name_end == std::string::npos || name_end > end) name_end = end;
            const auto name = std::string_view(code).substr(name_start, name_end - name_start);
            if (!name.empty() && !name.ends_with("_test")) code.insert(name_end, "_test");
            return code;
        }
        start = end + 1;
    }
    return code;  // no package clause: the compiler says so
}

}  // namespace

std::optional<ServedLanguage> served_language(std::string_view name) noexcept {
    for (const auto& [served_name, served] : kServed)
        if (served_name == name) return served;
    return std::nullopt;
}

std::string served_language_names() {
    std::string names;
    for (const auto& [served_name, served] : kServed) {
        if (!names.empty()) names += ", ";
        names += served_name;
    }
    return names;
}

void shape_program(const ServedLanguage& served, const std::string& code, ExecRequest& request) {
    request.language = served.language;
    switch (served.shape) {
        case Shape::program:
            request.code = code;
            break;
        case Shape::pytest:
            request.code = std::string(kPytestRunner);
            // The test file takes its name over a request file of the same name, as SandboxFusion's Java file does.
            std::erase_if(request.files, [](const WorkspaceFile& file) { return file.path == kPytestFile; });
            request.files.push_back({std::string(kPytestFile), code, 0644});
            break;
        case Shape::go_test:
            request.code = as_test_package(code);
            break;
    }
}

}  // namespace e2beval::server::sandbox_fusion
