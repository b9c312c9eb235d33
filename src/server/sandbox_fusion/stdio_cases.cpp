// stdin/stdout cases and SandboxFusion's comparison.
#include "server/sandbox_fusion/stdio_cases.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <boost/json/parse.hpp>

#include "server/sandbox_fusion/extraction.hpp"
#include "server/sandbox_fusion/programs.hpp"
#include "server/sandbox_fusion/text.hpp"

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (true) {
        const auto end = text.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(start));
            return lines;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Python's float(): decimal or exponent notation, inf/infinity/nan, surrounding whitespace; no hexadecimal.
bool parse_float(std::string_view text, double& value) {
    const std::string trimmed(strip(text));
    if (trimmed.empty()) return false;
    for (const char c : trimmed)
        if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' ||
              std::isalpha(static_cast<unsigned char>(c))))
            return false;
    if (trimmed.find_first_of("xX") != std::string::npos) return false;
    char* end = nullptr;
    value = std::strtod(trimmed.c_str(), &end);
    return end == trimmed.c_str() + trimmed.size();
}

std::vector<StdioCase> read_cases(const json::object& row) {
    const auto* test = row.if_contains("test");
    if (!test) throw SubmitRefused(400, "the row cannot be judged: it has no field `test` (its stdin/stdout cases)");
    json::value parsed;
    const json::value* cases = test;
    if (test->is_string()) {
        boost::system::error_code ec;
        parsed = json::parse(test->get_string(), ec);
        if (ec) throw SubmitRefused(400, "the row cannot be judged: its `test` is a string that is not JSON");
        cases = &parsed;
    }
    if (!cases->is_array()) throw SubmitRefused(400, "the row cannot be judged: its `test` is not a list of cases");
    std::vector<StdioCase> out;
    for (const auto& item : cases->get_array()) {
        const auto* object = item.if_object();
        const auto* input = object ? object->if_contains("input") : nullptr;
        const auto* output = object ? object->if_contains("output") : nullptr;
        if (!input || !input->is_object() || !output || !output->is_object() || !output->get_object().contains("stdout") ||
            !output->get_object().at("stdout").is_string())
            throw SubmitRefused(400, "the row cannot be judged: case " + std::to_string(out.size()) +
                                         " of its `test` is not {\"input\": {\"stdin\": \"...\"}, \"output\": {\"stdout\": \"...\"}}");
        StdioCase test_case;
        test_case.input = input->get_object();
        test_case.output = output->get_object();
        test_case.stdin_data = string_field(test_case.input, "stdin");
        test_case.expected_stdout = string_field(test_case.output, "stdout");
        out.push_back(std::move(test_case));
    }
    return out;
}

json::object truncated(const json::object& object) {
    json::object out;
    for (const auto& [key, value] : object)
        out[key] = value.is_string() ? json::value(truncate_middle(value.get_string())) : value;
    return out;
}

}  // namespace

StdioPlan plan_stdio(const SubmitRequest& request, const json::object& row) {
    if (!request.config.language)
        throw SubmitRefused(400, "config.language field must exist for CommonOJDataset, got None");
    StdioPlan plan;
    plan.cases = read_cases(row);
    auto extracted = extract_code(request.completion, *request.config.language);
    plan.code = std::move(extracted.code);
    plan.extracted_type = std::move(extracted.type);
    plan.run.code = plan.code;
    plan.run.language = *request.config.language;
    // testing.py: the compiled languages get `config.x or 10` for both stages, the others `run_timeout or 20`
    // (and the request's default compile timeout, 10).
    const auto& language = *request.config.language;
    const bool compiled = language == "cpp" || language == "go" || language == "java";
    const double compile_timeout = request.config.compile_timeout.value_or(0);
    const double run_timeout = request.config.run_timeout.value_or(0);
    plan.run.compile_timeout = compiled && compile_timeout > 0 ? compile_timeout : 10;
    plan.run.run_timeout = run_timeout > 0 ? run_timeout : (compiled ? 10 : 20);
    return plan;
}

bool stdout_matches(std::string_view expected, std::string_view actual) {
    auto actual_lines = split_lines(strip(actual));
    auto expected_lines = split_lines(strip(expected));
    if (actual_lines.size() == expected_lines.size() + 1 && actual_lines.back().empty()) actual_lines.pop_back();
    if (expected_lines.size() == actual_lines.size() + 1 && expected_lines.back().empty()) expected_lines.pop_back();
    if (actual_lines.size() != expected_lines.size()) return false;
    for (std::size_t i = 0; i < actual_lines.size(); ++i) {
        const auto got = lower(actual_lines[i]);
        const auto want = lower(expected_lines[i]);
        if (strip(got) == strip(want)) continue;
        double got_number = 0, want_number = 0;
        if (parse_float(want, want_number) && parse_float(got, got_number) &&
            std::abs(got_number - want_number) / std::max(std::abs(want_number), 1e-10) < 1e-5)
            continue;
        return false;
    }
    return true;
}

json::object judge_case(const StdioCase& test, const RunCodeResponse& response, bool full_case, bool& passed) {
    passed = response.status == "Success" && response.run_result &&
             stdout_matches(test.expected_stdout, response.run_result->stdout_data.value_or(""));
    json::object result;
    result["passed"] = passed;
    result["exec_info"] = to_json(response);
    json::object info;
    // Upstream cuts the texts of passing cases only: a failing case keeps everything needed to see why.
    info["input"] = passed && !full_case ? truncated(test.input) : test.input;
    info["output"] = passed && !full_case ? truncated(test.output) : test.output;
    result["test_info"] = std::move(info);
    return result;
}

std::string truncate_middle(std::string_view text) {
    constexpr std::size_t kMax = 1000, kKeep = (kMax - 3) / 2;
    // Code points, as Python counts: the start of every character (a byte that is not a UTF-8 continuation byte).
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
    if (starts.size() <= kMax) return std::string(text);
    return std::string(text.substr(0, starts[kKeep])) + "..." + std::string(text.substr(starts[starts.size() - kKeep]));
}

}  // namespace e2beval::server::sandbox_fusion
