// Comparison modes for expected vs actual output. The json mode reads JSON and Python literals with one small
// parser here (not in the sandbox): comparing is the grader's job, and the program's output is hostile text,
// so parsing is bounded (nesting depth) and the regex mode uses Boost.Regex, which gives up with an error
// instead of overflowing the stack on long output or catastrophic patterns.
#include "e2beval/eval/compare.hpp"

#include <boost/json.hpp>
#include <boost/regex.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

constexpr std::string_view kWhitespace = " \t\r\n\v\f";
constexpr std::string_view kModeNames = "exact, trimmed, whitespace, numeric, regex, json";

std::string number_text(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

// Text in double quotes with its invisible characters spelled out, for details about whitespace.
std::string quoted_excerpt(std::string_view text, std::size_t max_bytes = 80) {
    return quoted_literal(text, '"', max_bytes);
}

// ---- numeric ------------------------------------------------------------------------------------------

// Numbers separated by whitespace, commas, semicolons, brackets or parentheses: "3.5", "1 2 3", "[1.0, 2.5]",
// "(1, 2)". Anything else (True, words, numpy's "array(") is not numeric output.
std::optional<std::vector<double>> parse_numbers(std::string_view text, std::string& error) {
    std::vector<double> numbers;
    std::size_t pos = 0;
    const auto separator = [](char c) { return kWhitespace.find(c) != std::string_view::npos || std::string_view(",;[]()").find(c) != std::string_view::npos; };
    while (pos < text.size()) {
        if (separator(text[pos])) {
            ++pos;
            continue;
        }
        std::size_t end = pos;
        while (end < text.size() && !separator(text[end])) ++end;
        std::string_view token = text.substr(pos, end - pos);
        std::string_view digits = token.front() == '+' ? token.substr(1) : token;
        double value = 0.0;
        const auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (digits.empty() || ec != std::errc() || stop != digits.data() + digits.size()) {
            error = "'" + preview(token, 40) + "' is not a number";
            return std::nullopt;
        }
        numbers.push_back(value);
        pos = end;
    }
    if (numbers.empty()) {
        error = "there is no number";
        return std::nullopt;
    }
    return numbers;
}

bool within(double expected, double actual, double absolute, double relative) {
    if (std::isnan(expected) && std::isnan(actual)) return true;
    if (expected == actual) return true;  // also equal infinities
    const double difference = std::fabs(expected - actual);
    return difference <= absolute || difference <= relative * std::max(std::fabs(expected), std::fabs(actual));
}

std::string tolerance_text(double absolute, double relative) {
    std::string out = "tolerance " + number_text(absolute);
    if (relative > 0) out += ", relative " + number_text(relative);
    return out;
}

Comparison compare_numbers(std::string_view expected, std::string_view actual, const CompareMode& mode) {
    std::string error;
    const auto want = parse_numbers(expected, error);
    if (!want) return {false, "numeric: the expected value is not numeric: " + error};
    const auto got = parse_numbers(actual, error);
    if (!got) return {false, "numeric: the output is not numeric: " + error};
    if (want->size() != got->size())
        return {false, "numeric: expected " + std::to_string(want->size()) + " number" + (want->size() == 1 ? "" : "s") +
                           ", got " + std::to_string(got->size())};
    const double absolute = mode.tolerance.value_or(kDefaultNumericTolerance);
    const double relative = mode.relative_tolerance.value_or(0.0);
    for (std::size_t i = 0; i < want->size(); ++i) {
        const double a = (*want)[i], b = (*got)[i];
        if (within(a, b, absolute, relative)) continue;
        std::string where = want->size() == 1 ? "" : "number " + std::to_string(i + 1) + " of " + std::to_string(want->size()) + ": ";
        return {false, "numeric: " + where + "expected " + number_text(a) + ", got " + number_text(b) + ", difference " +
                           number_text(std::fabs(a - b)) + " (" + tolerance_text(absolute, relative) + ")"};
    }
    return {true, {}};
}

// ---- regex ----------------------------------------------------------------------------------------------

// Python's re semantics for a pattern: `^`/`$` anchor the whole text and `.` does not match a newline unless
// the pattern says (?s) or (?m).
boost::regex compile_regex(const std::string& pattern) {
    return boost::regex(pattern, boost::regex::perl | boost::regex::no_mod_m | boost::regex::no_mod_s);
}

std::optional<std::string> regex_problem(const std::string& pattern) {
    try {
        compile_regex(pattern);
        return std::nullopt;
    } catch (const std::exception& failure) {
        return "is not a valid regular expression (" + std::string(failure.what()) + ")";
    }
}

Comparison compare_regex(std::string_view expected, std::string_view actual, const CompareMode& mode) {
    const std::string pattern = mode.pattern ? *mode.pattern : trim_whitespace(expected);
    const std::string subject = trim_whitespace(actual);
    try {
        const auto regex = compile_regex(pattern);
        if (boost::regex_match(subject, regex)) return {true, {}};
        return {false, "regex: the output does not fully match /" + preview(pattern, 80) + "/"};
    } catch (const std::exception& failure) {
        // An invalid pattern (an override's expected text) or the engine's own limits on this output.
        return {false, "regex: /" + preview(pattern, 80) + "/ could not be matched: " + failure.what()};
    }
}

// ---- JSON and Python literals ---------------------------------------------------------------------------

struct Literal {
    enum class Kind { none, boolean, integer, real, string, sequence, set, mapping };
    Kind kind = Kind::none;
    bool boolean = false;
    std::string text;  // integer: canonical digits with sign; string: its characters as UTF-8
    double real = 0.0;
    std::vector<Literal> items;                            // sequence (list or tuple), set
    std::vector<std::pair<std::string, Literal>> entries;  // mapping, by key text, sorted, unique
};

std::string key_text(const Literal& key);

// Python-like repr, for messages and for ordering set items.
std::string render(const Literal& value) {
    switch (value.kind) {
        case Literal::Kind::none: return "None";
        case Literal::Kind::boolean: return value.boolean ? "True" : "False";
        case Literal::Kind::integer: return value.text;
        case Literal::Kind::real: {
            auto text = number_text(value.real);
            if (text.find_first_of(".eani") == std::string::npos) text += ".0";
            return text;
        }
        case Literal::Kind::string: {
            std::string out = "'";
            for (const char c : value.text) out += c == '\'' ? "\\'" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
            return out + "'";
        }
        case Literal::Kind::sequence:
        case Literal::Kind::set: {
            std::string out = value.kind == Literal::Kind::set ? "{" : "[";
            for (std::size_t i = 0; i < value.items.size(); ++i) out += (i ? ", " : "") + render(value.items[i]);
            return out + (value.kind == Literal::Kind::set ? "}" : "]");
        }
        case Literal::Kind::mapping: {
            std::string out = "{";
            for (std::size_t i = 0; i < value.entries.size(); ++i) {
                Literal key;
                key.kind = Literal::Kind::string;
                key.text = value.entries[i].first;
                out += (i ? ", " : "") + render(key) + ": " + render(value.entries[i].second);
            }
            return out + "}";
        }
    }
    return "?";
}

// JSON can only write string keys ({"1": "a"} for Python's {1: 'a'}), so keys compare by this text.
std::string key_text(const Literal& key) {
    switch (key.kind) {
        case Literal::Kind::string: return key.text;
        case Literal::Kind::none: return "null";
        case Literal::Kind::boolean: return key.boolean ? "true" : "false";
        default: return render(key);
    }
}

// Surrogates and values beyond U+10FFFF become U+FFFD: the parsed text is compared and shown, so it must be valid UTF-8.
void append_character(std::string& out, std::uint32_t code_point) {
    const bool valid = code_point <= 0x10FFFF && !(code_point >= 0xD800 && code_point <= 0xDFFF);
    append_utf8(out, valid ? code_point : 0xFFFD);
}

// Reads one value written as JSON or as a Python literal: None/null, True/true, False/false, numbers
// (inf, nan, Infinity, NaN too), strings in either quote with Python's and JSON's escapes (r/b/u prefixes),
// lists, tuples, dicts, sets and set().
class LiteralParser {
public:
    explicit LiteralParser(std::string_view text) : text_(text) {}

    std::optional<Literal> parse(std::string& error) {
        try {
            skip_space();
            auto value = parse_value(0);
            skip_space();
            if (pos_ != text_.size()) fail("unexpected text after the value");
            return value;
        } catch (const Failure& failure) {
            error = failure.message;
            return std::nullopt;
        }
    }

private:
    struct Failure {
        std::string message;
    };
    static constexpr std::size_t kMaxDepth = 200;

    [[noreturn]] void fail(const std::string& what) const {
        throw Failure{what + " at offset " + std::to_string(pos_)};
    }
    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    void skip_space() {
        while (!at_end() && kWhitespace.find(text_[pos_]) != std::string_view::npos) ++pos_;
    }
    void expect(char c) {
        skip_space();
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }

    Literal parse_value(std::size_t depth) {
        if (depth > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
        skip_space();
        if (at_end()) fail("expected a value");
        const char c = peek();
        if (c == '[') return parse_sequence(']', depth);
        if (c == '(') return parse_sequence(')', depth);
        if (c == '{') return parse_braces(depth);
        if (c == '\'' || c == '"') return parse_string(false, false);
        if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) return parse_number();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name(depth);
        fail(std::string("unexpected character '") + c + "'");
    }

    Literal parse_sequence(char close, std::size_t depth) {
        ++pos_;
        Literal value;
        value.kind = Literal::Kind::sequence;
        bool comma = false;
        for (;;) {
            skip_space();
            if (peek() == close) break;
            value.items.push_back(parse_value(depth + 1));
            skip_space();
            if (peek() == ',') {
                ++pos_;
                comma = true;
                continue;
            }
            if (peek() != close) fail(std::string("expected ',' or '") + close + "'");
        }
        ++pos_;
        // (x) is just x in Python; only (x,) is a tuple.
        if (close == ')' && value.items.size() == 1 && !comma) return std::move(value.items.front());
        return value;
    }

    Literal parse_braces(std::size_t depth) {
        ++pos_;
        skip_space();
        Literal value;
        value.kind = Literal::Kind::mapping;
        if (peek() == '}') {
            ++pos_;
            return value;
        }
        std::vector<std::pair<std::string, Literal>> entries;
        for (bool first = true;; first = false) {
            skip_space();
            if (peek() == '}') break;
            auto item = parse_value(depth + 1);
            skip_space();
            if (first && peek() != ':') value.kind = Literal::Kind::set;
            if (value.kind == Literal::Kind::mapping) {
                expect(':');
                entries.emplace_back(key_text(item), parse_value(depth + 1));
            } else {
                value.items.push_back(std::move(item));
            }
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() != '}') fail("expected ',' or '}'");
        }
        ++pos_;
        if (value.kind == Literal::Kind::set) {
            std::sort(value.items.begin(), value.items.end(),
                      [](const Literal& a, const Literal& b) { return render(a) < render(b); });
            return value;
        }
        // Later duplicates win, as in a dict display.
        std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& entry : entries) {
            if (!value.entries.empty() && value.entries.back().first == entry.first) value.entries.back() = std::move(entry);
            else value.entries.push_back(std::move(entry));
        }
        return value;
    }

    unsigned hex_digits(std::size_t count) {
        unsigned result = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const char c = peek();
            unsigned digit;
            if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
            else fail("expected a hexadecimal digit");
            result = result * 16 + digit;
            ++pos_;
        }
        return result;
    }

    Literal parse_string(bool raw, bool bytes) {
        const char quote = text_[pos_++];
        Literal value;
        value.kind = Literal::Kind::string;
        std::string& out = value.text;
        for (;;) {
            if (at_end()) fail("unterminated string");
            const char c = text_[pos_++];
            if (c == quote) break;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_end()) fail("unterminated string");
            const char e = text_[pos_++];
            if (raw) {
                out += '\\';
                out += e;
                continue;
            }
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'v': out += '\v'; break;
                case 'a': out += '\a'; break;
                case '\\': out += '\\'; break;
                case '\'': out += '\''; break;
                case '"': out += '"'; break;
                case '/': out += '/'; break;
                case '\n': break;  // line continuation
                case 'x': {
                    const auto code = hex_digits(2);
                    if (bytes) out += static_cast<char>(code);
                    else append_character(out, code);
                    break;
                }
                case 'u':
                case 'U': {
                    std::uint32_t code = hex_digits(e == 'u' ? 4 : 8);
                    // JSON writes characters beyond the BMP as a surrogate pair.
                    if (code >= 0xD800 && code <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
                        const auto save = pos_;
                        pos_ += 2;
                        const auto low = hex_digits(4);
                        if (low >= 0xDC00 && low <= 0xDFFF) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        else pos_ = save;
                    }
                    append_character(out, code);
                    break;
                }
                default:
                    if (e >= '0' && e <= '7') {  // octal, up to three digits
                        unsigned code = static_cast<unsigned>(e - '0');
                        for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i) code = code * 8 + static_cast<unsigned>(text_[pos_++] - '0');
                        if (bytes) out += static_cast<char>(code & 0xFF);
                        else append_character(out, code);
                    } else {  // Python keeps unknown escapes as written
                        out += '\\';
                        out += e;
                    }
            }
        }
        return value;
    }

    Literal parse_number() {
        const std::size_t start = pos_;
        if (peek() == '-' || peek() == '+') ++pos_;
        if (std::isalpha(static_cast<unsigned char>(peek()))) {  // -inf, -nan, -Infinity
            const auto word = read_word();
            Literal value;
            value.kind = Literal::Kind::real;
            if (word == "inf" || word == "Infinity") value.real = HUGE_VAL;
            else if (word == "nan" || word == "NaN") value.real = std::nan("");
            else fail("'" + word + "' is not a number");
            if (text_[start] == '-') value.real = -value.real;
            return value;
        }
        std::string digits;
        bool is_real = false;
        while (!at_end()) {
            const char c = peek();
            if (c >= '0' && c <= '9') digits += c;
            else if (c == '_') {
            } else if (c == '.' || c == 'e' || c == 'E') {
                is_real = true;
                digits += c;
                if ((c == 'e' || c == 'E') && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '-' || text_[pos_ + 1] == '+')) digits += text_[++pos_];
            } else {
                break;
            }
            ++pos_;
        }
        if (digits.empty() || digits == ".") fail("expected a number");
        if (peek() == 'j' || peek() == 'J') fail("complex numbers are not supported");
        const bool negative = text_[start] == '-';
        Literal value;
        if (is_real) {
            value.kind = Literal::Kind::real;
            const auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value.real);
            if (ec == std::errc::result_out_of_range) value.real = HUGE_VAL;
            else if (ec != std::errc() || stop != digits.data() + digits.size()) fail("'" + digits + "' is not a number");
            if (negative) value.real = -value.real;
            return value;
        }
        // Integers keep every digit: a big factorial must not compare equal to its neighbour.
        value.kind = Literal::Kind::integer;
        const auto first = digits.find_first_not_of('0');
        value.text = first == std::string::npos ? "0" : digits.substr(first);
        if (negative && value.text != "0") value.text.insert(0, "-");
        return value;
    }

    std::string read_word() {
        const auto start = pos_;
        while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }

    Literal parse_name(std::size_t depth) {
        const auto start = pos_;
        const auto word = read_word();
        if (peek() == '\'' || peek() == '"') {  // string prefixes: r'', b'', u'', rb''
            std::string prefix;
            for (const char c : word) prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (prefix == "r" || prefix == "b" || prefix == "u" || prefix == "rb" || prefix == "br")
                return parse_string(prefix.find('r') != std::string::npos, prefix.find('b') != std::string::npos);
        }
        Literal value;
        if (word == "None" || word == "null") return value;
        if (word == "True" || word == "true" || word == "False" || word == "false") {
            value.kind = Literal::Kind::boolean;
            value.boolean = word == "True" || word == "true";
            return value;
        }
        if (word == "inf" || word == "Infinity" || word == "nan" || word == "NaN") {
            pos_ = start;
            return parse_number();
        }
        if (word == "set" || word == "frozenset" || word == "tuple" || word == "list") {  // set(), set([1, 2]), ...
            expect('(');
            skip_space();
            if (peek() == ')') {
                ++pos_;
                value.kind = word == "set" || word == "frozenset" ? Literal::Kind::set : Literal::Kind::sequence;
                return value;
            }
            value = parse_value(depth + 1);
            expect(')');
            if (value.kind == Literal::Kind::sequence || value.kind == Literal::Kind::set) {
                if (word == "set" || word == "frozenset") {
                    value.kind = Literal::Kind::set;
                    std::sort(value.items.begin(), value.items.end(),
                              [](const Literal& a, const Literal& b) { return render(a) < render(b); });
                }
                return value;
            }
            pos_ = start;
        }
        fail("'" + preview(word, 30) + "' is not a literal");
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

struct NumberRule {
    bool tolerant = false;
    double absolute = 0.0;
    double relative = 0.0;
};

bool is_number(const Literal& value) { return value.kind == Literal::Kind::integer || value.kind == Literal::Kind::real; }

double as_double(const Literal& value) {
    if (value.kind == Literal::Kind::real) return value.real;
    return std::strtod(value.text.c_str(), nullptr);
}

// Where `expected` and `actual` first differ, as "at [2]['a']: expected 3, got 4", or nullopt when equal.
std::optional<std::string> difference(const Literal& expected, const Literal& actual, const NumberRule& rule,
                                      const std::string& path) {
    const auto at = [&path] { return path.empty() ? std::string() : "at " + path + ": "; };
    const auto mismatch = [&] { return at() + "expected " + preview(render(expected), 60) + ", got " + preview(render(actual), 60); };
    if (is_number(expected) && is_number(actual)) {
        if (expected.kind == Literal::Kind::integer && actual.kind == Literal::Kind::integer && !rule.tolerant)
            return expected.text == actual.text ? std::nullopt : std::optional(mismatch());
        return within(as_double(expected), as_double(actual), rule.absolute, rule.relative) ? std::nullopt : std::optional(mismatch());
    }
    if (expected.kind != actual.kind) return mismatch();
    switch (expected.kind) {
        case Literal::Kind::none: return std::nullopt;
        case Literal::Kind::boolean: return expected.boolean == actual.boolean ? std::nullopt : std::optional(mismatch());
        case Literal::Kind::string: return expected.text == actual.text ? std::nullopt : std::optional(mismatch());
        case Literal::Kind::sequence:
        case Literal::Kind::set: {
            if (expected.items.size() != actual.items.size())
                return at() + "expected " + std::to_string(expected.items.size()) + " items, got " + std::to_string(actual.items.size());
            for (std::size_t i = 0; i < expected.items.size(); ++i)
                if (auto found = difference(expected.items[i], actual.items[i], rule, path + "[" + std::to_string(i) + "]")) return found;
            return std::nullopt;
        }
        case Literal::Kind::mapping: {
            for (const auto& [key, value] : expected.entries) {
                const auto other = std::lower_bound(actual.entries.begin(), actual.entries.end(), key,
                                                    [](const auto& entry, const std::string& k) { return entry.first < k; });
                if (other == actual.entries.end() || other->first != key) return at() + "missing key " + quoted_excerpt(key, 40);
                if (auto found = difference(value, other->second, rule, path + "[" + quoted_excerpt(key, 40) + "]")) return found;
            }
            for (const auto& [key, value] : actual.entries) {
                const bool known = std::binary_search(expected.entries.begin(), expected.entries.end(), std::pair(key, Literal{}),
                                                      [](const auto& a, const auto& b) { return a.first < b.first; });
                if (!known) return at() + "unexpected key " + quoted_excerpt(key, 40);
            }
            return std::nullopt;
        }
        default: return mismatch();
    }
}

Comparison compare_literals(std::string_view expected, std::string_view actual, const CompareMode& mode) {
    std::string expected_error, actual_error;
    const auto want = LiteralParser(expected).parse(expected_error);
    const auto got = LiteralParser(actual).parse(actual_error);
    if (!want && !got) {
        // Neither side is a literal (say, a str() of a plain string): compare them as trimmed text.
        if (trim_whitespace(expected) == trim_whitespace(actual)) return {true, {}};
        return {false, "json: neither side is JSON or a Python literal, and the texts differ"};
    }
    if (!want) return {false, "json: the expected value is not JSON or a Python literal (" + expected_error + ")"};
    if (!got) return {false, "json: the output is not JSON or a Python literal (" + actual_error + ")"};
    NumberRule rule;
    rule.tolerant = mode.tolerance.has_value() || mode.relative_tolerance.has_value();
    rule.absolute = mode.tolerance.value_or(0.0);
    rule.relative = mode.relative_tolerance.value_or(0.0);
    if (auto found = difference(*want, *got, rule, "")) return {false, "json: " + *found};
    return {true, {}};
}

double tolerance_value(const json::value& value, std::string_view key) {
    if (!value.is_number()) throw input_error("compare." + std::string(key) + " must be a number, got " + json::serialize(value));
    const double number = value.to_number<double>();
    if (!std::isfinite(number) || number < 0)
        throw input_error("compare." + std::string(key) + " must be a finite number >= 0, got " + json::serialize(value));
    return number;
}

CompareKind kind_from_json(const json::value& value) {
    if (value.is_string())
        if (const auto kind = compare_kind_from_string(value.get_string())) return *kind;
    throw input_error("compare mode " + json::serialize(value) + " is not one of " + std::string(kModeNames));
}

}  // namespace

