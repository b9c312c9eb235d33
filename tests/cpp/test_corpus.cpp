// Corpus tests for CodeExtractor and SafetyScanner: accuracy on realistic model answers, block rate on attacks,
// false blocks on benign code (HumanEval's canonical solutions included), side by side with the tutorial.
// The tutorial's three extraction regexes and ten unsafe-pattern regexes are re-implemented here from
// ../shared/PROMPTFOO.md for comparison only; they are never part of the library.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/safety.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_corpus {

namespace fs = std::filesystem;
using e2beval::Language;
using e2beval::PolicyPreset;

namespace {

fs::path repo_root() {
    if (const char* dir = std::getenv("E2BEVAL_SOURCE_DIR")) return dir;
    return fs::path(E2BEVAL_SOURCE_DIR);  // not __FILE__: ccache with base_dir makes it relative
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read " << path.string());
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

struct Entry {
    std::vector<std::string> header;  // words after "@@@@"
    std::string body;
    std::string expected;  // extraction corpus only
};

// "@@@@ id words..." starts an entry; lines starting with '#' before the first entry are comments.
std::vector<Entry> read_corpus(const std::string& name) {
    const std::string text = read_file(repo_root() / "tests" / "corpus" / name);
    std::vector<Entry> entries;
    std::istringstream in(text);
    std::string line;
    bool in_expected = false;
    while (std::getline(in, line)) {
        if (line.rfind("@@@@ ", 0) == 0) {
            Entry entry;
            std::istringstream words(line.substr(5));
            for (std::string word; words >> word;) entry.header.push_back(word);
            entries.push_back(std::move(entry));
            in_expected = false;
        } else if (!entries.empty() && line == "---- expected") {
            in_expected = true;
        } else if (!entries.empty()) {
            (in_expected ? entries.back().expected : entries.back().body) += line + "\n";
        }
    }
    return entries;
}

Language language_named(const std::string& name) {
    if (name.empty()) return Language::python;  // the extraction corpus's default
    const auto language = e2beval::language_from_tag(name);
    REQUIRE_MESSAGE(language.has_value(), "unknown language \"" << name << "\" in a corpus header");
    return *language;
}

std::string rstrip(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r' || text.back() == '\t'))
        text.pop_back();
    return text;
}

std::string without_cr(std::string text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out += text[i];
    return out;
}

// The tutorial's validate_and_run_code_e2b.py: first ```(python)? block; else `def name(...):` up to a blank
// line; else any def to the end.
std::optional<std::string> tutorial_extract(const std::string& output, const std::string& function_name) {
    static const std::regex fenced("```(?:\\s*python)?\\s*\\r?\\n([\\s\\S]*?)```", std::regex::icase);
    std::smatch match;
    if (std::regex_search(output, match, fenced)) return match[1].str();
    if (function_name != "-") {
        const std::regex definition("def\\s+" + function_name + "\\s*\\([\\s\\S]*?\\):[\\s\\S]*?(?=\\n\\n|$)");
        if (std::regex_search(output, match, definition)) return match[0].str();
    }
    static const std::regex any_def("def [\\s\\S]*");
    if (std::regex_search(output, match, any_def)) return match[0].str();
    return std::nullopt;
}

// The tutorial's ten unsafe patterns, searched in the raw text (Python's re.search semantics).
bool tutorial_blocks(const std::string& code) {
    static const std::vector<std::regex> patterns = [] {
        std::vector<std::regex> list;
        for (const char* pattern : {"import socket", "import requests", "import urllib", "os.system", "subprocess",
                                    "eval\\(", "exec\\(", "open\\('/etc", "open\\('/proc", "__import__\\("})
            list.emplace_back(pattern);
        return list;
    }();
    for (const auto& pattern : patterns)
        if (std::regex_search(code, pattern)) return true;
    return false;
}

bool scanner_blocks(const std::string& code, Language language, PolicyPreset preset) {
    e2beval::Policy policy;
    policy.preset = preset;
    return e2beval::SafetyScanner::blocks(e2beval::SafetyScanner(policy).scan(code, language));
}

std::string percent(std::size_t part, std::size_t whole) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << (whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole)) << "%";
    return out.str();
}

