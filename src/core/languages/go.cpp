// Go: `go build` of one file (a test package, MultiPL-E's shape: `go test -c`, whose binary runs its tests), with no cgo, no network and no toolchain switch; the standard library's build
// cache is prepared by e2beval and mounted read-only (src/local/toolchains.cpp, docs/languages.md).
#include <algorithm>

#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace go_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"golang"};
constexpr std::string_view kExtensions[] = {".go"};
constexpr std::string_view kCompile[] = {"{tool}", "build", "-o", "{output}", "{source}"};
constexpr std::string_view kRun[] = {"./{output}"};
constexpr std::string_view kTestCompile[] = {"{tool}", "test", "-c", "-o", "{output}", "{source}"};

// Whether the package clause (the first line that starts with `package`, after any `//` comments) names a test
// package. A `package` inside a block comment before the clause is not told apart: Go programs start with the
// clause or line comments.
bool is_test_package(std::string_view code) {
    std::size_t start = 0;
    while (start < code.size()) {
        const auto end = std::min(code.find('\n', start), code.size());
        auto line = code.substr(start, end - start);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        if (line.starts_with("package ") || line.starts_with("package\t")) {
            line.remove_prefix(8);
            while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
            const auto name = line.substr(0, line.find_first_of(" \t\r/;"));
            return name.ends_with("_test");
        }
        start = end + 1;
    }
    return false;
}
}  // namespace go_parts

constinit const LanguageDescriptor kGo{
    .language = Language::go,
    .name = "go",
    .display_name = "Go",
    .aliases = go_parts::kAliases,
    .extensions = go_parts::kExtensions,
    .source_file = "main.go",
    .compiler = {"go", "E2BEVAL_GO", "version", "golang-go", "apt-get install golang-go"},
    .compile_argv = go_parts::kCompile,
    .artifact = "main",
    .artifact_executable = true,
    .run_argv = go_parts::kRun,
    .compile_limits = compile_stage_limits(),
    .reserves_address_space = true,
    .is_test_program = go_parts::is_test_package,
    .test_source_file = "main_test.go",
    .test_compile_argv = go_parts::kTestCompile,
};

}  // namespace e2beval::languages
