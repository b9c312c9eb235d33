// Tests for the helpers written once in src/core/ for every layer: a JSON object's string field, a whole file's
// bytes, JSON values as Python source, and running a trusted host command.
#include "core/host_command.hpp"
#include "core/json_fields.hpp"
#include "core/python_literal.hpp"
#include "core/read_file.hpp"

#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2beval/core/error.hpp"
#include "temporary_directory.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_core_helpers {

namespace json = boost::json;
using namespace e2beval;

std::size_t threads_of_this_process() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
    return count;
}

TEST_CASE("string_field: the string at a key, empty when it is missing or not a string") {
    const auto object = json::parse(R"({"name": "x", "number": 5, "null": null, "empty": ""})").as_object();
    CHECK(string_field(object, "name") == "x");
    CHECK(string_field(object, "number").empty());
    CHECK(string_field(object, "null").empty());
    CHECK(string_field(object, "empty").empty());
    CHECK(string_field(object, "missing").empty());
}

TEST_CASE("python_literal writes what Python's repr() writes of json.loads()'s value") {
    CHECK(python_literal(json::parse("null")) == "None");
    CHECK(python_literal(json::parse("[true, false]")) == "[True, False]");
    CHECK(python_literal(json::parse("[1, -2, 0.5, 1e-07]")) == "[1, -2, 0.5, 1e-07]");
    CHECK(python_literal(json::parse(R"({"a": [1, "b"]})")) == "{'a': [1, 'b']}");
    // The quote repr() chooses: double quotes for a text with ' and no ", else single ones with \' escaped.
    CHECK(python_literal(json::parse(R"(["it's", "say \"hi\"", "both ' and \""])")) ==
          R"(["it's", 'say "hi"', 'both \' and "'])");
    CHECK(python_string_literal("a\nb\t\\\x01") == R"('a\nb\t\\\x01')");
    CHECK(python_string_literal("ünï") == "'ünï'");
}

TEST_CASE("read_file: every byte of a file, nullopt for what cannot be read, read_text's empty string for it") {
    e2beval::testing::TemporaryDirectory directory;
    const auto path = directory.path / "bytes";
    const std::string bytes("one\0two\nthree", 13);
    std::ofstream(path, std::ios::binary) << bytes;
    CHECK(read_file(path) == bytes);
    CHECK(read_text(path) == bytes);
    CHECK_FALSE(read_file(directory.path / "missing").has_value());
    CHECK_FALSE(read_file(directory.path).has_value());  // a directory has no bytes to read
    CHECK(read_text(directory.path / "missing").empty());
    // A /proc file reads as its current content (its size says 0).
    CHECK(read_text("/proc/self/status").find("Pid:") != std::string::npos);
}

TEST_CASE("run_on_host gives the exit status and both streams, in full, with stdin at its end") {
    const auto result = run_on_host({"sh", "-c", "echo out; echo err >&2; read line || echo 'no stdin'; exit 3"});
    CHECK(result.exit_status == 3);
    CHECK(result.output == "out\nno stdin\n");
    CHECK(result.errors == "err\n");
    CHECK(run_on_host({"sh", "-c", "kill -9 $$"}).exit_status == -1);
}

TEST_CASE("run_on_host reads both streams together: a command that fills stderr before writing stdout ends") {
    // 1 MiB on stderr first, then on stdout: reading stdout to its end before stderr would wait forever on a
    // command blocked writing to a full stderr pipe.
    const auto result =
        run_on_host({"sh", "-c", "head -c 1048576 /dev/zero >&2; head -c 1048576 /dev/zero; head -c 10 /dev/zero >&2"});
    CHECK(result.exit_status == 0);
    CHECK(result.errors.size() == 1048576 + 10);
    CHECK(result.output.size() == 1048576);
}

TEST_CASE("run_on_host starts no thread: the command sees as many threads in its parent as there were before") {
    const auto before = threads_of_this_process();
    const auto result = run_on_host({"sh", "-c", "ls /proc/$PPID/task | wc -l"});
    REQUIRE(result.exit_status == 0);
    CHECK(std::stoul(result.output) == before);
}

TEST_CASE("run_on_host names a program it cannot start and says to install it") {
    try {
        run_on_host({"e2beval-no-such-program", "--version"});
        FAIL("a missing program was started");
    } catch (const io_error& failure) {
        const std::string message = failure.what();
        CHECK(message.find("posix_spawnp(e2beval-no-such-program)") != std::string::npos);
        CHECK(message.find("install e2beval-no-such-program") != std::string::npos);
    }
    CHECK_THROWS_AS(run_on_host({}), std::invalid_argument);
}

}  // namespace e2beval_test_core_helpers
