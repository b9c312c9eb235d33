// Reports: reading metrics and promptfoo's -o JSON, the summary and pass@k, and the four renderings —
// the tutorial's table kept intact, hostile model output escaped in HTML and JUnit, JUnit well-formed.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/report/report.hpp"
#include "report/report_charts.hpp"
#include "report/report_markup.hpp"
#include "temporary_directory.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_report {

using namespace e2beval;
namespace json = boost::json;

namespace {

using testing::TemporaryDirectory;

std::size_t count(std::string_view text, std::string_view needle) {
    std::size_t found = 0;
    for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size())) ++found;
    return found;
}

ReportRow row(std::string task, bool success, double runtime_s, std::string provider = "recorded-gpt", std::string model = "echo") {
    ReportRow result;
    result.task = std::move(task);
    result.provider = std::move(provider);
    result.model = std::move(model);
    result.success = success;
    result.runtime_s = runtime_s;
    result.outcome = "ok";
    result.reason = success ? "Correct output: 1" : "Expected 1, got 2";
    return result;
}

// What a model may write, aimed at whoever renders its output.
const std::string kHostile = "<script>document.body.dataset.pwned=1</script>\"'><img src=x onerror=alert(1)>&amp; \x1b[31m\x01\x7f"
                             "\xff\xfe tail";

ReportData hostile_data() {
    ReportData data;
    data.source = "/tmp/<results>";
    auto bad = row("task \"<b>\" & 'quotes'", false, 0.5);
    bad.reason = "Expected 1, got " + kHostile;
    bad.code = "print('" + kHostile + "')";
    bad.stdout_text = kHostile;
    bad.stderr_text = std::string("nul:\0:end", 9);
    bad.findings = {"import-socket (block) at 1:1: " + kHostile};
    bad.cases = {{false, kHostile, "", "", ""}};
    bad.memory_mb = 12.5;
    data.rows.push_back(bad);
    data.rows.push_back(row("ok", true, 0.25));
    return data;
}

// A strict checker for the XML subset render_junit writes: declaration, elements, attributes in double quotes,
// text, the five entities and numeric references. Returns "" when well-formed, else what is wrong.
std::string xml_problem(std::string_view xml) {
    std::vector<std::string> open;
    std::size_t i = 0;
    const auto entity_ok = [&](std::size_t at) {
        const auto end = xml.find(';', at);
        if (end == std::string_view::npos || end - at > 8) return false;
        const auto name = xml.substr(at + 1, end - at - 1);
        if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos") return true;
        return name.size() > 1 && name[0] == '#' && name.find_first_not_of("0123456789", 1) == std::string_view::npos;
    };
    const auto char_ok = [](unsigned char c) { return c >= 0x20 || c == '\t' || c == '\n' || c == '\r'; };
    if (xml.substr(0, 5) != "<?xml") return "no XML declaration";
    i = xml.find("?>") + 2;
    bool root_seen = false;
    while (i < xml.size()) {
        const auto c = static_cast<unsigned char>(xml[i]);
        if (!char_ok(c)) return "control character at " + std::to_string(i);
        if (c == '&') {
            if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
            ++i;
            continue;
        }
        if (c == '>') return "raw '>' in text is legal but unexpected at " + std::to_string(i);
        if (c != '<') {
            if (open.empty() && c != '\n') return "text outside the root at " + std::to_string(i);
            ++i;
            continue;
        }
        const auto end = xml.find('>', i);
        if (end == std::string_view::npos) return "unterminated tag at " + std::to_string(i);
        std::string_view tag = xml.substr(i + 1, end - i - 1);
        if (tag.find('<') != std::string_view::npos) return "'<' inside a tag at " + std::to_string(i);
        if (tag.starts_with("/")) {
            if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + std::string(tag.substr(1)) + ">";
            open.pop_back();
        } else {
            const bool self_closing = tag.ends_with("/");
            const auto name = tag.substr(0, tag.find_first_of(" /"));
            // Attributes: name="value" pairs; values hold no raw quote, '<' or control character.
            auto rest = tag.substr(name.size(), tag.size() - name.size() - (self_closing ? 1 : 0));
            while (!rest.empty()) {
                if (rest.front() == ' ') { rest.remove_prefix(1); continue; }
                const auto equals = rest.find("=\"");
                if (equals == std::string_view::npos) return "attribute without =\" in <" + std::string(name) + ">";
                const auto close = rest.find('"', equals + 2);
                if (close == std::string_view::npos) return "unterminated attribute in <" + std::string(name) + ">";
                for (const char v : rest.substr(equals + 2, close - equals - 2))
                    if (!char_ok(static_cast<unsigned char>(v)) || v == '\n' || v == '\t') return "raw whitespace control in attribute";
                rest.remove_prefix(close + 1);
            }
            if (open.empty() && root_seen) return "second root element";
            root_seen = true;
            if (!self_closing) open.emplace_back(name);
        }
        i = end + 1;
    }
    return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

}  // namespace

