// The scanner on real model answers in seven languages: MultiPL-E's HumanEval rows with a GPT answer each
// (../shared/datasets/multipl-e, never committed). Under `standard` nothing a correct answer needs may block:
// no row's prompt, tests or answer (every fenced block of it) has a block finding. What `strict` flags is printed.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/safety.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_safety_multipl_e {

namespace fs = std::filesystem;
using e2beval::Language;
using e2beval::PolicyPreset;

namespace {

fs::path dataset_directory() {
    if (const char* dir = std::getenv("E2BEVAL_MULTIPL_E")) return dir;
    const fs::path root = std::getenv("E2BEVAL_SOURCE_DIR") ? fs::path(std::getenv("E2BEVAL_SOURCE_DIR"))
                                                             : fs::path(E2BEVAL_SOURCE_DIR);
    return root.parent_path() / "shared" / "datasets" / "multipl-e";
}

struct Row {
    std::string task_id;
    std::vector<std::string> pieces;  // the prompt, the tests, and each code block of the answer
};

std::vector<Row> read_rows(const fs::path& path) {
    REQUIRE_MESSAGE(fs::exists(path), "MultiPL-E rows not found at " << path.string()
                                          << "; set E2BEVAL_MULTIPL_E to the directory holding humaneval-*.jsonl.gz "
                                             "(../shared/datasets/multipl-e beside the repository)");
    std::FILE* pipe = ::popen(("gzip -dc '" + path.string() + "'").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string text;
    char buffer[65536];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    REQUIRE(::pclose(pipe) == 0);
    std::vector<Row> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        const auto object = boost::json::parse(line).as_object();
        Row row{std::string(object.at("task_id").as_string()), {}};
        row.pieces.emplace_back(object.at("prompt").as_string());
        row.pieces.emplace_back(object.at("tests").as_string());
        const std::string answer(object.at("gpt_solution").as_string());
        const auto blocks = e2beval::CodeExtractor::fenced_blocks(answer);
        if (blocks.empty()) row.pieces.push_back(answer);
        for (const auto& block : blocks) row.pieces.push_back(block.code);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

TEST_CASE("corpus: no MultiPL-E row (prompt, tests, every block of the GPT answer) is blocked under standard") {
    const std::vector<std::pair<std::string, Language>> files{
        {"cpp", Language::cpp},        {"go", Language::go},         {"java", Language::java},
        {"rs", Language::rust},        {"ts", Language::typescript}, {"js", Language::javascript},
        {"sh", Language::bash}};
    e2beval::Policy standard;
    e2beval::Policy strict;
    strict.preset = PolicyPreset::strict;
    std::size_t total = 0;
    std::vector<std::string> blocked;
    std::ostringstream summary;
    summary << "\nMultiPL-E rows under the scanner (rows with a finding; rules by count of rows)\n";
    for (const auto& [suffix, language] : files) {
        const auto rows = read_rows(dataset_directory() / ("humaneval-" + suffix + ".jsonl.gz"));
        CHECK(rows.size() >= 150);
        total += rows.size();
        std::size_t warned = 0;
        std::size_t strict_flagged = 0;
        std::map<std::string, std::size_t> strict_rules;
        for (const auto& row : rows) {
            bool row_warned = false;
            std::map<std::string, bool> row_rules;
            for (const auto& piece : row.pieces) {
                for (const auto& finding : e2beval::SafetyScanner(standard).scan(piece, language)) {
                    row_warned = true;
                    if (finding.severity == e2beval::Severity::block) {
                        blocked.push_back(row.task_id + ": " + finding.rule + " at " + std::to_string(finding.line) +
                                          ":" + std::to_string(finding.column) + ": " + finding.message);
                    }
                }
                for (const auto& finding : e2beval::SafetyScanner(strict).scan(piece, language))
                    row_rules[finding.rule] = true;
            }
            warned += row_warned;
            strict_flagged += !row_rules.empty();
            for (const auto& [rule, _] : row_rules) ++strict_rules[rule];
        }
        summary << "  " << suffix << ": " << rows.size() << " rows; standard: " << warned
                << " with a warning; strict: " << strict_flagged << " flagged";
        for (const auto& [rule, count] : strict_rules) summary << " " << rule << "=" << count;
        summary << "\n";
    }
    std::cout << summary.str();
    CHECK(total >= 1100);
    for (const auto& finding : blocked) MESSAGE("blocked under standard: " << finding);
    CHECK(blocked.empty());
}

}  // namespace e2beval_test_safety_multipl_e
