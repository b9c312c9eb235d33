// The tutorial's shape (validate_and_run_code_e2b.py): function_name with test_cases, or test_input with
// expected_output / expected_error. One call per case in one process; str(result) is compared, or the exception's
// class with expected_error.
#include <boost/json.hpp>

#include "core/json_fields.hpp"
#include "core/python_literal.hpp"
#include "e2beval/core/error.hpp"
#include "eval/case_judging.hpp"
#include "eval/shapes/python_harness.hpp"
#include "eval/shapes/shape.hpp"
#include "eval/shapes/vars_fields.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

namespace {

class FunctionCalls final : public Shape {
public:
    TestShape id() const noexcept override { return TestShape::function_calls; }
    std::string_view name() const noexcept override { return "function_calls"; }
    bool python_only() const noexcept override { return true; }

    bool claims(const json::object& vars, const TestSpec&) const override {
        return field(vars, {"test_cases", "testCases"}) || field(vars, {"test_input", "testInput"});
    }

    void read(const json::object& vars, TestSpec& spec) const override {
        if (!spec.function_name)
            throw input_error("vars has test_cases or test_input but no function_name to call with them; " +
                              std::string(kAcceptedShapes));
        spec.shape = TestShape::function_calls;
        std::optional<std::string> default_error;
        if (const auto* error = field(vars, {"expected_error", "expectedError"}))
            default_error = required_string(*error, "expected_error");
        if (const auto* cases = field(vars, {"test_cases", "testCases"})) {
            if (!cases->is_array() || cases->get_array().empty())
                throw input_error("vars.test_cases must be a non-empty list of {input, expected}");
            std::size_t index = 0;
            for (const auto& item : cases->get_array()) {
                const auto where = "vars.test_cases[" + std::to_string(index++) + "]";
                if (!item.is_object()) throw input_error(where + " must be a mapping with input and expected");
                const auto& object = item.get_object();
                TestCase test_case;
                const auto* input = field(object, {"input", "test_input"});
                if (!input) throw input_error(where + " has no `input`");
                test_case.input = text_or_literal(*input);
                if (const auto* expected = field(object, {"expected", "expected_output", "output"}))
                    test_case.expected_output = text_or_literal(*expected);
                if (const auto* error = field(object, {"expected_error", "error"}))
                    test_case.expected_error = required_string(*error, where.substr(5) + ".expected_error");
                if (!test_case.expected_output && !test_case.expected_error) test_case.expected_error = default_error;
                if (!test_case.expected_output && !test_case.expected_error)
                    throw input_error(where + " has neither `expected` nor `expected_error`");
                spec.cases.push_back(std::move(test_case));
            }
            return;
        }
        const auto* input = field(vars, {"test_input", "testInput"});
        TestCase test_case;
        test_case.input = text_or_literal(*input);
        if (const auto* expected = field(vars, {"expected_output", "expectedOutput"}))
            test_case.expected_output = text_or_literal(*expected);
        test_case.expected_error = default_error;
        if (!test_case.expected_output && !test_case.expected_error)
            throw input_error("vars has test_input but neither expected_output nor expected_error");
        spec.cases.push_back(std::move(test_case));
    }

    std::optional<std::string> near_miss(const json::object&, const TestSpec& spec) const override {
        if (!spec.function_name) return std::nullopt;
        return "vars.function_name is '" + *spec.function_name +
               "' but there is neither test_cases (a list of {input, expected}) nor test_input; or give "
               "tests (Python asserts) to check it with";
    }

    std::string build(std::string_view code, const TestSpec& spec, std::string_view marker, const Limits&) const override {
        std::string calls = "[";
        for (const auto& test_case : spec.cases)
            calls += "(" + python_string_literal(*spec.function_name + "(" + test_case.input + ")") + ", " +
                     (test_case.expected_error == "MemoryError" ? "True" : "False") + "), ";
        return std::string(code) + harness_call({"report", "in_process", "calls"}, "__e2beval_run_calls", calls + "]", marker);
    }

    std::vector<CaseResult> outline(const TestSpec& spec) const override {
        std::vector<CaseResult> cases;
        for (const auto& test_case : spec.cases)
            cases.push_back(case_outline(test_case.input,
                                         test_case.expected_error ? "raises " + *test_case.expected_error : *test_case.expected_output));
        return cases;
    }

    void judge_case(CaseResult& result, const json::object& entry, std::size_t index, JudgeContext& context) const override {
        const auto& test_case = context.spec.cases[index];
        result.stdout_data = string_field(entry, "stdout");
        if (entry.contains("error")) {
            const auto error = string_field(entry, "error");
            const auto message = string_field(entry, "message");
            result.actual = message.empty() ? error : error + ": " + message;
            if (test_case.expected_error && error == *test_case.expected_error) {
                result.passed = true;
                result.reason = "Expected error: " + error;
            } else {
                result.reason = "Execution error: " + result.actual;
            }
            return;
        }
        result.actual = string_field(entry, "value");
        if (test_case.expected_error) result.reason = "Expected " + *test_case.expected_error + ", but execution succeeded";
        else case_judging::judge_output(result, *test_case.expected_output, context.mode);
    }
};

}  // namespace

const Shape& function_calls_shape() {
    static const FunctionCalls shape;
    return shape;
}

}  // namespace e2beval::shapes
