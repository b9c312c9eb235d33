// The comparison modes on their own (pure functions, no sandbox): what each mode accepts and rejects, the
// details a failing comparison gives, and the errors for a bad `compare:` setting.
#include "e2beval/eval/compare.hpp"

#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_compare {

using namespace e2beval;

namespace {

CompareMode mode_of(const std::string& json_text) { return compare_mode_from_json(boost::json::parse(json_text)); }

bool equal(std::string_view expected, std::string_view actual, const std::string& mode_json) {
    return compare_output(expected, actual, mode_of(mode_json)).equal;
}

}  // namespace

TEST_CASE("compare: exact is byte for byte and says when only the edges differ") {
    CHECK(equal("120", "120", R"("exact")"));
    CHECK_FALSE(equal("120", "120\n", R"("exact")"));
    const auto result = compare_output("120", "120\n", mode_of(R"("exact")"));
    CHECK(result.detail == R"(exact: the texts differ in leading or trailing whitespace: expected "120", got "120\n")");
    CHECK(compare_output("1", "2", mode_of(R"("exact")")).detail.empty());
}

TEST_CASE("compare: trimmed is the default and ignores only the edges") {
    CHECK(CompareMode{}.kind == CompareKind::trimmed);
    CHECK(compare_output("olleh", "  olleh\n", CompareMode{}).equal);
    const auto wrong = compare_output("olleh", "hello", CompareMode{});
    CHECK_FALSE(wrong.equal);
    CHECK(wrong.detail.empty());  // the runner's "Expected olleh, got hello" says it all
    const auto inner = compare_output("1 2\n3", "1  2 3", CompareMode{});
    CHECK_FALSE(inner.equal);
    CHECK(inner.detail.find("compare: whitespace") != std::string::npos);
}

TEST_CASE("compare: whitespace collapses every run, newlines too") {
    CHECK(equal("1 2\n3", "  1\t2   3\r\n", R"("whitespace")"));
    CHECK(equal("", " \n ", R"("whitespace")"));
    CHECK_FALSE(equal("1 2 3", "1 23", R"("whitespace")"));
    CHECK(collapse_whitespace(" a \n\n b\t") == "a b");
}

TEST_CASE("compare: numeric within an absolute or relative tolerance, lists element-wise") {
    CHECK(equal("0.3", "0.30000000000000004", R"("numeric")"));
    CHECK(equal("3.14159", "3.1416", R"({"mode": "numeric", "tolerance": 0.001})"));
    CHECK_FALSE(equal("3.14159", "3.15", R"({"mode": "numeric", "tolerance": 0.001})"));
    CHECK(equal("1000000", "1000001", R"({"mode": "numeric", "relative_tolerance": 1e-5})"));
    CHECK(equal("[1.0, 2.5, -3]", "1 2.5000000001 -3.0", R"("numeric")"));  // a list and its stdout form
    CHECK(equal("(1, 2)", "[1.0, 2.0]", R"("numeric")"));
    CHECK(equal("inf", "inf", R"("numeric")"));
    CHECK(equal("nan", "nan", R"("numeric")"));
    CHECK(equal("+5", "5", R"("numeric")"));

    const auto off = compare_output("[1, 2, 3]", "[1, 2, 3.5]", mode_of(R"("numeric")"));
    CHECK_FALSE(off.equal);
    CHECK(off.detail == "numeric: number 3 of 3: expected 3, got 3.5, difference 0.5 (tolerance 1e-06)");
    CHECK(compare_output("1 2", "1", mode_of(R"("numeric")")).detail == "numeric: expected 2 numbers, got 1");
    CHECK(compare_output("1", "True", mode_of(R"("numeric")")).detail == "numeric: the output is not numeric: 'True' is not a number");
    CHECK(compare_output("1", "", mode_of(R"("numeric")")).detail == "numeric: the output is not numeric: there is no number");
}

TEST_CASE("compare: regex must match all of the trimmed output, with Python's re semantics") {
    CHECK(equal(R"(\d+ items?)", "  12 items\n", R"("regex")"));
    CHECK_FALSE(equal(R"(\d+)", "12 items", R"("regex")"));  // a full match, not a search
    CHECK_FALSE(equal("a.b", "a\nb", R"("regex")"));         // '.' does not cross a newline ...
    CHECK(equal("(?s)a.b", "a\nb", R"("regex")"));           // ... unless the pattern says so
    CHECK_FALSE(equal("^b$", "a\nb", R"("regex")"));         // ^ and $ anchor the whole text
    CHECK(equal("ignored", "Hello, World", R"({"mode": "regex", "pattern": "(?i)hello, world"})"));
    const auto miss = compare_output("x+", "xy", mode_of(R"("regex")"));
    CHECK(miss.detail == "regex: the output does not fully match /x+/");
    // Hostile output cannot crash the grader: the engine gives up with an error, which is a mismatch.
    const auto huge = compare_output("(a|b)*c", std::string(300000, 'a'), mode_of(R"("regex")"));
    CHECK_FALSE(huge.equal);
    CHECK_FALSE(huge.detail.empty());
}

