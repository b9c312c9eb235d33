// A language as data: its names, files, toolchain, stages and default limits, in one descriptor per language
// (src/core/languages/<name>.cpp), registered in one table (src/core/languages.cpp). Every layer reads these;
// adding a language is a new descriptor (docs/languages.md says which files to touch).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "e2beval/core/types.hpp"

namespace e2beval {

// A program a language needs on the host: how e2beval finds it and what to tell a user who lacks it.
struct ToolSpec {
    std::string_view binary;            // looked up on PATH: "g++", "go", "javac"; empty: no tool
    std::string_view env_override;      // a variable naming the binary's path instead: "E2BEVAL_CXX"
    std::string_view version_argument;  // "--version", "version", "-version"
    std::string_view debian_package;    // "g++", "golang-go", "openjdk-17-jdk-headless"
    std::string_view install_hint;      // one command a user can run: "apt-get install g++"
};

// Placeholders in a stage's argv, replaced by the local backend: {tool} the toolchain's binary (its real path),
// {source} the source file's name, {output} the artifact's name, {main} the entry class (Java), {tsc} the
// TypeScript compiler's script, {linker} the real path of the host's C compiler driver (rustc links with it),
// {runtime} the run stage's program (java, node), {heap_mib} half the stage's
// memory limit in MiB (the JVM's and V8's heap, so they fail legibly before the limit kills them).
struct LanguageDescriptor {
    Language language;
    std::string_view name;          // canonical, as in JSON and --language: "cpp"
    std::string_view display_name;  // for people: "C++"
    std::span<const std::string_view> aliases;     // fence tags and other tools' names, lower case: "c++", "cxx"
    std::span<const std::string_view> extensions;  // with their dot, lower case: ".cpp", ".cc"

    // The source file the program is written to in the workspace ("main.cpp"). Java: "{main}.java", named by
    // the program's public class (main_class).
    std::string_view source_file;

    // Compiled languages: the compiler, its argv and the artifact it leaves in the workspace. An interpreted
    // language has an empty compile_argv and runs its source with `runtime`.
    ToolSpec compiler;
    std::span<const std::string_view> compile_argv;
    std::string_view artifact;          // a file ("main") or, ending in '/', a directory of files ("classes/")
    bool artifact_executable = false;   // written 0755 for the run stage (a native binary)
    // The run stage: the program that runs the artifact (empty binary: the artifact itself) and its argv.
    ToolSpec runtime;
    std::span<const std::string_view> run_argv;

    // The compile stage's limits when a request gives none (docs/languages.md lists them).
    Limits compile_limits;
    // The runtime reserves address space it never touches (the JVM, Go, V8): RLIMIT_AS is lifted where a
    // cgroup limits memory, and set well above the memory limit where none does.
    bool reserves_address_space = false;
    // Java: the name the program's entry class decides (the public class, else the class with main, else
    // "Main"); nullptr for every other language.
    std::string (*main_class)(std::string_view code) = nullptr;

    // Go: a program that is a test package (`package name_test`, MultiPL-E's shape: TestXxx functions and no main)
    // is written to test_source_file and built by test_compile_argv (`go test -c`) into a binary that runs its
    // tests (prints PASS, or FAIL and exits 1); nullptr for every other language.
    bool (*is_test_program)(std::string_view code) = nullptr;
    std::string_view test_source_file;
    std::span<const std::string_view> test_compile_argv;

    bool compiled() const noexcept { return !compile_argv.empty(); }
};

// The descriptor of `language`: every enum value has one.
const LanguageDescriptor& describe(Language language) noexcept;
// Every language's descriptor, each once, in the enum's order.
std::span<const LanguageDescriptor* const> all_languages() noexcept;
// The language a file extension (".cpp", any case, with its dot) names.
std::optional<Language> language_from_extension(std::string_view extension) noexcept;

}  // namespace e2beval
