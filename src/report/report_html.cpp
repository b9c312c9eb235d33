// The HTML report: one self-contained page (inline CSS, inline SVG charts, a few lines of inline JS for
// sorting) that opens from disk with no network. Model output is hostile, so every text is escaped, and a
// Content-Security-Policy allows only the page's own script (by its hash) and no requests at all: even a
// missed escape could neither run a script nor load anything.
#include <openssl/evp.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/core/types.hpp"
#include "e2beval/report/report.hpp"
#include "report/report_charts.hpp"
#include "report/report_images.hpp"
#include "report/report_markup.hpp"

namespace e2beval {

namespace {

using report_markup::escape;
using report_markup::fixed;

constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #24292f; background: #fff; margin: 24px auto;
       max-width: 1240px; padding: 0 16px; font-size: 14px; line-height: 1.45; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 10px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 0 0 6px; color: #57606a; font-weight: 600; }
.source { color: #57606a; margin: 0 0 16px; overflow-wrap: anywhere; }
.summary { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
.cards { display: flex; gap: 10px; flex-wrap: wrap; flex: 1 1 600px; }
.card { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; min-width: 84px; }
.card .value { font-size: 22px; font-weight: 600; } .card .label { color: #57606a; font-size: 12px; }
.card.pass .value { color: #1a7f37; } .card.fail .value { color: #cf222e; } .card.error .value { color: #9a6700; }
.charts { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; }
figure { margin: 0; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; }
svg.chart { width: 100%; height: auto; display: block; }
.legend { color: #57606a; font-size: 12px; margin-top: 4px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 10px; border-radius: 2px; vertical-align: -1px; }
.note { color: #57606a; padding: 24px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #d0d7de; padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \25B2"; } th[aria-sort="descending"]::after { content: " \25BC"; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.reason { overflow-wrap: anywhere; min-width: 240px; }
td.name { white-space: nowrap; }
tbody.result > tr.main { cursor: pointer; } tbody.result > tr.main:hover { background: #f6f8fa; }
tbody.result.open > tr.main { background: #eef4fb; }
tr.detail > td { background: #fbfcfd; padding: 10px 16px 14px; border-bottom: 2px solid #d0d7de; }
button.toggle { font: inherit; font-size: 12px; color: #0969da; background: none; border: 1px solid #d0d7de; border-radius: 4px;
                padding: 0 6px; margin-left: 6px; cursor: pointer; white-space: nowrap; }
.png-results img { max-width: 480px; max-height: 360px; margin: 4px 8px 4px 0; border: 1px solid #ddd; background: #fff; }
.logs { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; }
table.cases { width: auto; max-width: 100%; margin: 4px 0 8px; } table.cases td, table.cases th { font-size: 12px; cursor: default; }
table.cases td.case-text { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 420px; }
pre.code { padding: 8px 0; } pre.code .line { display: block; padding: 0 8px 0 0; }
pre.code .ln { display: inline-block; width: 3.5em; padding-right: 8px; text-align: right; color: #8c959f; user-select: none; }
pre.code .line.flagged { background: #ffebe9; box-shadow: inset 3px 0 0 #cf222e; }
pre.code .flag-note { display: block; margin-left: 4.2em; color: #a40e26; font-family: system-ui, sans-serif; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; color: #fff; font-weight: 600; font-size: 12px; }
.badge.pass { background: #2da44e; } .badge.fail { background: #cf222e; } .badge.error { background: #bf8700; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; white-space: pre-wrap;
      overflow-wrap: anywhere; max-height: 320px; overflow: auto; font-size: 12px; margin: 4px 0 8px; }
.detail-label { font-weight: 600; margin-top: 6px; }
ul.cases { margin: 4px 0; padding-left: 18px; } li.pass::marker { color: #2da44e; } li.fail::marker { color: #cf222e; }
tbody[hidden] { display: none; }
.controls { margin: 0 0 8px; color: #57606a; display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; }
.controls input[type=search] { width: 260px; font: inherit; padding: 2px 6px; } .controls select { font: inherit; }
@media (max-width: 900px) { .charts, .logs { grid-template-columns: minmax(0, 1fr); } }
)css";

// Sorting by a click (or Enter) on a header; in the results table each result is a <tbody> (its row and its
// detail row) and moves as one. Opening a result's details, and filtering by text, outcome and failures.
// Cells sort by data-sort when present.
constexpr std::string_view kScript = R"js(
(function () {
  var each = function (list, f) { Array.prototype.forEach.call(list, f); };
  function key(row, column, numeric) {
    var cell = row.cells[column];
    var value = cell.hasAttribute('data-sort') ? cell.getAttribute('data-sort') : cell.textContent.trim();
    return numeric ? parseFloat(value) : value.toLowerCase();
  }
  each(document.querySelectorAll('table.sortable'), function (table) {
    var headers = table.tHead.rows[0].cells;
    var grouped = table.classList.contains('grouped');
    each(headers, function (th, column) {
      function sort() {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        each(headers, function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var numeric = th.getAttribute('data-type') === 'number';
        var parent = grouped ? table : table.tBodies[0];
        var items = Array.prototype.slice.call(grouped ? table.tBodies : table.tBodies[0].rows);
        items.sort(function (a, b) {
          var x = key(grouped ? a.rows[0] : a, column, numeric), y = key(grouped ? b.rows[0] : b, column, numeric);
          var order = x < y ? -1 : (x > y ? 1 : 0);
          return ascending ? order : -order;
        });
        items.forEach(function (item) { parent.appendChild(item); });
      }
      th.tabIndex = 0;
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (event) {
        if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); sort(); }
      });
    });
    table.setAttribute('data-sortable', 'ready');
  });
  var results = document.getElementById('results');
  if (!results) return;
  each(results.tBodies, function (body) {
    var button = body.querySelector('button.toggle'), detail = body.rows[1];
    function toggle() {
      var open = detail.hidden;
      detail.hidden = !open;
      body.classList.toggle('open', open);
      button.setAttribute('aria-expanded', open ? 'true' : 'false');
      button.textContent = open ? 'hide' : 'details';
    }
    body.rows[0].addEventListener('click', function (event) {
      if (event.target.closest('button') !== button && window.getSelection().toString()) return;  // selecting text
      toggle();
    });
    button.addEventListener('click', function (event) { event.stopPropagation(); toggle(); });
  });
  var search = document.getElementById('search'), outcome = document.getElementById('outcome-filter');
  var failures = document.getElementById('failures-only'), count = document.getElementById('shown-count');
  function filter() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    each(results.tBodies, function (body) {
      var text = body.getAttribute('data-text') || body.textContent.toLowerCase();
      body.setAttribute('data-text', text);
      var visible = (!failures.checked || body.classList.contains('failed')) &&
                    (!outcome.value || body.getAttribute('data-outcome') === outcome.value) &&
                    words.every(function (word) { return text.indexOf(word) >= 0; });
      body.hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + ' of ' + results.tBodies.length + ' shown';
  }
  search.addEventListener('input', filter);
  outcome.addEventListener('change', filter);
  failures.addEventListener('change', filter);
  results.setAttribute('data-filters', 'ready');
})();
)js";

// The CSP source for the inline script: 'sha256-<base64 of its SHA-256>'.
std::string script_hash_source(std::string_view script) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    if (EVP_Digest(script.data(), script.size(), digest, &digest_length, EVP_sha256(), nullptr) != 1)
        throw error(errc::io_error, "EVP_Digest(sha256) failed while hashing the report's script");
    unsigned char encoded[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
    const int encoded_length = EVP_EncodeBlock(encoded, digest, static_cast<int>(digest_length));
    return "'sha256-" + std::string(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(encoded_length)) + "'";
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm parts{};
    gmtime_r(&now, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts);
    return text;
}

std::string percent_text(double fraction) { return fixed(100.0 * fraction, 1) + "%"; }

std::string card(std::string_view css_class, const std::string& value, std::string_view label) {
    return "<div class=\"card " + std::string(css_class) + "\"><div class=\"value\">" + escape(value) +
           "</div><div class=\"label\">" + escape(label) + "</div></div>";
}

std::string legend(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
    std::string html = "<div class=\"legend\">";
    for (const auto& [color, label] : entries) html += "<i style=\"background:" + std::string(color) + "\"></i>" + escape(label);
    return html + "</div>";
}

std::string source_description(const ReportData& data) {
    switch (data.kind) {
        case ReportSourceKind::metrics_directory: return "metrics directory";
        case ReportSourceKind::metrics_file: return "metrics file";
        case ReportSourceKind::promptfoo_output: return "promptfoo output";
    }
    return "input";
}

std::string pass_at_text(const GroupSummary& group) {
    std::string text;
    for (const auto& [k, value] : group.pass_at_k) text += (text.empty() ? "" : ", ") + ("pass@" + std::to_string(k)) + " " + fixed(value, 3);
    return text;
}

std::string numeric_cell(double sort_value, const std::string& shown) {
    return "<td class=\"number\" data-sort=\"" + fixed(sort_value, 6) + "\">" + escape(shown) + "</td>";
}

std::string text_cell(const std::string& text) { return "<td>" + escape(text) + "</td>"; }

// Provider and model names stay on one line ("recorded-gpt" would otherwise break at its hyphen).
std::string name_cell(const std::string& text) { return "<td class=\"name\">" + escape(text) + "</td>"; }

std::string pre_block(std::string_view label, const std::string& text) {
    if (text.empty()) return {};
    return "<div class=\"detail-label\">" + escape(label) + "</div><pre>" + escape(text) + "</pre>";
}

// The code with line numbers; the lines the scanner flagged are marked, with what it found there.
std::string code_block(const ReportRow& row) {
    if (row.code.empty()) return {};
    std::string html = "<div class=\"detail-label\">code";
    if (!row.flagged_lines.empty()) html += " (lines the scanner flagged are marked)";
    html += "</div><pre class=\"code\">";
    std::size_t number = 0, start = 0;
    const std::string_view code = row.code;
    while (start <= code.size()) {
        auto end = code.find('\n', start);
        if (end == std::string_view::npos) end = code.size();
        if (end == code.size() && start == end && number > 0) break;  // no empty line after a final newline
        ++number;
        const auto flag = row.flagged_lines.find(number);
        html += std::string("<span class=\"line") + (flag != row.flagged_lines.end() ? " flagged" : "") + "\"><span class=\"ln\">" +
                std::to_string(number) + "</span>" + escape(code.substr(start, end - start));
        if (flag != row.flagged_lines.end()) html += "<span class=\"flag-note\">&#9650; " + escape(flag->second) + "</span>";
        html += "</span>";
        start = end + 1;
    }
    return html + "</pre>";
}

std::string cases_block(const ReportRow& row) {
    if (row.cases.empty()) return {};
    const bool compared = std::any_of(row.cases.begin(), row.cases.end(),
                                      [](const ReportCase& item) { return !item.expected.empty() || !item.actual.empty(); });
    std::string html = "<div class=\"detail-label\">test cases</div>";
    if (!compared) {
        html += "<ul class=\"cases\">";
        for (const auto& item : row.cases)
            html += std::string("<li class=\"") + (item.pass ? "pass" : "fail") + "\">" + (item.pass ? "PASS " : "FAIL ") +
                    escape(item.reason) + "</li>";
        return html + "</ul>";
    }
    // Expected versus actual, side by side: what a user compares first when a case fails.
    html += "<table class=\"cases\"><thead><tr><th>case</th><th>input</th><th>expected</th><th>actual</th></tr></thead><tbody>";
    for (const auto& item : row.cases)
        html += std::string("<tr><td><span class=\"badge ") + (item.pass ? "pass\">PASS" : "fail\">FAIL") + "</span></td>" +
                "<td class=\"case-text\">" + escape(item.input) + "</td><td class=\"case-text\">" + escape(item.expected) +
                "</td><td class=\"case-text\">" + escape(item.actual.empty() && !item.pass ? item.reason : item.actual) + "</td></tr>";
    return html + "</tbody></table>";
}

// The text shown in the row itself; the details repeat the reason only when this cut it.
constexpr std::size_t kRowReasonChars = 300;
const std::string& row_reason(const ReportRow& row) { return row.error.empty() ? row.reason : row.error; }

// The row's reason cell: its first line; when that cuts it, the whole reason is its tooltip (title) as well as in
// the details below, so it can be read whole without the script too.
std::string reason_cell(const ReportRow& row) {
    const auto& full = row_reason(row);
    const auto shown = report_markup::first_line(full, kRowReasonChars);
    return "<td class=\"reason\"" + (shown == full ? std::string() : " title=\"" + report_markup::escape_attribute(full) + "\"") + ">" +
           escape(shown);
}

std::string row_details(const ReportRow& row) {
    std::string html;
    const auto& shown = row_reason(row);
    if (report_markup::first_line(shown, kRowReasonChars) != shown) html += pre_block(row.error.empty() ? "reason" : "error", shown);
    if (!row.error.empty() && row.reason != row.error) html += pre_block("reason", row.reason);
    html += cases_block(row);
    // Findings marked on their line of the code are not listed again; the others (no line, no code) are.
    std::vector<std::string> unmarked;
    for (const auto& finding : row.findings) {
        const bool marked = !row.code.empty() && std::any_of(row.flagged_lines.begin(), row.flagged_lines.end(), [&](const auto& line) {
            return line.second.find(finding) != std::string::npos;
        });
        if (!marked) unmarked.push_back(finding);
    }
    if (!unmarked.empty()) {
        html += "<div class=\"detail-label\">scanner findings</div><ul>";
        for (const auto& finding : unmarked) html += "<li>" + escape(finding) + "</li>";
        html += "</ul>";
    }
    html += code_block(row);
    if (!row.stdout_text.empty() || !row.stderr_text.empty())
        html += "<div class=\"logs\"><div>" + (row.stdout_text.empty() ? "<div class=\"detail-label\">stdout</div><pre>(empty)</pre>" : pre_block("stdout", row.stdout_text)) +
                "</div><div>" + (row.stderr_text.empty() ? "<div class=\"detail-label\">stderr</div><pre>(empty)</pre>" : pre_block("stderr", row.stderr_text)) +
                "</div></div>";
    html += report_images::png_results_block(row);
    html += pre_block("model output", row.model_output);
    if (html.empty()) html = "<div class=\"note\">The source recorded nothing more about this result.</div>";
    return html;
}

// Whether a row's code ran in a sandbox: its outcome is one an execution ends with (ok, exit_nonzero, timeout, the
// limits, seccomp). Rows from other graders than e2beval ("unknown") are shown with the time their source gives.
bool ran(const ReportRow& row) {
    if (row.outcome == "unknown") return true;
    const auto outcome = outcome_from_string(row.outcome);
    return outcome && *outcome != Outcome::sandbox_error && *outcome != Outcome::cancelled;
}

std::string charts_section(const ReportData& data, const ReportSummary& summary) {
    using namespace report_charts;
    std::ostringstream html;
    html << "<h2>Charts</h2>\n<div class=\"charts\">\n";

    std::vector<Bar> rate_bars;
    for (const auto& group : summary.groups) {
        const double total = static_cast<double>(std::max<std::size_t>(group.total, 1));
        const auto failed = group.total - group.passed - group.errors;
        std::string annotation = percent_text(group.pass_rate()) + " (" + std::to_string(group.passed) + "/" + std::to_string(group.total) + ")";
        rate_bars.push_back({group.provider + " / " + group.model,
                             {{static_cast<double>(group.passed) / total, kPassColor, std::to_string(group.passed) + " passed"},
                              {static_cast<double>(failed) / total, kFailColor, std::to_string(failed) + " failed"},
                              {static_cast<double>(group.errors) / total, kErrorColor, std::to_string(group.errors) + " errors"}},
                             annotation});
    }
    html << "<figure id=\"chart-pass-rate\"><h3>Pass rate per provider / model</h3>\n"
         << horizontal_bars("pass rate per provider and model", rate_bars, 1.0, true)
         << legend({{kPassColor, "passed"}, {kFailColor, "failed"}, {kErrorColor, "error"}}) << "</figure>\n";

    std::vector<std::pair<std::string, OutcomeCount>> outcomes(summary.outcomes.begin(), summary.outcomes.end());
    std::stable_sort(outcomes.begin(), outcomes.end(), [](const auto& a, const auto& b) {
        return a.second.passed + a.second.failed > b.second.passed + b.second.failed;
    });
    std::vector<Bar> outcome_bars;
    double largest = 1;
    for (const auto& [outcome, count] : outcomes) {
        const auto total = count.passed + count.failed;
        largest = std::max(largest, static_cast<double>(total));
        outcome_bars.push_back({outcome,
                                {{static_cast<double>(count.passed), kPassColor, std::to_string(count.passed) + " passed"},
                                 {static_cast<double>(count.failed), kFailColor, std::to_string(count.failed) + " failed"}},
                                std::to_string(total) + " (" + std::to_string(count.passed) + " passed)"});
    }
    html << "<figure id=\"chart-outcomes\"><h3>Outcomes (ok, exit_nonzero, timeout, blocked by the scanner, …)</h3>\n"
         << horizontal_bars("outcome breakdown", outcome_bars, largest, false)
         << legend({{kPassColor, "passed"}, {kFailColor, "failed"}}) << "</figure>\n";

    // A test whose code never ran (blocked, no code, an invalid test, an error) has no runtime: plotted as 0 s it
    // would read as a very fast run. Those are counted below the chart instead, by why they did not run.
    std::vector<std::pair<double, bool>> runtimes, memories;
    std::map<std::string, std::size_t> not_run;
    for (const auto& row : data.rows) {
        if (ran(row)) runtimes.emplace_back(row.runtime_s, row.success);
        else ++not_run[row.outcome.empty() ? "unknown" : row.outcome];
        if (row.memory_mb) memories.emplace_back(*row.memory_mb, row.success);
    }
    html << "<figure id=\"chart-runtime\"><h3>Runtime distribution</h3>\n";
    if (runtimes.empty())
        html << "<div class=\"note\">No test's code ran, so there is no runtime to show.</div>";
    else
        html << histogram_chart("runtime histogram", "runtime (s)", make_histogram(runtimes, 12))
             << legend({{kPassColor, "passed"}, {kFailColor, "failed"}});
    if (!not_run.empty()) {
        std::size_t total = 0;
        std::string reasons;
        for (const auto& [outcome, count] : not_run) {
            total += count;
            reasons += (reasons.empty() ? "" : ", ") + outcome + " " + std::to_string(count);
        }
        html << "<div class=\"legend\" id=\"runtime-not-run\">" << total << (total == 1 ? " test is" : " tests are")
             << " not plotted: " << (total == 1 ? "its" : "their") << " code never ran (" << escape(reasons) << ")</div>";
    }
    html << "</figure>\n";
    html << "<figure id=\"chart-memory\"><h3>Peak memory distribution</h3>\n";
    if (memories.empty())
        html << "<div class=\"note\">This source recorded no peak memory (the local sandbox measures it with cgroups; "
                "promptfoo's output has it when the assertion returns it in metadata).</div>";
    else
        html << histogram_chart("peak memory histogram", "peak memory (MB)", make_histogram(memories, 12))
             << legend({{kPassColor, "passed"}, {kFailColor, "failed"}});
    html << "</figure>\n</div>\n";
    return html.str();
}

std::string groups_section(const ReportSummary& summary) {
    bool any_pass_at = false, any_memory = false;
    for (const auto& group : summary.groups) {
        any_pass_at = any_pass_at || !group.pass_at_k.empty();
        any_memory = any_memory || group.memory_max_mb.has_value();
    }
    std::ostringstream html;
    html << "<h2>By provider / model</h2>\n<table class=\"sortable\" id=\"groups\"><thead><tr><th>provider</th><th>model</th>"
            "<th data-type=\"number\">tests</th><th data-type=\"number\">passed</th><th data-type=\"number\">failed</th>"
            "<th data-type=\"number\">errors</th><th data-type=\"number\">pass rate</th>";
    if (any_pass_at) html << "<th data-type=\"number\">pass@k (tasks × samples)</th>";
    html << "<th data-type=\"number\">runtime total (s)</th><th data-type=\"number\">runtime max (s)</th>";
    if (any_memory) html << "<th data-type=\"number\">peak memory (MB)</th>";
    html << "</tr></thead><tbody>\n";
    for (const auto& group : summary.groups) {
        const auto failed = group.total - group.passed - group.errors;
        html << "<tr>" << name_cell(group.provider) << name_cell(group.model)
             << numeric_cell(static_cast<double>(group.total), std::to_string(group.total))
             << numeric_cell(static_cast<double>(group.passed), std::to_string(group.passed))
             << numeric_cell(static_cast<double>(failed), std::to_string(failed))
             << numeric_cell(static_cast<double>(group.errors), std::to_string(group.errors))
             << numeric_cell(group.pass_rate(), percent_text(group.pass_rate()));
        if (any_pass_at) {
            const double first = group.pass_at_k.empty() ? group.pass_rate() : group.pass_at_k.begin()->second;
            std::string shown = group.pass_at_k.empty() ? "–" : pass_at_text(group) + " (" + std::to_string(group.tasks) + " × " +
                                                                    std::to_string(group.min_samples_per_task) +
                                                                    (group.min_samples_per_task == group.max_samples_per_task ? "" : "+") + ")";
            html << "<td class=\"number\" data-sort=\"" << fixed(first, 6) << "\">" << escape(shown) << "</td>";
        }
        html << numeric_cell(group.runtime_total_s, fixed(group.runtime_total_s, 3))
             << numeric_cell(group.runtime_max_s, fixed(group.runtime_max_s, 3));
        if (any_memory)
            html << numeric_cell(group.memory_max_mb.value_or(-1), group.memory_max_mb ? fixed(*group.memory_max_mb, 1) : "–");
        html << "</tr>\n";
    }
    html << "</tbody></table>\n";
    if (any_pass_at)
        html << "<p class=\"source\">pass@k: the unbiased estimator of Chen et al. (2021), averaged over tasks; rows with the "
                "same task are its samples, and a k is shown when every task has at least k samples.</p>\n";
    return html.str();
}

std::string results_section(const ReportData& data, const ReportSummary& summary) {
    constexpr int kColumns = 10;
    std::ostringstream html;
    html << "<h2>Results</h2>\n<div class=\"controls\"><label>search <input type=\"search\" id=\"search\" "
            "placeholder=\"task, reason, code, output…\"></label><label>outcome <select id=\"outcome-filter\">"
            "<option value=\"\">all outcomes</option>";
    for (const auto& [outcome, count] : summary.outcomes)
        html << "<option value=\"" << escape(outcome) << "\">" << escape(outcome) << " (" << count.passed + count.failed << ")</option>";
    html << "</select></label><label><input type=\"checkbox\" id=\"failures-only\"> show failures only</label>"
         << "<span id=\"shown-count\">" << data.rows.size() << " of " << data.rows.size() << " shown</span>"
         << "<span>click a header to sort, a row to open its details</span></div>\n";
    html << "<table class=\"sortable grouped\" id=\"results\"><thead><tr><th data-type=\"number\">#</th><th>task</th><th>provider</th>"
            "<th>model</th><th>result</th><th data-type=\"number\">score</th><th>outcome</th>"
            "<th data-type=\"number\">runtime (s)</th><th data-type=\"number\">memory (MB)</th><th>reason</th>"
            "</tr></thead>\n";
    std::size_t index = 0;
    for (const auto& row : data.rows) {
        ++index;
        const std::string result = row.success ? "pass" : (row.error.empty() ? "fail" : "error");
        const std::string detail_id = "detail-" + std::to_string(index);
        // One <tbody> per result: its row and, full width below it, its details; sorting moves both together.
        html << "<tbody class=\"result " << (row.success ? "passed" : "failed") << "\" data-outcome=\""
             << escape(row.outcome.empty() ? "unknown" : row.outcome) << "\"><tr class=\"main\">"
             << numeric_cell(static_cast<double>(index), std::to_string(index)) << text_cell(row.task) << name_cell(row.provider)
             << name_cell(row.model) << "<td data-sort=\"" << (row.success ? 2 : row.error.empty() ? 0 : 1)
             << "\"><span class=\"badge " << result << "\">" << (row.success ? "PASS" : row.error.empty() ? "FAIL" : "ERROR")
             << "</span></td>"
             << numeric_cell(row.score.value_or(-1), row.score ? fixed(*row.score, 2) : "–") << text_cell(row.outcome)
             << numeric_cell(row.runtime_s, fixed(row.runtime_s, 3))
             << numeric_cell(row.memory_mb.value_or(-1), row.memory_mb ? fixed(*row.memory_mb, 1) : "–")
             << reason_cell(row)
             << "<button type=\"button\" class=\"toggle\" aria-expanded=\"false\" aria-controls=\"" << detail_id
             << "\">details</button></td></tr>\n<tr class=\"detail\" id=\"" << detail_id << "\" hidden><td colspan=\"" << kColumns
             << "\">" << row_details(row) << "</td></tr></tbody>\n";
    }
    html << "</table>\n";
    if (data.rows.empty()) html << "<p class=\"note\">No results in this source.</p>\n";
    return html.str();
}

}  // namespace

std::string render_html(const ReportData& data) {
    const auto summary = summarize(data);
    std::ostringstream html;
    html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "img-src data:; script-src "
         << script_hash_source(kScript) << "\">\n"
         << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         << "<meta name=\"generator\" content=\"e2beval report\">\n"
         << "<title>e2beval report: " << summary.passed << " of " << summary.total << " passed</title>\n"
         << "<style>" << kStyle << "</style>\n"
         // Where scripts do not run (a viewer that strips them, a mail client), every result's details are shown
         // open: nothing the report holds is out of reach.
         << "<noscript><style>tr.detail[hidden] { display: table-row; } button.toggle { display: none; }</style></noscript>\n"
         << "</head>\n<body>\n";
    html << "<h1>e2beval report</h1>\n<p class=\"source\">" << escape(source_description(data)) << " <code>"
         << escape(data.source) << "</code> · generated " << escape(utc_now()) << "</p>\n";
    if (const auto runs = describe_runs(data); !runs.empty())
        html << "<p class=\"source\" id=\"runs\">" << escape(runs) << "</p>\n";

    html << "<section class=\"summary\" id=\"summary\">" << report_charts::donut(summary.passed, summary.failed, summary.errors)
         << "<div class=\"cards\">" << card("", percent_text(summary.pass_rate()), "pass rate")
         << card("pass", std::to_string(summary.passed), "passed") << card("fail", std::to_string(summary.failed), "failed")
         << card("error", std::to_string(summary.errors), "errors") << card("", std::to_string(summary.total), "tests")
         << card("", fixed(summary.runtime_total_s, 2) + " s", "total runtime");
    if (summary.memory_max_mb) html << card("", fixed(*summary.memory_max_mb, 1) + " MB", "peak memory (max)");
    html << card("", std::to_string(summary.groups.size()), "providers / models");
    if (!data.skipped.empty()) html << card("error", std::to_string(data.skipped.size()), "inputs skipped");
    html << "</div></section>\n";

    html << charts_section(data, summary);
    html << groups_section(summary);
    html << results_section(data, summary);
    if (!data.skipped.empty()) {
        html << "<h2>Skipped inputs</h2>\n<ul>";
        for (const auto& skipped : data.skipped) html << "<li>" << escape(skipped) << "</li>";
        html << "</ul>\n";
    }
    html << "<script>" << kScript << "</script>\n</body>\n</html>\n";
    return html.str();
}

}  // namespace e2beval
