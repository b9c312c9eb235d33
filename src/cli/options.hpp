// Command-line parsing for the e2beval tool: each command declares its options; anything else is an
// error that names the option and points at --help.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace e2beval::cli {

struct OptionSpec {
    std::string name;         // "--timeout"
    std::string value_name;   // "SECONDS"; empty for a flag
    std::string help;
};

struct CommandSpec {
    std::string name;        // "run"
    std::string usage;       // "e2beval run [OPTIONS] FILE"
    std::string summary;     // one line
    std::string description; // paragraphs after the usage
    std::vector<OptionSpec> options;
    std::size_t min_positional = 0;
    std::size_t max_positional = 0;
};

struct ParsedArgs {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;                 // the last value of each option
    std::map<std::string, std::vector<std::string>> repeated;  // every value, in order (options given more than once)
    std::set<std::string> flags;
    bool help = false;

    bool flag(const std::string& name) const { return flags.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> names(const std::string& name) const;  // a comma-separated value's non-empty items
    std::optional<double> number(const std::string& name) const;  // throws usage_error when not a number
};

class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws usage_error for an unknown option, a missing value or the wrong number of arguments.
ParsedArgs parse(const CommandSpec& spec, const std::vector<std::string>& arguments);

std::string render_help(const CommandSpec& spec);

}  // namespace e2beval::cli
