// The compile cache: a finished sandboxed compile's result (the artifacts of a success, the diagnostics of a
// deterministic compile error), content-addressed by the toolchain, the flags, the limits that can change the
// outcome and every input file. Written only here, on the host side, from results the supervisor read out of a
// finished sandbox; never by code under test. Bounded; least recently used entries go first. docs/languages.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "e2beval/core/types.hpp"

namespace e2beval::local {

struct CachedCompile {
    CompileResult result;
    std::vector<WorkspaceFile> artifacts;
};

// $E2BEVAL_CACHE_DIR/compile (else the default cache directory's compile/).
std::filesystem::path compile_cache_directory();
// The bound: $E2BEVAL_COMPILE_CACHE_BYTES, else 1 GiB. 0 turns the cache off.
std::uint64_t compile_cache_bound_bytes();

// The key of a compile: SHA-256 over every part given, each length-prefixed (so no two lists collide).
std::string compile_cache_key(const std::vector<std::string>& parts);

// The entry under `key`, marked as used (its mtime); nullopt when there is none or it cannot be read.
std::optional<CachedCompile> compile_cache_lookup(const std::string& key);
// Stores an entry (temporary name, then rename), then evicts the oldest entries beyond the bound. Best effort:
// a cache that cannot be written costs a compile, never a result.
void compile_cache_store(const std::string& key, const CachedCompile& entry);

struct CompileCacheInfo {
    std::filesystem::path directory;
    std::uint64_t entries = 0;
    std::uint64_t bytes = 0;
    std::uint64_t bound_bytes = 0;
};
CompileCacheInfo compile_cache_info();
// Removes every entry; returns how many.
std::uint64_t compile_cache_clear();

}  // namespace e2beval::local