TEST_CASE("escape: markup, quotes, control characters and invalid UTF-8 become inert text") {
    const auto escaped = report_markup::escape(kHostile);
    CHECK(escaped.find('<') == std::string::npos);
    CHECK(escaped.find('"') == std::string::npos);
    CHECK(escaped.find('\'') == std::string::npos);
    CHECK(escaped.find("&lt;script&gt;") != std::string::npos);
    CHECK(escaped.find("&amp;amp;") != std::string::npos);
    CHECK(escaped.find("\xe2\x90\x9b") != std::string::npos);  // ESC shown as U+241B
    CHECK(escaped.find("\xe2\x90\xa1") != std::string::npos);  // DEL shown as U+2421
    for (const char c : escaped) CHECK_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r'));
    CHECK(report_markup::escape(std::string("a\0b", 3)) == "a\xe2\x90\x80" "b");
    CHECK(report_markup::escape("\xef\xbf\xbe") == "\xef\xbf\xbd");  // U+FFFE is no XML character
    CHECK(report_markup::escape_attribute("a\nb\tc") == "a&#10;b&#9;c");
    CHECK(report_markup::excerpt("h\xc3\xa9llo", 2) == "h\n… (5 more bytes not shown)");  // never half a character
}

TEST_CASE("markdown keeps the tutorial's table whole and puts extra sections after it as lists") {
    auto data = hostile_data();
    data.rows.push_back(row("pipe|task", true, 1.25));
    const auto markdown = render_markdown(data);
    CHECK(markdown.rfind("| task | provider | model | success | runtime_s |\n|------|----------|-------|---------|-----------|\n", 0) == 0);
    CHECK(markdown.find("| pipe\\|task | recorded-gpt | echo | True | 1.250 |\n") != std::string::npos);
    // Only the table's lines start with '|': scripts that collect them read the tutorial's table and nothing else.
    std::istringstream lines(markdown);
    std::size_t table_lines = 0;
    for (std::string line; std::getline(lines, line);) table_lines += line.starts_with("|") ? 1 : 0;
    CHECK(table_lines == 2 + data.rows.size());
    CHECK(markdown.find("\n2 of 3 passed\n") != std::string::npos);
    CHECK(markdown.find("## By provider/model") != std::string::npos);
    CHECK(markdown.find("## Failures") != std::string::npos);
    CHECK(markdown.find("<script>") == std::string::npos);  // model output shows as text, never as HTML
}

