// The descriptors of src/core/languages/<name>.cpp, one per language, for the registry (src/core/languages.cpp).
// Constant-initialized (constinit): readable from any static initializer.
#pragma once

#include "e2beval/core/language.hpp"

namespace e2beval::languages {

extern const LanguageDescriptor kPython;
extern const LanguageDescriptor kJavaScript;
extern const LanguageDescriptor kBash;
extern const LanguageDescriptor kC;
extern const LanguageDescriptor kCpp;
extern const LanguageDescriptor kGo;
extern const LanguageDescriptor kRust;
extern const LanguageDescriptor kJava;
extern const LanguageDescriptor kTypeScript;

// The default limits of a compile stage: compilers need more memory and time than most programs, and write
// more into the workspace (objects, Go's build cache layer). docs/languages.md.
constexpr Limits compile_stage_limits(std::uint64_t memory_bytes = 1024 * kMiB) {
    Limits limits;
    limits.wall_time = std::chrono::seconds(60);
    limits.cpu_time = std::chrono::seconds(30);
    limits.memory_bytes = memory_bytes;
    limits.max_processes = 128;
    limits.output_bytes = 1 * kMiB;
    limits.file_size_bytes = 128 * kMiB;
    limits.workspace_bytes = 512 * kMiB;
    limits.open_files = 1024;
    return limits;
}

}  // namespace e2beval::languages
