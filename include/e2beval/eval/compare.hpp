// How a program's output is compared with what a test expected: the modes a test chooses with `compare:`
// (exact, trimmed, whitespace, numeric, regex, json) as one value type, and one pure function that applies it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

namespace e2beval {

enum class CompareKind {
    exact,       // byte for byte
    trimmed,     // leading and trailing whitespace ignored (the tutorial's comparison; the default)
    whitespace,  // every run of whitespace is one space, then trimmed
    numeric,     // numbers (or lists of numbers) equal within a tolerance
    regex,       // the expected text is a regular expression that must match all of the trimmed output
    json,        // equal as values: JSON text or Python literals (repr of None/bool/int/float/str/list/dict/...)
};

std::string_view to_string(CompareKind kind) noexcept;
std::optional<CompareKind> compare_kind_from_string(std::string_view name) noexcept;

inline constexpr double kDefaultNumericTolerance = 1e-6;

struct CompareMode {
    CompareKind kind = CompareKind::trimmed;
    // numeric: |expected - actual| <= tolerance (absolute, default kDefaultNumericTolerance) passes, and so does
    // |expected - actual| <= relative_tolerance * max(|expected|, |actual|). json: numbers compare exactly
    // unless one of the two is given.
    std::optional<double> tolerance;
    std::optional<double> relative_tolerance;
    // regex: matched instead of the expected text, so one pattern can serve every case of a test.
    std::optional<std::string> pattern;

    bool operator==(const CompareMode&) const = default;
};

// "numeric" or {"mode": "numeric", "tolerance": 0.01, "relative_tolerance": 1e-9, "pattern": "..."}. Unknown
// modes and keys, a negative tolerance and an invalid pattern are input errors that list what is valid.
CompareMode compare_mode_from_json(const boost::json::value& value);
// The keys of compare_mode_from_json's mapping form, for faces that check a configuration themselves.
const std::vector<std::string_view>& compare_keys();
boost::json::value to_json(const CompareMode& mode);
// "numeric (tolerance 0.01)", for reasons and logs.
std::string describe(const CompareMode& mode);

struct Comparison {
    bool equal = false;
    // Why the texts differ in this mode, e.g. "numeric: value 2 of 3 differs by 0.02 (tolerance 1e-06)".
    // Empty when equal and for a plain trimmed mismatch, whose "Expected X, got Y" says it all.
    std::string detail;
};

// Never throws on what a program printed: output that is not a number, not a literal, or too long for the
// regex engine is a mismatch whose detail says so.
Comparison compare_output(std::string_view expected, std::string_view actual, const CompareMode& mode);

// What is wrong with `expected` as the expected side of `mode` (not numbers, not a valid regex, not a JSON or
// Python literal), or nullopt when it can be compared. The Runner checks test vars with it up front.
std::optional<std::string> check_expected(std::string_view expected, const CompareMode& mode);

// The text as the trimmed and whitespace modes see it.
std::string trim_whitespace(std::string_view text);
std::string collapse_whitespace(std::string_view text);

}  // namespace e2beval
