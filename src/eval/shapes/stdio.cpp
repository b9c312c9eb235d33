// `cases`: a list of {stdin, stdout}. The program is the answer's top-level code, run once per case with that
// stdin, its stdout compared. In Python one harness runs every case in a child process of its own; in another
// language the program is compiled once and run per case (src/eval/compiled_shapes.cpp).
#include <boost/json.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>

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

std::string shortest_number(double value) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string signal_text(int number) {
    const char* description = ::strsignal(number);
    return "killed by signal " + std::to_string(number) + (description ? " (" + std::string(description) + ")" : std::string());
}

class Stdio final : public Shape {
public:
    TestShape id() const noexcept override { return TestShape::stdio; }
    std::string_view name() const noexcept override { return "stdio"; }
    bool runs_natively_in_other_languages() const noexcept override { return true; }
    // A stdin/stdout program is its top-level code: its main() call and __main__ section are the program.
    bool keeps_top_level_code() const noexcept override { return true; }

    bool claims(const json::object& vars, const TestSpec&) const override { return field(vars, {"cases"}) != nullptr; }

    void read(const json::object& vars, TestSpec& spec) const override {
        spec.shape = TestShape::stdio;
        const auto& cases = *field(vars, {"cases"});
        if (!cases.is_array() || cases.get_array().empty())
            throw input_error("vars.cases must be a non-empty list of {stdin, stdout}, got " + json::serialize(cases));
        std::size_t index = 0;
        for (const auto& item : cases.get_array()) {
            const auto where = "vars.cases[" + std::to_string(index++) + "]";
            if (!item.is_object()) throw input_error(where + " must be a mapping with stdin and stdout");
            const auto& object = item.get_object();
            StdioCase stdio_case;
            if (const auto* input = field(object, {"stdin", "input"})) stdio_case.stdin_data = stream_text(*input, where + ".stdin");
            const auto* output = field(object, {"stdout", "output", "expected"});
            if (!output) throw input_error(where + " has no `stdout` (the output the program must print)");
            stdio_case.expected_stdout = stream_text(*output, where + ".stdout");
            spec.stdio_cases.push_back(std::move(stdio_case));
        }
    }

    // __e2beval_run_stdio runs the code per case: each case gets an equal share of 90 % of the wall time and of
    // 75 % of the output limit, so a loop or a flood in one case still lets the others report.
    std::string build(std::string_view code, const TestSpec& spec, std::string_view marker, const Limits& limits) const override {
        const auto cases = std::max<std::size_t>(spec.stdio_cases.size(), 1);
        const double seconds =
            std::max(0.05, std::chrono::duration<double>(limits.wall_time).count() * 0.9 / static_cast<double>(cases));
        const auto budget = std::max<std::uint64_t>(1024, limits.output_bytes * 3 / 4 / cases);
        std::vector<std::string> inputs;
        for (const auto& stdio_case : spec.stdio_cases) inputs.push_back(stdio_case.stdin_data);
        return harness_call({"report", "stdio"}, "__e2beval_run_stdio",
                            python_string_literal(code) + ", " + python_list(inputs) + ", " + shortest_number(seconds) +
                                ", " + std::to_string(budget),
                            marker);
    }

    std::vector<CaseResult> outline(const TestSpec& spec) const override {
        std::vector<CaseResult> cases;
        for (const auto& stdio_case : spec.stdio_cases) cases.push_back(case_outline(stdio_case.stdin_data, stdio_case.expected_stdout));
        return cases;
    }

    // A case that hit one of the sandbox's limits reports it with the outcome every other shape gives for the same
    // event (context.limit_hit), so the verdict says output_limit or memory_limit, not a crash.
    void judge_case(CaseResult& result, const json::object& entry, std::size_t index, JudgeContext& context) const override {
        result.actual = string_field(entry, "stdout");
        const auto stderr_tail = string_field(entry, "stderr");
        const auto hit = [&](Outcome outcome, std::string detail) {
            result.reason = "Execution error: " + std::string(to_string(outcome)) + ": " + detail;
            if (!context.limit_hit) context.limit_hit.emplace(outcome, std::move(detail));
        };
        if (const auto* timeout = entry.if_contains("timeout"); timeout && timeout->is_number()) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%.3g", timeout->to_number<double>());
            return hit(Outcome::timeout, std::string("the case ran longer than its ") + seconds + " s share of the wall-clock limit");
        }
        if (const auto* truncated = entry.if_contains("truncated"); truncated && truncated->is_bool() && truncated->get_bool())
            return hit(Outcome::output_limit, "the case wrote more than " + std::to_string(result.actual.size()) +
                                                  " bytes to stdout, its share of the " + std::to_string(context.limits.output_bytes) +
                                                  "-byte output limit (raise limits.output_bytes)");
        if (const auto* memory = entry.if_contains("memory"); memory && memory->is_bool() && memory->get_bool())
            return hit(Outcome::memory_limit, "ran out of memory (limit " + std::to_string(context.limits.memory_bytes / kMiB) + " MiB)");
        if (const auto signal = int_field(entry, "signal")) {
            result.reason = "Execution error: " + signal_text(static_cast<int>(*signal));
            return;
        }
        const auto exit_status = int_field(entry, "exit").value_or(-1);
        if (exit_status != 0) {
            const auto exception = last_exception(stderr_tail);
            result.reason = "Execution error: " +
                            (exception.empty() ? "exit status " + std::to_string(exit_status) : case_judging::clip(exception));
            return;
        }
        case_judging::judge_output(result, context.spec.stdio_cases[index].expected_stdout, context.mode);
    }
};

}  // namespace

const Shape& stdio_shape() {
    static const Stdio shape;
    return shape;
}

}  // namespace e2beval::shapes
