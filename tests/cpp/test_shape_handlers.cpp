// Tests for the test shapes' handlers (src/eval/shapes/): one handler per TestShape, asked in the documented
// order, each claiming its own vars, so the Runner itself decides nothing by shape.
#include "eval/shapes/shape.hpp"

#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "e2beval/eval/runner.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_shape_handlers {

namespace json = boost::json;
using namespace e2beval;

TEST_CASE("every test shape has one handler, registered in the order docs/test-shapes.md gives") {
    std::vector<std::string> names;
    std::set<TestShape> ids;
    for (const auto* shape : shapes::all()) {
        names.emplace_back(shape->name());
        ids.insert(shape->id());
        CHECK(&shapes::of(shape->id()) == shape);
        CHECK(to_string(shape->id()) == shape->name());
    }
    CHECK(ids.size() == names.size());
    CHECK(names == std::vector<std::string>{"function_calls", "humaneval", "asserts", "stdio", "test_code"});
}

TEST_CASE("each handler claims its own shape's vars, and from_vars picks the first that claims them") {
    const std::vector<std::pair<const char*, TestShape>> examples = {
        {R"({"function_name": "f", "test_input": "1", "expected_output": "1"})", TestShape::function_calls},
        {R"({"prompt": "def f():\n", "test": "def check(c): pass", "entry_point": "f"})", TestShape::humaneval},
        {R"({"tests": "assert True"})", TestShape::asserts},
        {R"({"cases": [{"stdin": "", "stdout": "x"}]})", TestShape::stdio},
        {R"J({"testCode": "f()", "expectedOutput": "1"})J", TestShape::test_code},
        {R"({"expectedOutput": "1"})", TestShape::test_code},
        // Both `tests` and `cases`: `tests` comes first.
        {R"({"tests": "assert True", "cases": [{"stdin": "", "stdout": "x"}]})", TestShape::asserts},
    };
    for (const auto& [vars, shape] : examples) {
        CAPTURE(vars);
        const auto spec = TestSpec::from_vars_json(vars);
        CHECK(spec.shape == shape);
        CHECK(shapes::of(shape).claims(json::parse(vars).as_object(), spec));
        CHECK(shapes::of(shape).outline(spec).size() >= 1);
    }
}

TEST_CASE("a shape's flags are what the Runner used to decide by shape") {
    CHECK(shapes::of(TestShape::function_calls).python_only());
    CHECK(shapes::of(TestShape::humaneval).python_only());
    CHECK(shapes::of(TestShape::humaneval).takes_whole_output_as_code());
    CHECK(shapes::of(TestShape::stdio).keeps_top_level_code());
    CHECK(shapes::of(TestShape::test_code).takes_any_fence_language());
    for (const auto* shape : shapes::all())
        CHECK(shape->runs_natively_in_other_languages() == (shape->id() == TestShape::stdio || shape->id() == TestShape::asserts));
}

TEST_CASE("a harness report that is missing or short fails every case with the execution's error") {
    const auto spec = TestSpec::from_vars_json(R"({"tests": ["assert True", "assert 1"]})");
    const auto& shape = shapes::of(spec.shape);
    auto cases = shape.outline(spec);
    ExecResult exec;
    exec.outcome = Outcome::exit_nonzero;
    exec.stderr_data = "Traceback (most recent call last):\n  File \"x\", line 1\nSystemExit: 2\n";
    const std::string note;
    const Limits limits;
    shapes::JudgeContext context{spec, spec.compare, limits, note};
    const auto short_report = json::parse(R"([{}])");
    shape.judge(cases, exec, &short_report, context);
    for (const auto& result : cases) {
        CHECK_FALSE(result.passed);
        CHECK(result.reason == "Execution error: SystemExit: 2");
    }
}

}  // namespace e2beval_test_shape_handlers
