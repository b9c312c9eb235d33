// C: gcc, C17, -O2 (a judge of programs measures their speed as competitive judges do: Codeforces and
// AtCoder compile with -O2), linked with libm, which C programs expect as they do on every judge.
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace c_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"gcc"};
constexpr std::string_view kExtensions[] = {".c"};
constexpr std::string_view kCompile[] = {"{tool}", "-std=c17", "-O2", "-pipe", "{source}", "-o", "{output}", "-lm"};
constexpr std::string_view kRun[] = {"./{output}"};
}  // namespace c_parts

constinit const LanguageDescriptor kC{
    .language = Language::c,
    .name = "c",
    .display_name = "C",
    .aliases = c_parts::kAliases,
    .extensions = c_parts::kExtensions,
    .source_file = "main.c",
    .compiler = {"gcc", "E2BEVAL_CC", "--version", "gcc", "apt-get install gcc"},
    .compile_argv = c_parts::kCompile,
    .artifact = "main",
    .artifact_executable = true,
    .run_argv = c_parts::kRun,
    .compile_limits = compile_stage_limits(),
};

}  // namespace e2beval::languages