TEST_CASE("html: self-contained, charts in SVG, every row expandable, hostile output inert") {
    const auto data = hostile_data();
    const auto html = render_html(data);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(count(html, "<script") == 1);  // the page's own sorting script, nothing from the data
    CHECK(html.find("<img") == std::string::npos);
    CHECK(html.find("&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;") != std::string::npos);
    CHECK(html.find("default-src 'none'") != std::string::npos);
    CHECK(html.find("script-src 'sha256-") != std::string::npos);
    // Nothing is fetched: the only URL is the SVG namespace name.
    CHECK(count(html, "http://") == count(html, "http://www.w3.org/2000/svg"));
    CHECK(html.find("https://") == std::string::npos);
    for (const auto id : {"chart-pass-rate", "chart-outcomes", "chart-runtime", "chart-memory"})
        CHECK(html.find(std::string("id=\"") + id + "\"") != std::string::npos);
    CHECK(count(html, "<svg") == 5);  // summary donut + four charts (memory is known here)
    CHECK(count(html, "<tr class=\"detail\"") == data.rows.size());
    CHECK(html.find("table class=\"sortable grouped\" id=\"results\"") != std::string::npos);
    for (const char c : html) CHECK_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r'));
}

TEST_CASE("html without memory says so instead of drawing an empty chart") {
    ReportData data;
    data.rows = {row("a", true, 0.1), row("b", false, 0.2)};
    const auto html = render_html(data);
    CHECK(count(html, "<svg") == 4);
    CHECK(html.find("recorded no peak memory") != std::string::npos);
}

TEST_CASE("junit: well-formed with hostile output, a suite per provider/model, failures and errors") {
    auto data = hostile_data();
    auto other = row("x", false, 0.1, "gpt", "openai:gpt-4.1");
    other.error = "provider error: <timeout>";
    data.rows.push_back(other);
    data.rows.push_back(row("x", true, 0.1, "gpt", "openai:gpt-4.1"));
    const auto xml = render_junit(data);
    CHECK(xml_problem(xml) == "");
    CHECK(count(xml, "<testsuite ") == 2);
    CHECK(count(xml, "<testcase ") == data.rows.size());
    CHECK(count(xml, "<failure ") == 1);
    CHECK(count(xml, "<error ") == 1);
    CHECK(xml.find("<testsuites name=\"e2beval\" tests=\"4\" failures=\"1\" errors=\"1\"") != std::string::npos);
    CHECK(xml.find("name=\"x [sample 2]\"") != std::string::npos);  // samples of one task stay distinct
    CHECK(xml.find("<property name=\"memory_mb\" value=\"12.500\"/>") != std::string::npos);
    CHECK(xml.find("<system-out>") != std::string::npos);
    CHECK(xml_problem("<?xml version=\"1.0\"?>\n<a><b></a>") != "");  // the checker does reject bad XML
}

TEST_CASE("pass@k per provider/model uses the unbiased estimator over tasks") {
    ReportData data;
    // Task A: 5 samples, 2 correct; task B: 5 samples, 0 correct. Another model: one sample per task.
    for (int i = 0; i < 5; ++i) data.rows.push_back(row("A", i < 2, 0.1));
    for (int i = 0; i < 5; ++i) data.rows.push_back(row("B", false, 0.1));
    data.rows.push_back(row("A", true, 0.1, "other", "m"));
    const auto summary = summarize(data);
    REQUIRE(summary.groups.size() == 2);
    const auto& sampled = summary.groups[0];
    CHECK(sampled.tasks == 2);
    CHECK(sampled.min_samples_per_task == 5);
    REQUIRE(sampled.pass_at_k.size() == 2);  // k = 1 and k = 5 (every task has 5 samples)
    CHECK(sampled.pass_at_k.at(1) == doctest::Approx((0.4 + 0.0) / 2));
    CHECK(sampled.pass_at_k.at(5) == doctest::Approx((1.0 + 0.0) / 2));
    CHECK(sampled.pass_at_k.at(5) == doctest::Approx((pass_at_k(5, 2, 5) + pass_at_k(5, 0, 5)) / 2));
    CHECK(summary.groups[1].pass_at_k.empty());  // one sample per task: nothing beyond the pass rate
    CHECK(render_markdown(data).find("pass@1 0.200, pass@5 0.500 (2 tasks, 5 samples each)") != std::string::npos);
    const auto document = json::parse(render_json(data)).as_object();
    CHECK(document.at("summary").at("groups").at(0).at("pass_at_k").at("pass@5").as_double() == doctest::Approx(0.5));
    CHECK(render_html(data).find("pass@1 0.200, pass@5 0.500") != std::string::npos);
}

