// `e2beval cache info|clear|prepare`: the compile cache (compiled programs and their diagnostics, docs/languages.md) and
// e2beval's prepared toolchain caches (Go's standard library).
#include <filesystem>
#include <iostream>

#include <boost/json.hpp>

#include "cli/commands.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/language.hpp"
#include "local/compile_cache.hpp"
#include "local/interpreters.hpp"
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

// `cache prepare [LANG...]`: every compiled language's shared caches (none given: the languages that have
// any, Go), each on its own; a missing toolchain or a failed preparation is reported and fails the command
// without stopping the others.
int prepare_command(const ParsedArgs& args) {
    std::vector<Language> languages;
    for (std::size_t i = 1; i < args.positional.size(); ++i) {
        const auto language = language_from_tag(args.positional[i]);
        if (!language) throw usage_error("cache prepare takes languages (" + language_names_text() + "), got '" + args.positional[i] + "'");
        if (!describe(*language).compiled())
            throw usage_error("cache prepare: " + std::string(describe(*language).name) + " is interpreted; it has no toolchain cache to prepare");
        languages.push_back(*language);
    }
    if (languages.empty()) languages = {Language::go};
    const auto node = local::configured_node("");
    int status = 0;
    for (const auto language : languages) {
        try {
            std::cout << local::prepare_toolchain_caches(language, node, [](const std::string& message) {
                std::cerr << "e2beval: " << message << std::endl;
            }) << std::endl;
        } catch (const error& failure) {
            std::cerr << "e2beval cache prepare: " << failure.what() << "\n";
            status = kExitFailed;
        }
    }
    return status;
}

int cache_command(const ParsedArgs& args) {
    const auto& action = args.positional[0];
    if (action == "prepare") return prepare_command(args);
    if (args.positional.size() > 1) throw usage_error("cache " + action + " takes no other argument, got '" + args.positional[1] + "'");
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
    throw usage_error("cache takes info, clear or prepare, got '" + action + "'");
}

}  // namespace

Command make_cache_command() {
    return {{"cache", "e2beval cache info|clear [OPTIONS] | e2beval cache prepare [LANG...]",
             "Show, clear or prepare e2beval's compile cache and toolchain caches.",
             "The compile cache keeps what a sandboxed compile made (the program of a success, the diagnostics of a\n"
             "compile error), keyed by SHA-256 of the toolchain, flags, limits and source, so the same program compiles\n"
             "once. It lives in $E2BEVAL_CACHE_DIR/compile (else $XDG_CACHE_HOME/e2beval/compile, else\n"
             "~/.cache/e2beval/compile), holds at most $E2BEVAL_COMPILE_CACHE_BYTES (default 1 GiB; 0 turns it off)\n"
             "and drops the least recently used entries first. Prepared toolchain caches (Go's standard library) live\n"
             "beside it in toolchains/.\n\n"
             "`cache prepare [LANG...]` makes the toolchain caches ready now (no LANG: every language that has one). Go:\n"
             "its standard library compiled once per Go toolchain (`go build std` on the host, about a minute of CPU),\n"
             "which the first Go compile otherwise does itself while it waits; a preparation in progress elsewhere is\n"
             "waited for, never repeated. The other compiled languages have nothing to prepare: their toolchain is\n"
             "checked. Exits 1, naming the package to install, when a toolchain is missing.",
             {{"--toolchains", "", "with clear: also remove the prepared toolchain caches (rebuilt on next use)"},
              {"--json", "", "with info: print it as JSON"}},
             1, 10},
            cache_command};
}

}  // namespace e2beval::cli
