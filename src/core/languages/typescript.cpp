// TypeScript: type-checked and compiled by tsc (run with Node.js), as MultiPL-E does: a type error is a compile
// error; then the emitted JavaScript runs with node.
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace typescript_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"ts", "mts"};
constexpr std::string_view kExtensions[] = {".ts", ".mts"};
// `--strict false`: TypeScript 6 and later turn strict on without a tsconfig; 5.x is not strict by default. No
// @types are visible (the sandbox has no node_modules above the workspace), as MultiPL-E's tests need.
constexpr std::string_view kCompile[] = {"{tool}", "--max-old-space-size={heap_mib}", "{tsc}", "--target", "esnext", "--strict", "false",
                                         "--pretty", "false", "{source}"};
constexpr std::string_view kRun[] = {"{runtime}", "--max-old-space-size={heap_mib}", "{output}"};
}  // namespace typescript_parts

constinit const LanguageDescriptor kTypeScript{
    .language = Language::typescript,
    .name = "typescript",
    .display_name = "TypeScript",
    .aliases = typescript_parts::kAliases,
    .extensions = typescript_parts::kExtensions,
    .source_file = "main.ts",
    .compiler = {"tsc", "E2BEVAL_TSC", "--version", "node-typescript",
                 "npm install --prefix tools/typescript typescript@5.9.3 (or set E2BEVAL_TSC to a tsc)"},
    .compile_argv = typescript_parts::kCompile,
    .artifact = "main.js",
    .runtime = {"node", "E2BEVAL_NODE", "--version", "nodejs", "apt-get install nodejs"},
    .run_argv = typescript_parts::kRun,
    .compile_limits = compile_stage_limits(),
    .reserves_address_space = true,
};

}  // namespace e2beval::languages
