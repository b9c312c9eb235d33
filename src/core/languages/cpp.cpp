// C++: g++, C++17 (what MultiPL-E and SandboxFusion compile with), -O2 as competitive judges do.
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace cpp_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"c++", "cxx", "cc", "g++", "cplusplus"};
constexpr std::string_view kExtensions[] = {".cpp", ".cc", ".cxx", ".c++"};
constexpr std::string_view kCompile[] = {"{tool}", "-std=c++17", "-O2", "-pipe", "{source}", "-o", "{output}"};
constexpr std::string_view kRun[] = {"./{output}"};
}  // namespace cpp_parts

constinit const LanguageDescriptor kCpp{
    .language = Language::cpp,
    .name = "cpp",
    .display_name = "C++",
    .aliases = cpp_parts::kAliases,
    .extensions = cpp_parts::kExtensions,
    .source_file = "main.cpp",
    .compiler = {"g++", "E2BEVAL_CXX", "--version", "g++", "apt-get install g++"},
    .compile_argv = cpp_parts::kCompile,
    .artifact = "main",
    .artifact_executable = true,
    .run_argv = cpp_parts::kRun,
    .compile_limits = compile_stage_limits(),
};

}  // namespace e2beval::languages