struct HumanEvalTask {
    std::string task_id;
    std::string code;  // prompt + canonical solution
};

// HumanEval from E2BEVAL_HUMANEVAL or ../shared/datasets; a failure, not a skip, when absent.
std::vector<HumanEvalTask> humaneval_tasks() {
    fs::path path = repo_root().parent_path() / "shared" / "datasets" / "HumanEval.jsonl.gz";
    if (const char* env = std::getenv("E2BEVAL_HUMANEVAL")) path = env;
    REQUIRE_MESSAGE(fs::exists(path), "HumanEval not found at " << path.string()
                                          << "; set E2BEVAL_HUMANEVAL=/path/to/HumanEval.jsonl.gz (its 164 canonical "
                                             "solutions are part of the benign corpus)");
    const std::string command = (path.extension() == ".gz" ? "gzip -dc '" : "cat '") + path.string() + "'";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string text;
    char buffer[65536];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    ::pclose(pipe);
    std::vector<HumanEvalTask> tasks;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        const auto object = boost::json::parse(line).as_object();
        tasks.push_back({std::string(object.at("task_id").as_string()),
                         std::string(object.at("prompt").as_string()) +
                             std::string(object.at("canonical_solution").as_string())});
    }
    return tasks;
}

}  // namespace

TEST_CASE("corpus: extraction accuracy, e2beval next to the tutorial's three regexes") {
    const auto entries = read_corpus("extraction.txt");
    REQUIRE(entries.size() >= 80);
    std::size_t e2beval_correct = 0;
    std::size_t tutorial_correct = 0;
    std::vector<std::string> failures;
    for (const auto& entry : entries) {
        std::map<std::string, std::string> options;
        for (std::size_t i = 1; i < entry.header.size(); ++i) {
            const auto equals = entry.header[i].find('=');
            options[entry.header[i].substr(0, equals)] =
                equals == std::string::npos ? "1" : entry.header[i].substr(equals + 1);
        }
        std::string output = entry.body;
        if (!output.empty()) output.pop_back();  // the reader's newline before "---- expected"
        if (options.contains("crlf")) {
            std::string crlf;
            for (char c : output) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
            output = crlf;
        }
        const std::string expected = rstrip(entry.expected);
        e2beval::ExtractOptions extract_options;
        if (options["function"] != "-") extract_options.function_name = options["function"];
        extract_options.language = language_named(options["language"]);
        extract_options.keep_main = options.contains("keep_main");
        const auto extraction = e2beval::CodeExtractor(extract_options).try_extract(output);
        const std::string got = extraction ? rstrip(extraction->code) : "<none>";
        if (got == expected) ++e2beval_correct;
        else failures.push_back(entry.header[0] + "\n--- got\n" + got + "\n--- expected\n" + expected);

        const auto tutorial = tutorial_extract(output, options["function"]);
        if ((tutorial ? rstrip(without_cr(*tutorial)) : "<none>") == expected) ++tutorial_correct;
    }
    std::cout << "\nExtraction corpus (" << entries.size() << " model answers, exact code)\n"
              << "  e2beval CodeExtractor      " << e2beval_correct << "/" << entries.size() << "  "
              << percent(e2beval_correct, entries.size()) << "\n"
              << "  tutorial's three regexes   " << tutorial_correct << "/" << entries.size() << "  "
              << percent(tutorial_correct, entries.size()) << "\n";
    for (const auto& failure : failures) MESSAGE("extraction mismatch: " << failure);
    CHECK(failures.empty());
    CHECK(e2beval_correct > tutorial_correct);
}

