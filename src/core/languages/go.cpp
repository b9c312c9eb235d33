// Go: `go build` of one file, with no cgo, no network and no toolchain switch; the standard library's build
// cache is prepared by e2beval and mounted read-only (src/local/toolchains.cpp, docs/languages.md).
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace go_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"golang"};
constexpr std::string_view kExtensions[] = {".go"};
constexpr std::string_view kCompile[] = {"{tool}", "build", "-o", "{output}", "{source}"};
constexpr std::string_view kRun[] = {"./{output}"};
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
};

}  // namespace e2beval::languages
