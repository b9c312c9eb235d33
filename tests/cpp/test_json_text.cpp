// Tests for to_json_text: the JSON every e2beval output writes, with plain numbers where Boost 1.81's
// serializer writes 1E0 and 4.117647058823529E-1, and otherwise the same text as boost::json::serialize.
#include "e2beval/core/json.hpp"

#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <cmath>
#include <limits>

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_json_text {

namespace json = boost::json;
using e2beval::to_json_text;

TEST_CASE("to_json_text writes doubles in their shortest round-trip form, never with a capital-E exponent") {
    CHECK(to_json_text(json::value(0.4117647058823529)) == "0.4117647058823529");
    CHECK(to_json_text(json::value(2.0 / 3.0)) == "0.6666666666666666");
    CHECK(to_json_text(json::value(0.068326716)) == "0.068326716");
    CHECK(to_json_text(json::value(1.0)) == "1.0");
    CHECK(to_json_text(json::value(0.0)) == "0.0");
    CHECK(to_json_text(json::value(-0.0)) == "-0.0");
    CHECK(to_json_text(json::value(120.0)) == "120.0");
    CHECK(to_json_text(json::value(-2.5)) == "-2.5");
    CHECK(to_json_text(json::value(1e-7)) == "1e-07");
    CHECK(to_json_text(json::value(1e21)) == "1e+21");
    for (const double number : {0.4117647058823529, 1.0, 1e-7, 1e21, 1.7976931348623157e308, 5e-324, 0.1})
        CHECK(json::parse(to_json_text(json::value(number))).as_double() == number);
}

TEST_CASE("to_json_text writes what JSON cannot hold as null, and integers as integers") {
    CHECK(to_json_text(json::value(std::numeric_limits<double>::quiet_NaN())) == "null");
    CHECK(to_json_text(json::value(std::numeric_limits<double>::infinity())) == "null");
    CHECK(to_json_text(json::value(-std::numeric_limits<double>::infinity())) == "null");
    CHECK(to_json_text(json::value(std::int64_t{-42})) == "-42");
    CHECK(to_json_text(json::value(std::uint64_t{18446744073709551615ull})) == "18446744073709551615");
}

TEST_CASE("to_json_text matches boost::json::serialize for everything but doubles") {
    const auto document = json::parse(
        R"({"text":"tab\t quote\" nl\n é \u0001","list":[1,-2,true,false,null,[],{}],"nested":{"a":{"b":[{"c":"d"}]}},"":0})");
    CHECK(to_json_text(document) == json::serialize(document));
    const json::value verdict = {{"pass", true}, {"score", 0.4117647058823529}, {"cases", json::array{1.0, 2}}};
    CHECK(to_json_text(verdict) == R"({"pass":true,"score":0.4117647058823529,"cases":[1.0,2]})");
}

// Python's json module writes a str holding a lone surrogate as the escape \udcff: legal JSON, no character.
TEST_CASE("parse_json reads lone surrogate escapes as text or as their bytes, and keeps pairs and escaped backslashes") {
    using e2beval::LoneSurrogates;
    boost::system::error_code ec;
    std::size_t found = 0;
    const std::string text = R"({"a": "caf\udcff", "pair": "\ud83d\ude00", "not": "\\udcff", "high": "\ud800x"})";
    CHECK(json::parse(text, ec).is_null());
    CHECK(ec);  // what Boost.JSON says alone

    ec = {};
    const auto escaped = e2beval::parse_json(text, LoneSurrogates::as_escape_text, ec, &found);
    REQUIRE_FALSE(ec);
    CHECK(found == 2);
    CHECK(escaped.at("a").as_string() == "caf\\udcff");
    CHECK(escaped.at("pair").as_string() == "\xF0\x9F\x98\x80");  // a pair is one character, untouched
    CHECK(escaped.at("not").as_string() == "\\udcff");            // an escaped backslash, not an escape
    CHECK(escaped.at("high").as_string() == "\\ud800x");
    CHECK_FALSE(e2beval::find_invalid_text(escaped, ""));

    const auto bytes = e2beval::parse_json(text, LoneSurrogates::as_wtf8, ec, &found);
    REQUIRE_FALSE(ec);
    CHECK(bytes.at("a").as_string() == "caf\xED\xB3\xBF");  // Python's "surrogatepass" bytes
    const auto invalid = e2beval::find_invalid_text(bytes, "vars");
    REQUIRE(invalid);
    CHECK(invalid->path == "vars.a");
    CHECK(invalid->shown == "\\udcff");
    CHECK(e2beval::find_invalid_text(json::parse(R"({"x": [1, "ok", {"y": "z"}]})"), "vars") == std::nullopt);

    ec = {};
    e2beval::parse_json(R"({"a": "caf\udcff")", LoneSurrogates::as_escape_text, ec);
    CHECK(ec);  // everything else is as strict as before
}

}  // namespace e2beval_test_json_text