TEST_CASE("corpus: attacks blocked and benign code passed, per preset, next to the tutorial's ten regexes") {
    const auto attacks = read_corpus("attacks.txt");
    const auto benign = read_corpus("benign.txt");
    const auto humaneval = humaneval_tasks();
    REQUIRE(attacks.size() >= 120);
    REQUIRE(benign.size() >= 40);
    std::size_t obfuscated = 0;
    for (const auto& attack : attacks) obfuscated += attack.header.at(2) == "obfuscated";
    CHECK(obfuscated * 3 >= attacks.size());

    struct Tally {
        std::size_t attacks_blocked = 0;
        std::size_t obfuscated_blocked = 0;
        std::size_t benign_blocked = 0;
        std::size_t humaneval_blocked = 0;
        std::vector<std::string> missed;
        std::vector<std::string> false_blocks;
    };
    std::map<std::string, Tally> tallies;
    const std::vector<std::pair<std::string, std::optional<PolicyPreset>>> columns{
        {"tutorial regexes", std::nullopt},
        {"preset tutorial", PolicyPreset::tutorial},
        {"preset standard", PolicyPreset::standard},
        {"preset strict", PolicyPreset::strict}};
    for (const auto& [label, preset] : columns) {
        Tally& tally = tallies[label];
        const auto blocks = [&](const std::string& code, Language language) {
            if (!preset) return language == Language::python && tutorial_blocks(code);
            return scanner_blocks(code, language, *preset);
        };
        for (const auto& attack : attacks) {
            if (blocks(attack.body, language_named(attack.header.at(1)))) {
                ++tally.attacks_blocked;
                tally.obfuscated_blocked += attack.header.at(2) == "obfuscated";
            } else {
                tally.missed.push_back(attack.header[0]);
            }
        }
        for (const auto& program : benign)
            if (blocks(program.body, language_named(program.header.at(1)))) {
                ++tally.benign_blocked;
                tally.false_blocks.push_back(program.header[0]);
            }
        for (const auto& task : humaneval)
            if (blocks(task.code, Language::python)) {
                ++tally.humaneval_blocked;
                tally.false_blocks.push_back(task.task_id);
            }
    }

    std::cout << "\nSafety corpus: " << attacks.size() << " attacks (" << obfuscated << " obfuscated), " << benign.size()
              << " benign programs + " << humaneval.size() << " HumanEval canonical solutions\n"
              << "  " << std::left << std::setw(18) << "" << std::setw(18) << "attacks blocked" << std::setw(18)
              << "obfuscated" << std::setw(16) << "benign blocked" << "HumanEval blocked\n";
    for (const auto& [label, preset] : columns) {
        const Tally& tally = tallies[label];
        std::cout << "  " << std::setw(18) << label << std::setw(18)
                  << (std::to_string(tally.attacks_blocked) + " " + percent(tally.attacks_blocked, attacks.size()))
                  << std::setw(18)
                  << (std::to_string(tally.obfuscated_blocked) + " " + percent(tally.obfuscated_blocked, obfuscated))
                  << std::setw(16) << tally.benign_blocked << tally.humaneval_blocked << "\n";
    }

    const Tally& standard = tallies["preset standard"];
    for (const auto& id : standard.missed) MESSAGE("standard does not block attack " << id);
    for (const auto& id : standard.false_blocks) MESSAGE("standard blocks benign " << id);
    CHECK(standard.attacks_blocked * 100 >= attacks.size() * 95);
    CHECK(standard.benign_blocked == 0);
    CHECK(standard.humaneval_blocked == 0);
    // strict blocks at least what standard blocks; the tutorial's regexes block HumanEval/160 and less of the rest.
    CHECK(tallies["preset strict"].attacks_blocked >= standard.attacks_blocked);
    CHECK(tallies["tutorial regexes"].attacks_blocked < standard.attacks_blocked);
}

}  // namespace e2beval_test_corpus