TEST_CASE("compare: json reads JSON and Python literals and compares them as values") {
    CHECK(equal("[1, 2]", "[1, 2]", R"("json")"));
    CHECK(equal(R"({"a": 1, "b": [true, null]})", "{'b': [True, None], 'a': 1}", R"("json")"));
    CHECK(equal("[1, 2]", "(1, 2)", R"("json")"));
    CHECK(equal("1", "1.0", R"("json")"));
    CHECK(equal("{1, 2, 3}", "{3, 1, 2}", R"("json")"));
    CHECK(equal("set()", "set()", R"("json")"));
    CHECK(equal(R"({"1": "a"})", "{1: 'a'}", R"("json")"));  // JSON writes int keys as strings
    CHECK(equal(R"("caf\u00e9 \ud83d\ude00")", "'café 😀'", R"("json")"));
    CHECK(equal(R"("it's")", R"("it's")", R"("json")"));
    CHECK(equal(R"(['a\'b', "x\ny"])", R"(["a'b", "x\ny"])", R"("json")"));
    CHECK(equal("olleh", "olleh", R"("json")"));  // neither is a literal: compared as trimmed text

    // Big integers keep every digit.
    CHECK_FALSE(equal("265252859812191058636308480000000", "265252859812191058636308480000001", R"("json")"));
    CHECK_FALSE(equal("True", "1", R"("json")"));
    CHECK_FALSE(equal("0.1", "0.1000001", R"("json")"));
    CHECK(equal("0.1", "0.1000001", R"({"mode": "json", "tolerance": 1e-5})"));

    const auto nested = compare_output(R"({"a": [1, {"b": 2}]})", "{'a': [1, {'b': 3}]}", mode_of(R"("json")"));
    CHECK_FALSE(nested.equal);
    CHECK(nested.detail == R"(json: at ["a"][1]["b"]: expected 2, got 3)");
    CHECK(compare_output("[1, 2]", "[1]", mode_of(R"("json")")).detail == "json: expected 2 items, got 1");
    CHECK(compare_output(R"({"a": 1})", "{'a': 1, 'b': 2}", mode_of(R"("json")")).detail == R"(json: unexpected key "b")");
    CHECK(compare_output(R"({"a": 1})", "{}", mode_of(R"("json")")).detail == R"(json: missing key "a")");
    const auto prose = compare_output("[1]", "the answer is [1]", mode_of(R"("json")"));
    CHECK(prose.detail.rfind("json: the output is not JSON or a Python literal", 0) == 0);
    // Deep nesting from a hostile program is refused, not a stack overflow.
    const auto deep = compare_output("[1]", std::string(100000, '[') + std::string(100000, ']'), mode_of(R"("json")"));
    CHECK(deep.detail.find("nested deeper than") != std::string::npos);
}

TEST_CASE("compare: settings from JSON, and clear errors for bad ones") {
    CHECK(mode_of(R"("numeric")").kind == CompareKind::numeric);
    const auto full = mode_of(R"({"mode": "numeric", "tolerance": 0.5, "relative_tolerance": 0.01})");
    CHECK(full.tolerance == 0.5);
    CHECK(full.relative_tolerance == 0.01);
    CHECK(describe(full) == "numeric (tolerance 0.5, relative 0.01)");
    CHECK(boost::json::serialize(to_json(full)) == R"({"mode":"numeric","tolerance":5E-1,"relative_tolerance":1E-2})");
    CHECK(boost::json::serialize(to_json(mode_of(R"("json")"))) == R"("json")");

    CHECK_THROWS_WITH_AS(mode_of(R"("fuzzy")"), doctest::Contains("is not one of exact, trimmed, whitespace, numeric, regex, json"),
                         input_error);
    CHECK_THROWS_WITH_AS(mode_of(R"({"mode": "numeric", "tol": 1})"),
                         doctest::Contains("unknown key 'tol'; valid keys: mode, tolerance, relative_tolerance, pattern"), input_error);
    CHECK_THROWS_WITH_AS(mode_of(R"({"mode": "numeric", "tolerance": -1})"), doctest::Contains(">= 0"), input_error);
    CHECK_THROWS_WITH_AS(mode_of(R"({"mode": "exact", "tolerance": 1})"), doctest::Contains("numeric and json modes"), input_error);
    CHECK_THROWS_WITH_AS(mode_of(R"({"mode": "regex", "pattern": "(unclosed"})"), doctest::Contains("not a valid regular expression"),
                         input_error);
    CHECK_THROWS_WITH_AS(mode_of("42"), doctest::Contains("compare must be a mode name"), input_error);

    CHECK(check_expected("1, 2", mode_of(R"("numeric")")) == std::nullopt);
    CHECK(check_expected("one", mode_of(R"("numeric")")).value_or("").find("is not numeric") != std::string::npos);
    CHECK(check_expected("[a-", mode_of(R"("regex")")).value_or("").find("not a valid regular expression") != std::string::npos);
    CHECK(check_expected("hello", mode_of(R"("json")")).value_or("").find("not JSON or a Python literal") != std::string::npos);
    CHECK(check_expected("anything", CompareMode{}) == std::nullopt);
}

}  // namespace e2beval_test_compare
