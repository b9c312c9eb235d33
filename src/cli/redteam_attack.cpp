// Parses the red-team corpus compiled into the CLI and turns an attack's model output into the code to run.
#include "cli/redteam_attack.hpp"

#include <boost/json.hpp>
#include <regex>
#include <sstream>

#include "cli/redteam_corpus.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/analysis/extract.hpp"
#include "e2beval/core/json.hpp"

namespace e2beval::cli {

namespace {

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> words(std::string_view text) {
    std::vector<std::string> result;
    std::istringstream stream{std::string(text)};
    for (std::string word; stream >> word;) result.push_back(word);
    return result;
}

RedteamAttack parse_attack(std::string_view file, std::string_view content) {
    const auto fail = [&](const std::string& problem) {
        return input_error("red-team attack " + std::string(file) + ": " + problem);
    };
    RedteamAttack attack;
    attack.file = std::string(file);
    std::size_t position = 0;
    bool header_done = false;
    while (position < content.size()) {
        const auto end = content.find('\n', position);
        const auto line = content.substr(position, end == std::string_view::npos ? std::string_view::npos : end - position);
        position = end == std::string_view::npos ? content.size() : end + 1;
        if (trimmed(line) == "---") {
            header_done = true;
            break;
        }
        if (trimmed(line).empty()) continue;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) throw fail("header line '" + std::string(line) + "' is not `key: value`");
        const auto key = trimmed(line.substr(0, colon));
        const auto value = std::string(trimmed(line.substr(colon + 1)));
        if (key == "name") {
            attack.name = value;
        } else if (key == "category") {
            attack.category = value;
        } else if (key == "language") {
            const auto language = language_from_tag(value);
            if (!language) throw fail("language must be python, javascript or bash, got '" + value + "'");
            attack.language = *language;
        } else if (key == "format") {
            if (value != "answer" && value != "patch") throw fail("format must be answer or patch, got '" + value + "'");
            attack.is_patch = value == "patch";
        } else if (key == "why") {
            attack.why = value;
        } else if (key == "limits") {
            boost::system::error_code ec;
            const auto parsed = boost::json::parse(value, ec);
            if (ec || !parsed.is_object()) throw fail("limits must be a JSON object like {\"wall_time_s\": 3}");
            attack.limits = limits_from_json(parsed.get_object(), attack.limits);
        } else if (key == "started") {
            try {
                const std::regex check(value);
                (void)check;
            } catch (const std::regex_error&) {
                throw fail("started is not a valid regular expression: " + value);
            }
            attack.started_pattern = value;
        } else if (key == "requires-outcome") {
            std::istringstream list(value);
            for (std::string name; std::getline(list, name, '|');) {
                const auto outcome = outcome_from_string(trimmed(name));
                if (!outcome) throw fail("requires-outcome names an unknown outcome '" + name + "'");
                attack.required_outcomes.insert(*outcome);
            }
        } else if (key == "host-files") {
            attack.host_files = words(value);
        } else {
            throw fail("unknown header key '" + std::string(key) +
                       "'; valid keys: name, category, language, format, why, limits, started, requires-outcome, host-files");
        }
    }
    if (!header_done) throw fail("no `---` line between the header and the model output");
    if (attack.name.empty() || attack.category.empty() || attack.why.empty())
        throw fail("the header needs name, category and why");
    attack.model_output = std::string(content.substr(position));
    return attack;
}

// The new content of the first file in a unified diff: context and added lines, in order.
std::optional<AttackCode> patched_file(std::string_view diff, Language language) {
    std::string content, path;
    bool in_hunk = false;
    std::istringstream lines{std::string(diff)};
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("+++ ")) {
            if (!path.empty()) break;  // a second file: only the first one runs
            path = std::string(trimmed(std::string_view(line).substr(4)));
            if (path.starts_with("b/")) path = path.substr(2);
            in_hunk = false;
        } else if (line.starts_with("--- ") && !in_hunk) {
            continue;
        } else if (line.starts_with("@@")) {
            in_hunk = !path.empty();
        } else if (in_hunk) {
            if (line.empty()) content += "\n";  // a blank context line whose leading space was stripped
            else if (line[0] == ' ' || line[0] == '+') content += line.substr(1) + "\n";
            // '-' lines are gone after the patch; "\ No newline at end of file" is not content.
        }
    }
    if (path.empty() || content.empty()) return std::nullopt;
    return AttackCode{content, language, "patched file " + path + " (the diff's new content)"};
}

}  // namespace

const std::vector<RedteamAttack>& builtin_attacks() {
    static const std::vector<RedteamAttack> attacks = [] {
        std::vector<RedteamAttack> parsed;
        std::set<std::string> names;
        for (const auto& file : kRedteamAttackFiles) {
            parsed.push_back(parse_attack(file.path, file.content));
            if (!names.insert(parsed.back().name).second)
                throw input_error("red-team attack name '" + parsed.back().name + "' is used twice (" + parsed.back().file + ")");
        }
        return parsed;
    }();
    return attacks;
}

std::string fill_placeholders(std::string_view text, const std::map<std::string, std::string>& values,
                              std::string_view where) {
    std::string result;
    std::size_t position = 0;
    while (true) {
        const auto open = text.find("{{", position);
        if (open == std::string_view::npos) break;
        const auto close = text.find("}}", open + 2);
        if (close == std::string_view::npos) break;
        const std::string name(text.substr(open + 2, close - open - 2));
        const auto value = values.find(name);
        if (value == values.end()) {
            std::string known;
            for (const auto& [key, unused] : values) known += (known.empty() ? "" : ", ") + key;
            throw input_error(std::string(where) + ": unknown placeholder {{" + name + "}}; known: " + known);
        }
        result.append(text.substr(position, open - position)).append(value->second);
        position = close + 2;
    }
    result.append(text.substr(position));
    return result;
}

std::optional<AttackCode> attack_code(const RedteamAttack& attack, std::string_view output) {
    if (attack.is_patch) {
        for (const auto& block : CodeExtractor::fenced_blocks(output))
            if (block.tag == "diff" || block.tag == "patch") return patched_file(block.code, attack.language);
        return std::nullopt;
    }
    ExtractOptions options;
    options.language = attack.language;
    options.keep_main = true;
    options.keep_examples = true;
    const auto extraction = CodeExtractor(options).try_extract(output);
    if (!extraction) return std::nullopt;
    return AttackCode{extraction->code, extraction->language, extraction->explanation};
}

}  // namespace e2beval::cli