TEST_CASE("json: one document with summary and rows") {
    const auto data = hostile_data();
    const auto document = json::parse(render_json(data)).as_object();
    CHECK(document.at("format") == "e2beval-report");
    const auto& summary = document.at("summary").as_object();
    CHECK(summary.at("total").as_int64() == 2);
    CHECK(summary.at("passed").as_int64() == 1);
    CHECK(summary.at("failed").as_int64() == 1);
    CHECK(summary.at("outcomes").at("ok").at("failed").as_int64() == 1);
    CHECK(document.at("rows").as_array().size() == 2);
    CHECK(document.at("rows").at(0).at("memory_mb").as_double() == 12.5);
    CHECK(document.at("rows").at(1).at("memory_mb").is_null());
}

TEST_CASE("metrics rows: extra's detail is read, and code never run because it was unsafe counts as blocked") {
    MetricsCollection metrics;
    MetricsRecord blocked;
    blocked.task_id = "read_file";
    blocked.provider = "recorded-gpt";
    blocked.model = "echo";
    blocked.extra = json::object{{"reason", "Unsafe pattern detected in generated code: open-etc"}, {"outcome", "not_run"}, {"score", 0}};
    MetricsRecord verdict;
    verdict.task_id = "factorial";
    verdict.success = true;
    verdict.extra = json::object{
        {"reason", "Correct output: 120"},
        {"findings", json::array{json::object{{"rule", "import-os"}, {"severity", "warn"}, {"line", 1}, {"column", 1}, {"message", "os"}}}},
        {"extraction", {{"code", "def factorial(n): ..."}}},
        {"exec", {{"outcome", "ok"}, {"stdout", "120\n"}, {"stderr", ""}, {"peak_memory_bytes", 8 * 1024 * 1024}, {"wall_time_s", 0.05}}}};
    metrics.records = {blocked, verdict};
    const auto data = report_from_metrics(metrics, "dir");
    CHECK(data.rows[0].outcome == "blocked");
    CHECK(data.rows[0].score == 0.0);
    CHECK(data.rows[1].outcome == "ok");
    CHECK(data.rows[1].code == "def factorial(n): ...");
    CHECK(data.rows[1].stdout_text == "120\n");
    CHECK(data.rows[1].findings == std::vector<std::string>{"import-os (warn) at 1:1: os"});
    CHECK(data.rows[1].memory_mb == 8.0);
}

