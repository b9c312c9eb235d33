// `tests`: Python statements run after the code, each snippet a case that passes when it raises nothing. In
// another language than Python this is MultiPL-E's shape, the tests appended to the answer and passing on exit 0,
// which runs as a program of that language (src/eval/compiled_shapes.cpp).
#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "eval/compiled_shapes.hpp"
#include "eval/shapes/python_harness.hpp"
#include "eval/shapes/shape.hpp"
#include "eval/shapes/vars_fields.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

namespace {

std::string snippet_label(const TestSpec& spec, std::size_t index) {
    return spec.assert_snippets.size() == 1 ? std::string("the tests") : "tests[" + std::to_string(index) + "]";
}

class Asserts final : public Shape {
public:
    TestShape id() const noexcept override { return TestShape::asserts; }
    std::string_view name() const noexcept override { return "asserts"; }
    bool runs_natively_in_other_languages() const noexcept override { return true; }

    bool claims(const json::object& vars, const TestSpec&) const override { return field(vars, {"tests"}) != nullptr; }

    void read(const json::object& vars, TestSpec& spec) const override {
        spec.shape = TestShape::asserts;
        const auto& tests = *field(vars, {"tests"});
        if (tests.is_string()) {
            spec.assert_snippets.emplace_back(tests.get_string());
        } else if (tests.is_array() && !tests.get_array().empty()) {
            for (std::size_t i = 0; i < tests.get_array().size(); ++i)
                spec.assert_snippets.push_back(required_string(tests.get_array()[i], "tests[" + std::to_string(i) + "]"));
        } else {
            throw input_error("vars.tests must be Python code (a string) or a non-empty list of snippets, got " +
                              json::serialize(tests));
        }
        for (std::size_t i = 0; i < spec.assert_snippets.size(); ++i)
            if (trim_whitespace(spec.assert_snippets[i]).empty())
                throw input_error("vars.tests" + (tests.is_array() ? "[" + std::to_string(i) + "]" : std::string()) + " is empty");
        // Read for another language than Python, where `tests` is MultiPL-E's shape (compiled_shapes.cpp).
        if (const auto* prompt = field(vars, {"prompt"})) spec.prompt = required_string(*prompt, "prompt");
        if (const auto* stops = field(vars, {"stop_tokens", "stopTokens"})) spec.stop_tokens = compiled_shapes::stop_tokens_of(*stops);
    }

    std::string build(std::string_view code, const TestSpec& spec, std::string_view marker, const Limits&) const override {
        std::vector<Snippet> snippets;
        const bool several = spec.assert_snippets.size() > 1;
        for (std::size_t i = 0; i < spec.assert_snippets.size(); ++i) {
            const auto label = snippet_label(spec, i);
            snippets.push_back({several ? "<" + label + ">" : "<tests>", spec.assert_snippets[i], {{1, label}}});
        }
        return std::string(code) + snippet_harness(snippets, marker);
    }

    std::vector<CaseResult> outline(const TestSpec& spec) const override {
        std::vector<CaseResult> cases;
        for (const auto& snippet : spec.assert_snippets) cases.push_back(case_outline(snippet, "no exception"));
        return cases;
    }

    void judge_case(CaseResult& result, const json::object& entry, std::size_t index, JudgeContext& context) const override {
        judge_snippet(result, entry, snippet_label(context.spec, index));
    }
};

}  // namespace

const Shape& asserts_shape() {
    static const Asserts shape;
    return shape;
}

}  // namespace e2beval::shapes
