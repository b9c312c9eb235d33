// The promptfoo assertion's rich-result check (eval/result_check.hpp): `expect_results` as the config gives it,
// the refusals it gets, and the cell the check runs (no sandbox here: the cell is only prepared).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "e2beval/eval/assertion_options.hpp"
#include "e2beval/eval/result_check.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_result_check {

using namespace e2beval;

namespace {

std::string refusal(const char* config_json) {
    try {
        assertion_options_from_json(boost::json::parse(config_json));
    } catch (const config_error& failure) {
        return failure.what();
    }
    return "(accepted)";
}

boost::json::object vars(const char* json_text) { return boost::json::parse(json_text).as_object(); }

}  // namespace

TEST_CASE("expect_results: a list of kinds or a mapping of kind to the least count") {
    const auto listed = assertion_options_from_json(boost::json::parse(R"({"expect_results": ["png", "data", "png"]})"));
    REQUIRE(listed.expect_results.size() == 2);
    CHECK(listed.expect_results[0].kind == "png");
    CHECK(listed.expect_results[0].count == 2);  // listed twice: two pngs
    CHECK(listed.expect_results[1].kind == "data");
    CHECK(listed.expect_results[1].count == 1);

    const auto counted = assertion_options_from_json(boost::json::parse(R"({"expect_results": {"png": 3}})"));
    REQUIRE(counted.expect_results.size() == 1);
    CHECK(counted.expect_results[0].count == 3);
    CHECK(assertion_options_from_json(nullptr).expect_results.empty());
}

TEST_CASE("expect_results: unknown kinds and bad counts are refused, naming the valid kinds") {
    CHECK(refusal(R"({"expect_results": ["png", "plot"]})") ==
          "expect_results: unknown result kind 'plot'; valid kinds: text, html, markdown, svg, png, jpeg, pdf, latex, "
          "json, javascript, data, chart");
    CHECK(refusal(R"({"expect_results": {"png": 0}})") ==
          "expect_results.png must be at least 1, got 0 (leave the kind out to expect none)");
    CHECK(refusal(R"({"expect_results": {"png": 1.5}})").find("must be a whole number") != std::string::npos);
    CHECK(refusal(R"({"expect_results": "png"})").rfind("expect_results must be a list of result kinds", 0) == 0);
    CHECK(refusal(R"({"expect_results": []})").rfind("expect_results names no result kind", 0) == 0);
    CHECK(refusal(R"({"expect_results": [1]})").find("valid kinds: text,") != std::string::npos);
}

TEST_CASE("expect_results is an assertion setting, not a provider's") {
    CHECK_THROWS_WITH_AS(provider_options_from_json(boost::json::parse(R"({"expect_results": ["png"]})")),
                         doctest::Contains("expect_results is an assertion setting"), config_error);
}

TEST_CASE("the result cell is the test's setup, the answer's code and its testCode, once the scanner let it run") {
    const auto cell = prepare_result_cell("```python\nimport matplotlib.pyplot as plt\ndef draw():\n    plt.plot([1, 2])\n```",
                                          vars(R"J({"setup": "x = 1", "testCode": "draw()"})J"), AnswerOptions{});
    CHECK(cell.answer.status == AnswerStatus::ran);
    CHECK_FALSE(cell.answer.exec.has_value());  // prepared, not run
    CHECK(cell.cell == "x = 1\n\nimport matplotlib.pyplot as plt\ndef draw():\n    plt.plot([1, 2])\n\ndraw()\n");

    const auto blocked = prepare_result_cell("```python\nimport os\nos.system('ls')\n```", vars("{}"), AnswerOptions{});
    CHECK(blocked.answer.status == AnswerStatus::blocked);
    CHECK(blocked.answer.reason.rfind("Unsafe pattern detected in generated code", 0) == 0);
    CHECK(blocked.cell.empty());

    const auto none = prepare_result_cell("I cannot draw that.", vars("{}"), AnswerOptions{});
    CHECK(none.answer.status == AnswerStatus::not_run);
    CHECK(none.answer.reason.rfind("No code to run", 0) == 0);

    AnswerOptions javascript;
    javascript.extract.language = Language::javascript;
    CHECK_THROWS_AS(prepare_result_cell("```js\nconsole.log(1)\n```", vars("{}"), javascript), input_error);
}

TEST_CASE("vars describe a test when they name a shape") {
    CHECK(vars_describe_test(vars(R"J({"testCode": "f()", "expectedOutput": "1"})J")));
    CHECK(vars_describe_test(vars(R"({"function_name": "f"})")));
    CHECK_FALSE(vars_describe_test(vars(R"({"task": "plot the sales"})")));
    CHECK_FALSE(vars_describe_test(vars(R"({"testCode": null})")));
}

}  // namespace e2beval_test_result_check