TEST_CASE("promptfoo -o JSON: tasks, providers, reasons, errors, runtimes and per-case results") {
    const auto document = json::parse(R"({
      "evalId": "eval-1", "results": {"version": 3, "timestamp": "2025-01-01T00:00:00Z", "stats": {"successes": 1},
      "results": [
        {"success": true, "score": 1, "latencyMs": 3, "promptIdx": 0, "testIdx": 0, "failureReason": 0,
         "provider": {"id": "echo", "label": "recorded-gpt"}, "testCase": {"description": "factorial(5) -> 120"},
         "response": {"output": "```python\ndef factorial(n): ...\n```"},
         "gradingResult": {"pass": true, "score": 1, "reason": "All assertions passed",
           "componentResults": [{"pass": true, "score": 1, "reason": "Correct output: 120",
              "namedScores": {"runtime_s": 0.125},
              "componentResults": [{"pass": true, "score": 1, "reason": "5: Correct output: 120"}],
              "metadata": {"code": "def factorial(n): ...", "stdout": "120\n", "peak_memory_bytes": 10485760}}]}},
        {"success": false, "score": 0, "latencyMs": 1500, "promptIdx": 0, "testIdx": 1, "failureReason": 2,
         "provider": "openai:gpt-4.1", "vars": {"function_name": "reverse_string"},
         "error": "API error: <html>", "response": null, "gradingResult": null},
        {"success": false, "score": 0, "latencyMs": 2, "promptIdx": 0, "testIdx": 2, "failureReason": 1,
         "provider": {"id": "echo"}, "testCase": {"description": "read_file"},
         "gradingResult": {"pass": false, "score": 0, "reason": "Unsafe pattern detected in generated code: open-etc"}}
      ]}})");
    const auto data = report_from_promptfoo(document, "out.json");
    REQUIRE(data.rows.size() == 3);
    const auto& good = data.rows[0];
    CHECK(good.task == "factorial(5) -> 120");
    CHECK(good.provider == "recorded-gpt");
    CHECK(good.model == "echo");
    CHECK(good.reason == "Correct output: 120");  // the assertion's own reason, not promptfoo's summary
    CHECK(good.runtime_s == 0.125);               // the sandbox's time from namedScores, not the latency
    CHECK(good.cases.size() == 1);
    CHECK(good.code == "def factorial(n): ...");
    CHECK(good.memory_mb == 10.0);
    CHECK(good.model_output.find("def factorial") != std::string::npos);
    const auto& failed_call = data.rows[1];
    CHECK(failed_call.task == "test #2 reverse_string");
    CHECK(failed_call.provider == "openai:gpt-4.1");
    CHECK(failed_call.error == "API error: <html>");
    CHECK(failed_call.outcome == "error");
    CHECK(failed_call.runtime_s == 1.5);  // no sandbox time: promptfoo's latency
    CHECK(data.rows[2].outcome == "blocked");
    CHECK(data.rows[2].provider == "echo");
    const auto summary = summarize(data);
    CHECK((summary.passed == 1 && summary.failed == 1 && summary.errors == 1));
    // The inner results object alone is accepted too.
    CHECK(report_from_promptfoo(document.at("results"), "inner").rows.size() == 3);
    CHECK_THROWS_AS(report_from_promptfoo(json::parse(R"({"results": 1})"), "x"), input_error);
}

TEST_CASE("promptfoo -o JSON with several prompts keeps each prompt's results apart") {
    const auto document = json::parse(R"({"results": {"version": 3, "results": [
        {"success": true, "promptIdx": 0, "provider": {"id": "echo"}, "testCase": {"description": "t"}},
        {"success": false, "promptIdx": 1, "provider": {"id": "echo"}, "testCase": {"description": "t"}}]}})");
    const auto summary = summarize(report_from_promptfoo(document));
    REQUIRE(summary.groups.size() == 2);
    CHECK(summary.groups[0].model == "echo (prompt 1)");
    CHECK(summary.groups[1].model == "echo (prompt 2)");
}

