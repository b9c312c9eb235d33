// Test-log parsers: pytest's result lines (`-rA` short summary "PASSED id", or verbose "id PASSED [ 50%]") and
// unittest's verbose lines ("test_x (module.Class) ... ok"), registered by name; a later line for the same
// test wins, as in SWE-bench's parsers.
#include "e2beval/swe/test_log.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

#include "e2beval/core/error.hpp"

namespace e2beval::swe {

std::string_view to_string(TestStatus status) noexcept {
    switch (status) {
        case TestStatus::passed: return "PASSED";
        case TestStatus::failed: return "FAILED";
        case TestStatus::skipped: return "SKIPPED";
        case TestStatus::error: return "ERROR";
        case TestStatus::xfail: return "XFAIL";
    }
    return "FAILED";
}

namespace {

std::optional<TestStatus> pytest_status(std::string_view word) {
    if (word == "PASSED" || word == "XPASS") return TestStatus::passed;
    if (word == "FAILED") return TestStatus::failed;
    if (word == "SKIPPED") return TestStatus::skipped;
    if (word == "ERROR") return TestStatus::error;
    if (word == "XFAIL") return TestStatus::xfail;
    return std::nullopt;
}

// The test id of a "-rA" line after its status word: the rest of the line, less the " - message" pytest adds
// to FAILED, ERROR and XFAIL lines. Parametrized ids may hold spaces and " - " themselves, so the id ends at
// the first " - " where its brackets are balanced.
std::string id_before_message(const std::string& rest) {
    for (std::size_t at = rest.find(" - "); at != std::string::npos; at = rest.find(" - ", at + 1)) {
        const auto candidate = rest.substr(0, at);
        if (std::count(candidate.begin(), candidate.end(), '[') == std::count(candidate.begin(), candidate.end(), ']')) return candidate;
    }
    return rest;
}

class PytestLogParser final : public TestLogParser {
public:
    std::string_view name() const noexcept override { return "pytest"; }
    TestStatusMap parse(const std::string& log) const override {
        TestStatusMap statuses;
        std::istringstream input(log);
        for (std::string line; std::getline(input, line);) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            // "-rA": "PASSED tests/test_x.py::test_y[a b]", "FAILED tests/test_x.py::test_y - AssertionError: ..."
            if (const auto space = line.find(' '); space != std::string::npos)
                if (auto status = pytest_status(std::string_view(line).substr(0, space))) {
                    auto id = id_before_message(line.substr(space + 1));
                    if (id.find("::") != std::string::npos) statuses[id] = *status;
                    continue;
                }
            // "-v": "tests/test_x.py::test_y PASSED   [ 50%]"
            static const std::regex verbose(R"(^(\S+::.*?) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)(\s+\[\s*\d+%\])?\s*$)");
            std::smatch match;
            if (std::regex_match(line, match, verbose))
                if (auto status = pytest_status(match[2].str())) statuses[match[1].str()] = *status;
        }
        return statuses;
    }
};

class UnittestLogParser final : public TestLogParser {
public:
    std::string_view name() const noexcept override { return "unittest"; }
    TestStatusMap parse(const std::string& log) const override {
        static const std::regex line_pattern(R"(^(\w+ \([\w.]+\)).* \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)\s*$)");
        TestStatusMap statuses;
        std::istringstream input(log);
        for (std::string line; std::getline(input, line);) {
            std::smatch match;
            if (!std::regex_match(line, match, line_pattern)) continue;
            const auto word = match[2].str();
            TestStatus status = TestStatus::failed;
            if (word == "ok" || word == "unexpected success") status = TestStatus::passed;
            else if (word == "ERROR") status = TestStatus::error;
            else if (word == "expected failure") status = TestStatus::xfail;
            else if (word.rfind("skipped", 0) == 0) status = TestStatus::skipped;
            statuses[match[1].str()] = status;
        }
        return statuses;
    }
};

struct Registry {
    std::mutex mutex;
    std::vector<std::shared_ptr<const TestLogParser>> parsers{std::make_shared<PytestLogParser>(),
                                                              std::make_shared<UnittestLogParser>()};
};

Registry& registry() {
    static Registry instance;
    return instance;
}

}  // namespace

const TestLogParser& parser_for(const std::string& framework) {
    auto& known = registry();
    std::lock_guard lock(known.mutex);
    for (const auto& parser : known.parsers)
        if (parser->name() == framework) return *parser;
    std::string names;
    for (const auto& parser : known.parsers) names += (names.empty() ? "" : ", ") + std::string(parser->name());
    throw input_error("no test-log parser for \"" + framework + "\"; known: " + names);
}

void register_parser(std::shared_ptr<const TestLogParser> parser) {
    auto& known = registry();
    std::lock_guard lock(known.mutex);
    std::erase_if(known.parsers, [&](const auto& kept) { return kept->name() == parser->name(); });
    known.parsers.push_back(std::move(parser));
}

std::vector<std::string> parser_names() {
    auto& known = registry();
    std::lock_guard lock(known.mutex);
    std::vector<std::string> names;
    for (const auto& parser : known.parsers) names.emplace_back(parser->name());
    return names;
}

}  // namespace e2beval::swe
