// Rust: rustc on one file, edition 2021 (the shared MultiPL-E rows give the same verdicts under 2015 and 2021),
// -O as competitive judges do, with overflow checks kept on: -O alone turns them off, and an answer whose
// arithmetic overflows then passes where MultiPL-E (no -O: a panic) fails it (HumanEval_129_minPath).
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace rust_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"rs", "rustc"};
constexpr std::string_view kExtensions[] = {".rs"};
// -C linker: the real path of the host's `cc` (Debian's /usr/bin/cc is a link through /etc/alternatives, which the
// sandbox does not have).
constexpr std::string_view kCompile[] = {"{tool}", "--edition", "2021", "-O", "-C", "overflow-checks=on", "-C", "linker={linker}", "{source}", "-o", "{output}"};
constexpr std::string_view kRun[] = {"./{output}"};
}  // namespace rust_parts

constinit const LanguageDescriptor kRust{
    .language = Language::rust,
    .name = "rust",
    .display_name = "Rust",
    .aliases = rust_parts::kAliases,
    .extensions = rust_parts::kExtensions,
    .source_file = "main.rs",
    .compiler = {"rustc", "E2BEVAL_RUSTC", "--version", "rustc", "apt-get install rustc"},
    .compile_argv = rust_parts::kCompile,
    .artifact = "main",
    .artifact_executable = true,
    .run_argv = rust_parts::kRun,
    .compile_limits = compile_stage_limits(),
};

}  // namespace e2beval::languages