std::string_view to_string(CompareKind kind) noexcept {
    switch (kind) {
        case CompareKind::exact: return "exact";
        case CompareKind::trimmed: return "trimmed";
        case CompareKind::whitespace: return "whitespace";
        case CompareKind::numeric: return "numeric";
        case CompareKind::regex: return "regex";
        case CompareKind::json: return "json";
    }
    return "trimmed";
}

std::optional<CompareKind> compare_kind_from_string(std::string_view name) noexcept {
    for (const auto kind : {CompareKind::exact, CompareKind::trimmed, CompareKind::whitespace, CompareKind::numeric,
                            CompareKind::regex, CompareKind::json})
        if (to_string(kind) == name) return kind;
    return std::nullopt;
}

const std::vector<std::string_view>& compare_keys() {
    // rel_tolerance, an older spelling compare_mode_from_json still reads, is not offered.
    static const std::vector<std::string_view> keys = {"mode", "tolerance", "relative_tolerance", "pattern"};
    return keys;
}

CompareMode compare_mode_from_json(const json::value& value) {
    CompareMode mode;
    if (value.is_string()) {
        mode.kind = kind_from_json(value);
        return mode;
    }
    if (!value.is_object())
        throw input_error("compare must be a mode name (" + std::string(kModeNames) +
                          ") or a mapping {mode, tolerance, relative_tolerance, pattern}, got " + json::serialize(value));
    for (const auto& [key, item] : value.get_object()) {
        if (key == "mode") mode.kind = kind_from_json(item);
        else if (key == "tolerance") mode.tolerance = tolerance_value(item, key);
        else if (key == "relative_tolerance" || key == "rel_tolerance") mode.relative_tolerance = tolerance_value(item, key);
        else if (key == "pattern") {
            if (!item.is_string()) throw input_error("compare.pattern must be a string, got " + json::serialize(item));
            mode.pattern = std::string(item.get_string());
        } else {
            throw input_error("compare has an unknown key '" + std::string(key) +
                              "'; valid keys: mode, tolerance, relative_tolerance, pattern");
        }
    }
    if ((mode.tolerance || mode.relative_tolerance) && mode.kind != CompareKind::numeric && mode.kind != CompareKind::json)
        throw input_error("compare tolerances apply to the numeric and json modes, not to " + std::string(to_string(mode.kind)));
    if (mode.pattern) {
        if (mode.kind != CompareKind::regex)
            throw input_error("compare.pattern applies to the regex mode, not to " + std::string(to_string(mode.kind)));
        if (const auto problem = regex_problem(*mode.pattern)) throw input_error("compare.pattern " + *problem);
    }
    return mode;
}

