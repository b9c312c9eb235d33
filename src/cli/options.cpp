// A small, strict option parser: --name VALUE, --name=VALUE, flags, "--" ends options.
#include "cli/options.hpp"

#include <sstream>

namespace e2beval::cli {

std::optional<std::string> ParsedArgs::value(const std::string& name) const {
    const auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
}

std::vector<std::string> ParsedArgs::names(const std::string& name) const {
    std::vector<std::string> items;
    std::istringstream list(value(name).value_or(""));
    for (std::string item; std::getline(list, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

std::optional<double> ParsedArgs::number(const std::string& name) const {
    const auto text = value(name);
    if (!text) return std::nullopt;
    try {
        std::size_t used = 0;
        const double parsed = std::stod(*text, &used);
        if (used == text->size() && parsed > 0) return parsed;
    } catch (const std::exception&) {
    }
    throw usage_error(name + " expects a positive number, got '" + *text + "'");
}

ParsedArgs parse(const CommandSpec& spec, const std::vector<std::string>& arguments) {
    ParsedArgs parsed;
    bool options_done = false;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const auto& argument = arguments[i];
        if (options_done || argument.size() < 2 || argument[0] != '-') {
            parsed.positional.push_back(argument);
            continue;
        }
        if (argument == "--") {
            options_done = true;
            continue;
        }
        if (argument == "--help" || argument == "-h") {
            parsed.help = true;
            continue;
        }
        auto name = argument;
        std::optional<std::string> inline_value;
        if (const auto equals = argument.find('='); equals != std::string::npos) {
            name = argument.substr(0, equals);
            inline_value = argument.substr(equals + 1);
        }
        const OptionSpec* option = nullptr;
        for (const auto& candidate : spec.options)
            if (candidate.name == name) option = &candidate;
        if (!option)
            throw usage_error("unknown option '" + name + "' for `e2beval " + spec.name + "`; see `e2beval " + spec.name +
                              " --help`");
        if (option->value_name.empty()) {
            if (inline_value) throw usage_error(name + " takes no value");
            parsed.flags.insert(name);
            continue;
        }
        if (inline_value) {
            parsed.values[name] = *inline_value;
        } else if (i + 1 < arguments.size()) {
            parsed.values[name] = arguments[++i];
        } else {
            throw usage_error(name + " needs a value (" + option->value_name + ")");
        }
        parsed.repeated[name].push_back(parsed.values[name]);
    }
    if (parsed.help) return parsed;
    if (parsed.positional.size() < spec.min_positional)
        throw usage_error("missing argument; usage: " + spec.usage + " (see `e2beval " + spec.name + " --help`)");
    if (parsed.positional.size() > spec.max_positional)
        throw usage_error("unexpected argument '" + parsed.positional[spec.max_positional] + "'; usage: " + spec.usage);
    return parsed;
}

std::string render_help(const CommandSpec& spec) {
    std::ostringstream out;
    out << "Usage: " << spec.usage << "\n\n" << spec.summary << "\n";
    if (!spec.description.empty()) out << "\n" << spec.description << "\n";
    out << "\nOptions:\n";
    // Every row, --help's included, goes through the same layout so that the help texts share one column.
    constexpr std::size_t kHelpColumn = 28;
    std::vector<OptionSpec> rows = spec.options;
    rows.push_back({"-h, --help", "", "show this help"});
    for (const auto& option : rows) {
        std::string left = "  " + option.name + (option.value_name.empty() ? "" : " " + option.value_name);
        if (left.size() < kHelpColumn) left.resize(kHelpColumn, ' ');
        else left += "\n" + std::string(kHelpColumn, ' ');
        out << left << option.help << "\n";
    }
    return out.str();
}

}  // namespace e2beval::cli
