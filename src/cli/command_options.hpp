// The options several commands share (the sandbox's limits and backend, the scanner's policy, the language of a
// file) and the small I/O helpers they use: parsed once here, so every command reads them the same way.
#pragma once

#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "e2beval/analysis/safety.hpp"
#include "e2beval/core/types.hpp"
#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::cli {

// FILE's bytes ('-': standard input); a missing file or a directory is an input_error that says so.
std::string read_file(const std::string& path, std::string_view what);

// --language (default python); an unknown name is a usage error listing the known ones.
Language language_option(const ParsedArgs& args);

// The scanner's policy: --policy and the --allow-*/--deny-* lists.
Policy policy_option(const ParsedArgs& args);
std::vector<OptionSpec> with_policy_options(std::vector<OptionSpec> options);

// Limits and isolation: defaults, then --profile FILE ({"limits": {...}, "isolation": {...}}), then flags.
struct Profile {
    Limits limits;
    IsolationProfile isolation;
};
Profile profile_option(const ParsedArgs& args);

// The local sandbox's options (--python, --pool/--no-pool) and the backend an execution runs on (--backend).
LocalSandboxOptions sandbox_option(const ParsedArgs& args);
std::unique_ptr<Sandbox> sandbox_backend(const ParsedArgs& args, bool pool);
std::vector<OptionSpec> with_sandbox_options(std::vector<OptionSpec> options);

void print_json(const boost::json::value& value);

// The language `run` and `scan` read FILE as: --language, else FILE's extension (one table for every language:
// src/core/types.cpp), else Python; and how it was chosen, for the hint when the code does not parse.
struct FileLanguage {
    Language language = Language::python;
    std::string chosen_by;  // "--language", "its extension", or why the default applied
};

FileLanguage file_language(const ParsedArgs& args, const std::string& path);

}  // namespace e2beval::cli