json::value to_json(const CompareMode& mode) {
    if (!mode.tolerance && !mode.relative_tolerance && !mode.pattern) return json::string(to_string(mode.kind));
    json::object object{{"mode", to_string(mode.kind)}};
    if (mode.tolerance) object["tolerance"] = *mode.tolerance;
    if (mode.relative_tolerance) object["relative_tolerance"] = *mode.relative_tolerance;
    if (mode.pattern) object["pattern"] = *mode.pattern;
    return object;
}

std::string describe(const CompareMode& mode) {
    std::string out(to_string(mode.kind));
    if (mode.kind == CompareKind::numeric)
        out += " (" + tolerance_text(mode.tolerance.value_or(kDefaultNumericTolerance), mode.relative_tolerance.value_or(0.0)) + ")";
    else if (mode.kind == CompareKind::json && (mode.tolerance || mode.relative_tolerance))
        out += " (" + tolerance_text(mode.tolerance.value_or(0.0), mode.relative_tolerance.value_or(0.0)) + ")";
    else if (mode.pattern)
        out += " /" + *mode.pattern + "/";
    return out;
}

std::string trim_whitespace(std::string_view text) {
    const auto first = text.find_first_not_of(kWhitespace);
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(kWhitespace);
    return std::string(text.substr(first, last - first + 1));
}

