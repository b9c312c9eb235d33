// The HTML report: one self-contained page (inline CSS, inline SVG charts, a few lines of inline JS for
// sorting) that opens from disk with no network. Model output is hostile, so every text is escaped, and a
// Content-Security-Policy allows only the page's own script (by its hash) and no requests at all: even a
// missed escape could neither run a script nor load anything.
#include <openssl/evp.h>

#include <algorithm>
#include <ctime>
#include <sstream>

#include "e2beval/error.hpp"
#include "e2beval/report.hpp"
#include "report_charts.hpp"
#include "report_markup.hpp"

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
td.details { max-width: 460px; overflow-wrap: anywhere; }
td.name { white-space: nowrap; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; color: #fff; font-weight: 600; font-size: 12px; }
.badge.pass { background: #2da44e; } .badge.fail { background: #cf222e; } .badge.error { background: #bf8700; }
summary { cursor: pointer; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; white-space: pre-wrap;
      overflow-wrap: anywhere; max-height: 320px; overflow: auto; font-size: 12px; margin: 4px 0 8px; }
.detail-label { font-weight: 600; margin-top: 6px; }
ul.cases { margin: 4px 0; padding-left: 18px; } li.pass::marker { color: #2da44e; } li.fail::marker { color: #cf222e; }
table.failures-only tr.passed { display: none; }
.controls { margin: 0 0 8px; color: #57606a; }
@media (max-width: 900px) { .charts { grid-template-columns: minmax(0, 1fr); } }
)css";

// Sorting by a click (or Enter) on a header, and a "failures only" filter. Cells sort by data-sort when present.
constexpr std::string_view kScript = R"js(
(function () {
  function key(row, column, numeric) {
    var cell = row.cells[column];
    var value = cell.hasAttribute('data-sort') ? cell.getAttribute('data-sort') : cell.textContent.trim();
    return numeric ? parseFloat(value) : value.toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, column) {
      function sort() {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var numeric = th.getAttribute('data-type') === 'number';
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a, column, numeric), y = key(b, column, numeric);
          var order = x < y ? -1 : (x > y ? 1 : 0);
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.tabIndex = 0;
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (event) {
        if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); sort(); }
      });
    });
    table.setAttribute('data-sortable', 'ready');
  });
  var filter = document.getElementById('failures-only');
  var results = document.getElementById('results');
  if (filter && results) filter.addEventListener('change', function () { results.classList.toggle('failures-only', filter.checked); });
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

std::string percent(double fraction) { return fixed(100.0 * fraction, 1) + "%"; }

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

std::string row_details(const ReportRow& row) {
    std::string html = "<details><summary>" + escape(report_markup::first_line(row.error.empty() ? row.reason : row.error, 120)) +
                       "</summary>";
    html += pre_block("reason", row.reason);
    if (!row.error.empty() && row.error != row.reason) html += pre_block("error", row.error);
    if (!row.cases.empty()) {
        html += "<div class=\"detail-label\">test cases</div><ul class=\"cases\">";
        for (const auto& item : row.cases)
            html += std::string("<li class=\"") + (item.pass ? "pass" : "fail") + "\">" + (item.pass ? "PASS " : "FAIL ") +
                    escape(item.reason) + "</li>";
        html += "</ul>";
    }
    if (!row.findings.empty()) {
        html += "<div class=\"detail-label\">scanner findings</div><ul>";
        for (const auto& finding : row.findings) html += "<li>" + escape(finding) + "</li>";
        html += "</ul>";
    }
    html += pre_block("code", row.code);
    html += pre_block("stdout", row.stdout_text);
    html += pre_block("stderr", row.stderr_text);
    html += pre_block("model output", row.model_output);
    return html + "</details>";
}