TEST_CASE("load_report_input recognises its input by content and explains what it cannot read") {
    TemporaryDirectory directory;
    const auto write = [&](const std::string& name, const std::string& content) {
        std::ofstream(directory.path / name, std::ios::binary) << content;
        return directory.path / name;
    };
    const std::string record = R"({"task_id": "t", "provider": "p", "model": "m", "success": true, "runtime_s": 0.5})";
    const auto metrics_dir = directory.path / "metrics";
    std::filesystem::create_directories(metrics_dir);
    std::ofstream(metrics_dir / "metrics_1.json") << record;
    std::ofstream(metrics_dir / "notes.json") << "[1]";
    auto from_dir = load_report_input(metrics_dir);
    CHECK(from_dir.kind == ReportSourceKind::metrics_directory);
    CHECK(from_dir.rows.size() == 1);
    CHECK(from_dir.skipped.size() == 1);

    CHECK(load_report_input(write("one.json", record)).kind == ReportSourceKind::metrics_file);
    CHECK(load_report_input(write("list.json", "[" + record + "," + record + "]")).rows.size() == 2);
    CHECK(load_report_input(write("lines.jsonl", record + "\n\n" + record + "\n")).rows.size() == 2);
    const auto promptfoo = load_report_input(write("out.json", R"({"results": {"results": [{"success": true, "provider": "echo"}]}})"));
    CHECK(promptfoo.kind == ReportSourceKind::promptfoo_output);
    const auto promptfoo_lines = load_report_input(
        write("out.jsonl", R"({"success": true, "testCase": {"description": "a"}})" "\n" R"({"success": false, "testCase": {"description": "b"}})"));
    CHECK(promptfoo_lines.kind == ReportSourceKind::promptfoo_output);
    CHECK(promptfoo_lines.rows.size() == 2);

    CHECK_THROWS_WITH_AS(load_report_input(write("other.json", R"({"name": "x"})")),
                         doctest::Contains("neither promptfoo's `-o` output"), input_error);
    CHECK_THROWS_WITH_AS(load_report_input(write("garbage.json", "not json at all")), doctest::Contains("is not JSON"), input_error);
    CHECK_THROWS_WITH_AS(load_report_input(write("empty.json", "\n")), doctest::Contains("is empty"), input_error);
    CHECK_THROWS_WITH_AS(load_report_input(directory.path / "missing"), doctest::Contains("run an evaluation first"), io_error);
}

TEST_CASE("histogram bins are nice, cover every value, and split passed from failed") {
    const std::vector<std::pair<double, bool>> values = {{0.09, true}, {0.1, true}, {0.12, false}, {0.166, true}, {0.175, true}, {0.0057, false}};
    const auto histogram = report_charts::make_histogram(values, 12);
    REQUIRE(histogram.edges.size() == histogram.passed.size() + 1);
    CHECK(histogram.edges.front() <= 0.0057);
    CHECK(histogram.edges.back() >= 0.175);
    std::size_t passed = 0, failed = 0;
    for (std::size_t i = 0; i < histogram.passed.size(); ++i) {
        passed += histogram.passed[i];
        failed += histogram.failed[i];
    }
    CHECK(passed == 4);
    CHECK(failed == 2);
    CHECK(histogram.passed.size() <= 13);
    const auto single = report_charts::make_histogram({{2.0, true}, {2.0, false}}, 12);
    CHECK(single.passed.size() >= 1);
    CHECK(report_charts::make_histogram({}, 12).passed.empty());
    CHECK(report_charts::histogram_chart("h", "runtime (s)", histogram).find("<rect") != std::string::npos);
}

TEST_CASE("report formats by name") {
    CHECK(report_format_from_string("md") == ReportFormat::markdown);
    CHECK(report_format_from_string("junit") == ReportFormat::junit);
    CHECK(file_extension(ReportFormat::junit) == "xml");
    CHECK_FALSE(report_format_from_string("pdf").has_value());
}

