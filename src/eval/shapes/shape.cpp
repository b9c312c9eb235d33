// What every shape shares (src/eval/shapes/shape.hpp): a case's outline, an execution's error, and judging a
// report of one entry per case.
#include "eval/shapes/shape.hpp"

#include <boost/json.hpp>

#include "eval/case_judging.hpp"
#include "eval/shapes/python_harness.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

CaseResult case_outline(std::string input, std::string expected) {
    CaseResult outline;
    outline.input = std::move(input);
    outline.expected = std::move(expected);
    return outline;
}

std::string execution_error(const ExecResult& exec) {
    if (exec.compile && exec.compile->outcome != Outcome::ok) return case_judging::compile_reason(*exec.compile);
    if (exec.outcome == Outcome::exit_nonzero && !last_exception(exec.stderr_data).empty())
        return "Execution error: " + last_exception(exec.stderr_data);
    return "Execution error: " + std::string(to_string(exec.outcome)) + ": " + exec.detail;
}

void Shape::judge(std::vector<CaseResult>& cases, const ExecResult& exec, const json::value* report,
                  JudgeContext& context) const {
    const json::array* entries = report && report->is_array() ? &report->get_array() : nullptr;
    if (!entries || entries->size() != cases.size()) {
        for (auto& result : cases)
            result.reason = exec.outcome == Outcome::ok
                                ? "Execution error: the test harness reported no result (did the code exit early?)"
                                : execution_error(exec);
        return;
    }
    static const json::object no_entry;
    for (std::size_t i = 0; i < cases.size(); ++i)
        judge_case(cases[i], (*entries)[i].is_object() ? (*entries)[i].get_object() : no_entry, i, context);
}

void Shape::judge_case(CaseResult& result, const json::object&, std::size_t, JudgeContext&) const {
    result.reason = "Execution error: the " + std::string(name()) + " shape reads no report of its own";
}

}  // namespace e2beval::shapes