std::string charts_section(const ReportData& data, const ReportSummary& summary) {
    using namespace report_charts;
    std::ostringstream html;
    html << "<h2>Charts</h2>\n<div class=\"charts\">\n";

    std::vector<Bar> rate_bars;
    for (const auto& group : summary.groups) {
        const double total = static_cast<double>(std::max<std::size_t>(group.total, 1));
        const auto failed = group.total - group.passed - group.errors;
        std::string annotation = percent(group.pass_rate()) + " (" + std::to_string(group.passed) + "/" + std::to_string(group.total) + ")";
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

    std::vector<std::pair<double, bool>> runtimes, memories;
    for (const auto& row : data.rows) {
        runtimes.emplace_back(row.runtime_s, row.success);
        if (row.memory_mb) memories.emplace_back(*row.memory_mb, row.success);
    }
    html << "<figure id=\"chart-runtime\"><h3>Runtime distribution</h3>\n"
         << histogram_chart("runtime histogram", "runtime (s)", make_histogram(runtimes, 12))
         << legend({{kPassColor, "passed"}, {kFailColor, "failed"}}) << "</figure>\n";
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
             << numeric_cell(group.pass_rate(), percent(group.pass_rate()));
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

std::string results_section(const ReportData& data) {
    std::ostringstream html;
    html << "<h2>Results</h2>\n<div class=\"controls\"><label><input type=\"checkbox\" id=\"failures-only\"> show failures "
            "only</label> · click a column header to sort, a reason to see code, findings and logs</div>\n";
    html << "<table class=\"sortable\" id=\"results\"><thead><tr><th data-type=\"number\">#</th><th>task</th><th>provider</th>"
            "<th>model</th><th>result</th><th data-type=\"number\">score</th><th>outcome</th>"
            "<th data-type=\"number\">runtime (s)</th><th data-type=\"number\">memory (MB)</th><th>reason and details</th>"
            "</tr></thead><tbody>\n";
    std::size_t index = 0;
    for (const auto& row : data.rows) {
        ++index;
        const std::string result = row.success ? "pass" : (row.error.empty() ? "fail" : "error");
        html << "<tr class=\"" << (row.success ? "passed" : "failed") << "\">"
             << numeric_cell(static_cast<double>(index), std::to_string(index)) << text_cell(row.task) << name_cell(row.provider)
             << name_cell(row.model) << "<td data-sort=\"" << (row.success ? 2 : row.error.empty() ? 0 : 1)
             << "\"><span class=\"badge " << result << "\">" << (row.success ? "PASS" : row.error.empty() ? "FAIL" : "ERROR")
             << "</span></td>"
             << numeric_cell(row.score.value_or(-1), row.score ? fixed(*row.score, 2) : "–") << text_cell(row.outcome)
             << numeric_cell(row.runtime_s, fixed(row.runtime_s, 3))
             << numeric_cell(row.memory_mb.value_or(-1), row.memory_mb ? fixed(*row.memory_mb, 1) : "–")
             << "<td class=\"details\">" << row_details(row) << "</td></tr>\n";
    }
    html << "</tbody></table>\n";
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
         << "<style>" << kStyle << "</style>\n</head>\n<body>\n";
    html << "<h1>e2beval report</h1>\n<p class=\"source\">" << escape(source_description(data)) << " <code>"
         << escape(data.source) << "</code> · generated " << escape(utc_now()) << "</p>\n";

    html << "<section class=\"summary\" id=\"summary\">" << report_charts::donut(summary.passed, summary.failed, summary.errors)
         << "<div class=\"cards\">" << card("", percent(summary.pass_rate()), "pass rate")
         << card("pass", std::to_string(summary.passed), "passed") << card("fail", std::to_string(summary.failed), "failed")
         << card("error", std::to_string(summary.errors), "errors") << card("", std::to_string(summary.total), "tests")
         << card("", fixed(summary.runtime_total_s, 2) + " s", "total runtime");
    if (summary.memory_max_mb) html << card("", fixed(*summary.memory_max_mb, 1) + " MB", "peak memory (max)");
    html << card("", std::to_string(summary.groups.size()), "providers / models");
    if (!data.skipped.empty()) html << card("error", std::to_string(data.skipped.size()), "inputs skipped");
    html << "</div></section>\n";

    html << charts_section(data, summary);
    html << groups_section(summary);
    html << results_section(data);
    if (!data.skipped.empty()) {
        html << "<h2>Skipped inputs</h2>\n<ul>";
        for (const auto& skipped : data.skipped) html << "<li>" << escape(skipped) << "</li>";
        html << "</ul>\n";
    }
    html << "<script>" << kScript << "</script>\n</body>\n</html>\n";
    return html.str();
}

}  // namespace e2beval