TEST_CASE("html: a result's details open full width under its row, with the flagged code line and expected vs actual") {
    ReportData data;
    auto blocked = row("read_file", false, 0.01);
    blocked.outcome = "blocked";
    blocked.reason = "Unsafe pattern detected in generated code: open-sensitive-path at line 2:12";
    blocked.code = "def read_file(path):\n    return open('/etc/passwd').read()\n";
    blocked.flagged_lines[2] = "open-sensitive-path (block) at 2:12: reads /etc";
    auto wrong = row("reverse_string", false, 0.05);
    wrong.reason = "Expected olleh, got hello";
    wrong.cases = {{false, "'hello': Expected olleh, got hello", "'hello'", "olleh", "hello"}};
    wrong.stdout_text = "hello\n";
    data.rows = {blocked, wrong, row("ok", true, 0.02)};
    const auto html = render_html(data);
    // Each result is a <tbody>: its row, then a detail row spanning every column.
    CHECK(count(html, "<tbody class=\"result ") == 3);
    CHECK(count(html, "<tr class=\"detail\" id=\"detail-") == 3);
    CHECK(count(html, "<td colspan=\"10\">") == 3);
    CHECK(html.find("<details>") == std::string::npos);
    // A short reason is shown once, in the row, not again in the details.
    CHECK(count(html, "Expected olleh, got hello") == 1);
    CHECK(count(html, "<div class=\"detail-label\">reason</div>") == 0);
    CHECK(html.find("<span class=\"line flagged\"><span class=\"ln\">2</span>    return open(&#39;/etc/passwd&#39;).read()") !=
          std::string::npos);
    CHECK(html.find("<span class=\"line\"><span class=\"ln\">1</span>def read_file(path):</span>") != std::string::npos);
    CHECK(html.find("reads /etc") != std::string::npos);
    CHECK(html.find("<th>expected</th><th>actual</th>") != std::string::npos);
    CHECK(html.find("<td class=\"case-text\">olleh</td><td class=\"case-text\">hello</td>") != std::string::npos);
    // Search and an outcome filter next to "failures only", one option per outcome with its count.
    CHECK(html.find("<input type=\"search\" id=\"search\"") != std::string::npos);
    CHECK(html.find("<option value=\"blocked\">blocked (1)</option>") != std::string::npos);
    CHECK(html.find("<option value=\"ok\">ok (2)</option>") != std::string::npos);
    CHECK(html.find("id=\"failures-only\"") != std::string::npos);
}

TEST_CASE("html: a long reason is cut in the row and shown whole in the details") {
    ReportData data;
    auto failed = row("long", false, 0.1);
    failed.reason = "Execution error: ValueError\nstderr (last lines): Traceback | line 3 | ValueError: bad";
    data.rows = {failed};
    const auto html = render_html(data);
    CHECK(count(html, "<div class=\"detail-label\">reason</div>") == 1);
    CHECK(html.find("ValueError: bad") != std::string::npos);
}

TEST_CASE("histogram bins follow the data: fast runs and one timeout do not share one bar") {
    // Seven runs between 30 and 120 ms and one that hit a 10 s timeout: with fixed-width bins (the range / 12,
    // rounded to 1 s) all seven fast runs land in the first bar.
    const std::vector<std::pair<double, bool>> values = {{0.03, true}, {0.04, true}, {0.05, true}, {0.06, true},
                                                         {0.08, false}, {0.1, true}, {0.12, true}, {10.0, false}};
    const auto histogram = report_charts::make_histogram(values, 12);
    CHECK(histogram.logarithmic);
    REQUIRE(histogram.edges.size() == histogram.passed.size() + 1);
    REQUIRE(histogram.labels.size() == histogram.edges.size());
    std::size_t total = 0, largest = 0, fast_bins = 0;
    for (std::size_t i = 0; i < histogram.passed.size(); ++i) {
        const auto in_bin = histogram.passed[i] + histogram.failed[i];
        total += in_bin;
        largest = std::max(largest, in_bin);
        if (in_bin > 0 && histogram.edges[i + 1] <= 0.2 + 1e-9) ++fast_bins;
    }
    CHECK(total == values.size());
    CHECK(largest <= 3);
    CHECK(fast_bins >= 3);
    CHECK(histogram.labels.front() == "0.02");
    CHECK(histogram.labels.back() == "20");
    CHECK(histogram.passed.size() <= 13);
    CHECK(report_charts::histogram_chart("h", "runtime (s)", histogram).find("logarithmic bins") != std::string::npos);
    // Code that never ran (0 s) gets a bin from 0.
    auto with_zero = values;
    with_zero.emplace_back(0.0, false);
    const auto zero = report_charts::make_histogram(with_zero, 12);
    CHECK(zero.edges.front() == 0.0);
    CHECK(zero.failed.front() == 1);
    // A narrow spread keeps equal-width bins.
    CHECK_FALSE(report_charts::make_histogram({{1.0, true}, {1.5, true}, {2.0, false}}, 12).logarithmic);
}

}  // namespace e2beval_test_report
