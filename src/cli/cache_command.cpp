// `e2beval cache info|clear`: the compile cache (compiled programs and their diagnostics, docs/languages.md) and
// e2beval's prepared toolchain caches (Go's standard library).
#include <filesystem>
#include <iostream>

#include <boost/json.hpp>

#include "cli/commands.hpp"
#include "e2beval/core/json.hpp"
#include "local/compile_cache.hpp"
#include "local/toolchains.hpp"

namespace e2beval::cli {

namespace {

std::uint64_t directory_bytes(const std::filesystem::path& directory) {
    std::uint64_t bytes = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(directory, ec); !ec && it != std::filesystem::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) bytes += it->file_size(ec);
    return bytes;
}

int cache_command(const ParsedArgs& args) {
    const auto& action = args.positional[0];
    const std::filesystem::path toolchains = local::toolchain_cache_directory();
    if (action == "info") {
        const auto info = local::compile_cache_info();
        const auto toolchain_bytes = directory_bytes(toolchains);
        if (args.flag("--json")) {
            std::cout << to_json_text(boost::json::object{{"directory", info.directory.string()},
                                                          {"entries", info.entries},
                                                          {"bytes", info.bytes},
                                                          {"bound_bytes", info.bound_bytes},
                                                          {"toolchains_directory", toolchains.string()},
                                                          {"toolchains_bytes", toolchain_bytes}})
                      << "\n";
            return 0;
        }
        std::cout << "compile cache: " << info.directory.string() << "\n"
                  << "  entries: " << info.entries << ", " << info.bytes << " bytes of at most " << info.bound_bytes
                  << " (E2BEVAL_COMPILE_CACHE_BYTES; least recently used entries go first)\n"
                  << "prepared toolchain caches: " << toolchains.string() << ", " << toolchain_bytes << " bytes\n";
        return 0;
    }
    if (action == "clear") {
        const auto removed = local::compile_cache_clear();
        std::uint64_t toolchain_entries = 0;
        if (args.flag("--toolchains")) {
            std::error_code ec;
            toolchain_entries = std::filesystem::remove_all(toolchains, ec);
        }
        std::cout << "removed " << removed << " compile cache entries"
                  << (args.flag("--toolchains") ? " and " + std::to_string(toolchain_entries) + " files of prepared toolchain caches" : "")
                  << "\n";
        return 0;
    }
    throw usage_error("cache takes info or clear, got '" + action + "'");
}

}  // namespace

Command make_cache_command() {
    return {{"cache", "e2beval cache info|clear [OPTIONS]", "Show or clear e2beval's compile cache.",
             "The compile cache keeps what a sandboxed compile made (the program of a success, the diagnostics of a\n"
             "compile error), keyed by SHA-256 of the toolchain, flags, limits and source, so the same program compiles\n"
             "once. It lives in $E2BEVAL_CACHE_DIR/compile (else $XDG_CACHE_HOME/e2beval/compile, else\n"
             "~/.cache/e2beval/compile), holds at most $E2BEVAL_COMPILE_CACHE_BYTES (default 1 GiB; 0 turns it off)\n"
             "and drops the least recently used entries first. Prepared toolchain caches (Go's standard library) live\n"
             "beside it in toolchains/.",
             {{"--toolchains", "", "with clear: also remove the prepared toolchain caches (rebuilt on next use)"},
              {"--json", "", "with info: print it as JSON"}},
             1, 1},
            cache_command};
}

}  // namespace e2beval::cli
