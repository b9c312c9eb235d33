// promptfoo's E2B page's shape: testCode with expectedOutput (the code, then testCode; the whole stdout compared),
// or expectedOutput alone (the answer is the whole program). The one shape for every language as it is: no
// harness, no marker line, the program's stdout is the answer.
#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "eval/case_judging.hpp"
#include "eval/shapes/shape.hpp"
#include "eval/shapes/vars_fields.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

namespace {

class TestCode final : public Shape {
public:
    TestShape id() const noexcept override { return TestShape::test_code; }
    std::string_view name() const noexcept override { return "test_code"; }
    bool takes_any_fence_language() const noexcept override { return true; }

    bool claims(const json::object& vars, const TestSpec& spec) const override {
        // expectedOutput alone is the answer's own output; with a function_name it belongs to function calls,
        // which then lack their input (FunctionCalls::near_miss says so).
        return field(vars, {"testCode", "test_code"}) ||
               (field(vars, {"expectedOutput", "expected_output"}) && !spec.function_name);
    }

    void read(const json::object& vars, TestSpec& spec) const override {
        spec.shape = TestShape::test_code;
        const auto* expected = field(vars, {"expectedOutput", "expected_output"});
        if (const auto* test_code = field(vars, {"testCode", "test_code"})) {
            spec.test_code = required_string(*test_code, "testCode");
            if (!expected) throw input_error("vars has testCode but no expectedOutput to compare its output with");
        } else {
            spec.test_code = std::string();
        }
        spec.expected_output = text_or_literal(*expected);
    }

    std::string build(std::string_view code, const TestSpec& spec, std::string_view, const Limits&) const override {
        return std::string(code) + "\n\n" + *spec.test_code + "\n";
    }

    std::vector<CaseResult> outline(const TestSpec& spec) const override {
        std::vector<CaseResult> cases;
        cases.push_back(case_outline(*spec.test_code, *spec.expected_output));
        return cases;
    }

    void judge(std::vector<CaseResult>& cases, const ExecResult& exec, const json::value*, JudgeContext& context) const override {
        auto& single = cases.front();
        single.actual = exec.stdout_data;
        // A program that failed may have been run in the wrong language: the reason says which one it ran in.
        if (exec.outcome != Outcome::ok)
            single.reason = execution_error(exec) + (context.language_note.empty() ? "" : " (" + context.language_note + ")");
        else case_judging::judge_output(single, *context.spec.expected_output, context.mode);
        if (context.mode.kind != CompareKind::exact) single.actual = trim_whitespace(single.actual);
    }
};

}  // namespace

const Shape& test_code_shape() {
    static const TestCode shape;
    return shape;
}

}  // namespace e2beval::shapes