std::string collapse_whitespace(std::string_view text) {
    std::string out;
    bool pending_space = false;
    for (const char c : text) {
        if (kWhitespace.find(c) != std::string_view::npos) {
            pending_space = !out.empty();
            continue;
        }
        if (pending_space) out += ' ';
        pending_space = false;
        out += c;
    }
    return out;
}

Comparison compare_output(std::string_view expected, std::string_view actual, const CompareMode& mode) {
    switch (mode.kind) {
        case CompareKind::exact:
            if (expected == actual) return {true, {}};
            if (trim_whitespace(expected) == trim_whitespace(actual))
                return {false, "exact: the texts differ in leading or trailing whitespace: expected " + quoted_excerpt(expected) +
                                   ", got " + quoted_excerpt(actual)};
            return {false, {}};
        case CompareKind::trimmed:
            if (trim_whitespace(expected) == trim_whitespace(actual)) return {true, {}};
            if (collapse_whitespace(expected) == collapse_whitespace(actual))
                return {false, "the texts differ only in whitespace inside them; compare: whitespace ignores that"};
            return {false, {}};
        case CompareKind::whitespace:
            return {collapse_whitespace(expected) == collapse_whitespace(actual), {}};
        case CompareKind::numeric: return compare_numbers(expected, actual, mode);
        case CompareKind::regex: return compare_regex(expected, actual, mode);
        case CompareKind::json: return compare_literals(expected, actual, mode);
    }
    return {false, {}};
}

std::optional<std::string> check_expected(std::string_view expected, const CompareMode& mode) {
    std::string error;
    switch (mode.kind) {
        case CompareKind::numeric:
            if (!parse_numbers(expected, error)) return "is not numeric (compare: numeric): " + error;
            return std::nullopt;
        case CompareKind::regex:
            if (mode.pattern) return std::nullopt;
            if (const auto problem = regex_problem(trim_whitespace(expected))) return *problem;
            return std::nullopt;
        case CompareKind::json:
            if (!LiteralParser(expected).parse(error))
                return "is not JSON or a Python literal (compare: json): " + error + "; write strings quoted, e.g. \"'text'\"";
            return std::nullopt;
        default: return std::nullopt;
    }
}

}  // namespace e2beval
