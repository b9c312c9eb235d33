// The rich-result check of the promptfoo assertion (include/e2beval/eval/result_check.hpp).
#include "e2beval/eval/result_check.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/core/error.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

std::string valid_kinds() {
    std::string text;
    for (const auto kind : result_kinds()) text += (text.empty() ? "" : ", ") + std::string(kind);
    return text;
}

const json::value* first_field(const json::object& object, std::initializer_list<std::string_view> names) {
    for (const auto name : names)
        if (const auto* found = object.if_contains(name); found && !found->is_null()) return found;
    return nullptr;
}

std::string kind_named(const json::value& value) {
    if (!value.is_string())
        throw input_error("expect_results lists result kinds (strings such as png), got " + json::serialize(value) +
                          "; valid kinds: " + valid_kinds());
    const std::string kind(value.get_string());
    const auto& kinds = result_kinds();
    if (std::find(kinds.begin(), kinds.end(), std::string_view(kind)) == kinds.end())
        throw input_error("expect_results: unknown result kind '" + kind + "'; valid kinds: " + valid_kinds());
    return kind;
}

void add(std::vector<ExpectedResult>& expected, const std::string& kind, std::size_t count) {
    const auto same = std::find_if(expected.begin(), expected.end(), [&](const auto& item) { return item.kind == kind; });
    if (same == expected.end()) expected.push_back({kind, count});
    else same->count += count;
}

}  // namespace

const std::vector<std::string_view>& result_kinds() {
    // e2b_code_interpreter's Result fields; `chart` is the figure's data where the SDK extracts one.
    static const std::vector<std::string_view> kinds = {"text", "html",       "markdown", "svg",  "png",  "jpeg", "pdf",
                                                        "latex", "json", "javascript", "data", "chart"};
    return kinds;
}

std::vector<ExpectedResult> expected_results_from_json(const json::value& value) {
    std::vector<ExpectedResult> expected;
    if (value.is_array()) {
        for (const auto& item : value.get_array()) add(expected, kind_named(item), 1);
    } else if (value.is_object()) {
        for (const auto& [key, count] : value.get_object()) {
            const auto kind = kind_named(json::value(key));
            if (!count.is_int64() && !count.is_uint64())
                throw input_error("expect_results." + kind + " must be a whole number of results (at least 1), got " +
                                  json::serialize(count));
            const auto number = count.to_number<std::int64_t>();
            if (number < 1)
                throw input_error("expect_results." + kind + " must be at least 1, got " + std::to_string(number) +
                                  " (leave the kind out to expect none)");
            add(expected, kind, static_cast<std::size_t>(number));
        }
    } else {
        throw input_error("expect_results must be a list of result kinds such as [png] or a mapping of kind to the "
                          "least count such as {png: 1, data: 1}, got " + json::serialize(value) +
                          "; valid kinds: " + valid_kinds());
    }
    if (expected.empty())
        throw input_error("expect_results names no result kind; list at least one of: " + valid_kinds());
    return expected;
}

ResultCell prepare_result_cell(std::string_view model_output, const json::object& vars, const AnswerOptions& options) {
    if (options.extract.language != Language::python)
        throw input_error("expect_results checks the rich results of a Python cell; this test's language is " +
                          std::string(to_string(options.extract.language)));
    ResultCell prepared;
    auto& run = prepared.answer;
    try {
        run.extraction = CodeExtractor(options.extract).extract(model_output);
    } catch (const extraction_error& failure) {
        run.reason = std::string("No code to run: ") + failure.what();
        return prepared;
    } catch (const input_error& failure) {  // invalid UTF-8, a NUL byte: the model's output, not the caller's
        run.reason = std::string("No code to run: ") + failure.what();
        return prepared;
    }
    if (!scan_answer(run, options)) return prepared;
    // Parts end in one newline and are apart by a blank line, as a notebook user would write them.
    std::string cell;
    const auto append = [&](std::string_view text) {
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
        if (!text.empty()) cell += (cell.empty() ? "" : "\n\n") + std::string(text);
    };
    const auto part = [&](const json::value* value, std::string_view name) {
        if (!value) return;
        if (!value->is_string()) throw input_error("vars." + std::string(name) + " must be a string, got " + json::serialize(*value));
        append(value->get_string());
    };
    part(first_field(vars, {"setup"}), "setup");
    append(run.extraction->code);
    part(first_field(vars, {"testCode", "test_code"}), "testCode");
    cell += "\n";
    prepared.cell = std::move(cell);
    run.status = AnswerStatus::ran;  // may run: nothing has yet
    return prepared;
}

bool vars_describe_test(const json::object& vars) {
    // Every key by which TestSpec::from_vars picks (or refuses) a shape: with any of them, the test is graded.
    return first_field(vars, {"function_name", "functionName", "test_cases", "testCases", "test_input", "testInput",
                        "entry_point", "entryPoint", "tests", "cases", "testCode", "test_code", "test"}) != nullptr;
}

}  // namespace e2beval
