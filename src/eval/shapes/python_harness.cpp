// The Python harness's programs and report entries (src/eval/shapes/python_harness.hpp).
#include "eval/shapes/python_harness.hpp"

#include <boost/json.hpp>
#include <map>
#include <sstream>

#include "eval/case_judging.hpp"
#include "core/json_fields.hpp"
#include "core/python_literal.hpp"
#include "eval/harness.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

namespace {

// The harness's sections, each started by a "# @section NAME" line.
const std::map<std::string, std::string, std::less<>>& harness_sections() {
    static const auto sections = [] {
        std::map<std::string, std::string, std::less<>> found;
        constexpr std::string_view kStart = "# @section ";
        std::string* current = nullptr;
        for (const auto line : split_source_lines(kHarnessSource)) {
            if (line.starts_with(kStart)) current = &found[std::string(line.substr(kStart.size()))];
            else if (current) current->append(line).append("\n");
        }
        return found;
    }();
    return sections;
}

}  // namespace

std::vector<std::string_view> split_source_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        lines.push_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

std::string setup_section(const std::string& setup, std::string_view marker) {
    return "# ---- e2beval test setup ----\n"
           "def __e2beval_setup():\n"
           "    import json, sys\n"
           "    try:\n"
           "        exec(compile(" + python_string_literal(setup) + ", '<setup>', 'exec'), globals())\n"
           "    except BaseException as error:\n"
           "        sys.stdout.flush()\n"
           "        report = {'setup_error': type(error).__name__, 'message': str(error)[:2000]}\n"
           "        sys.__stdout__.write('\\n" + std::string(marker) + "' + json.dumps(report) + '\\n')\n"
           "        sys.__stdout__.flush()\n"
           "        raise SystemExit(1)\n"
           "__e2beval_setup()\n"
           "del __e2beval_setup\n\n";
}

std::string python_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (const auto& item : items) out += python_string_literal(item) + ", ";
    return out + "]";
}

std::string harness_call(std::initializer_list<std::string_view> sections, std::string_view function,
                         const std::string& arguments, std::string_view marker) {
    std::string program = "\n\n# ---- e2beval test harness (src/eval/harness.py) ----\n";
    for (const auto name : sections) program += harness_sections().find(name)->second;
    return program + std::string(function) + "(" + arguments + ", " + python_string_literal(marker) + ")\n";
}

std::string snippet_harness(const std::vector<Snippet>& snippets, std::string_view marker) {
    std::string list = "[";
    for (const auto& snippet : snippets) {
        std::string segments = "[";
        for (const auto& [first, label] : snippet.segments)
            segments += "(" + std::to_string(first) + ", " + python_string_literal(label) + "), ";
        list += "(" + python_string_literal(snippet.filename) + ", " + python_list({snippet.source}) + " + " +
                python_list(snippet.alternatives) + ", " + segments + "]), ";
    }
    return harness_call({"report", "in_process", "snippets"}, "__e2beval_run_snippets", list + "]", marker);
}

void judge_snippet(CaseResult& result, const json::object& entry, const std::string& label) {
    result.stdout_data = string_field(entry, "stdout");
    if (!entry.contains("error")) {
        result.passed = true;
        result.actual = "no exception";
        result.reason = "Passed: " + label + " raised nothing";
        return;
    }
    const auto name = string_field(entry, "error");
    const auto message = string_field(entry, "message");
    const auto where = string_field(entry, "where");
    const auto source = string_field(entry, "source");
    result.actual = message.empty() ? name : name + ": " + message;
    // HumanEval's asserts carry no message: the failing assert itself says what was checked.
    if (message.empty() && !source.empty())
        result.reason = "Execution error: " + name + ": " + source + " (" + where + ")";
    else
        result.reason = "Execution error: " + case_judging::clip(result.actual) +
                        (where.empty() ? "" : " (" + where + (source.empty() ? "" : ": " + source) + ")");
}

std::string last_exception(const std::string& stderr_data) {
    std::istringstream lines(stderr_data);
    std::string line, last;
    while (std::getline(lines, line))
        if (!trim_whitespace(line).empty() && line[0] != ' ') last = trim_whitespace(line);
    return last;
}

std::optional<std::int64_t> int_field(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_number()) return std::nullopt;
    return value->to_number<std::int64_t>();
}

}  // namespace e2beval::shapes
