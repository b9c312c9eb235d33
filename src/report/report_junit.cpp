// JUnit XML report for CI (GitLab, Jenkins, GitHub test reporters): one <testsuite> per provider/model,
// one <testcase> per evaluated row. Every text passes report_markup::escape, so model output cannot break
// the document, and characters XML 1.0 forbids (control characters) are replaced by visible stand-ins.
#include <ctime>
#include <map>
#include <sstream>

#include "e2beval/report/report.hpp"
#include "report/report_markup.hpp"

namespace e2beval {

namespace {

using report_markup::escape;
using report_markup::escape_attribute;
using report_markup::fixed;

std::string iso8601_utc(double epoch_seconds) {
    const auto seconds = static_cast<std::time_t>(epoch_seconds);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
    return text;
}

void property(std::ostringstream& out, std::string_view indent, std::string_view name, const std::string& value) {
    out << indent << "<property name=\"" << escape_attribute(name) << "\" value=\"" << escape_attribute(value) << "\"/>\n";
}

// The body of a <failure>/<error>: everything a reader of a CI log needs to see why, as plain text.
std::string failure_detail(const ReportRow& row) {
    std::ostringstream text;
    text << (row.error.empty() ? row.reason : row.error) << "\n";
    if (!row.error.empty() && !row.reason.empty() && row.reason != row.error) text << row.reason << "\n";
    text << "outcome: " << row.outcome << "\n";
    for (const auto& item : row.cases) text << (item.pass ? "  PASS " : "  FAIL ") << item.reason << "\n";
    if (!row.findings.empty()) {
        text << "findings:\n";
        for (const auto& finding : row.findings) text << "  " << finding << "\n";
    }
    if (!row.code.empty()) text << "code:\n" << row.code << (row.code.ends_with('\n') ? "" : "\n");
    return text.str();
}

}  // namespace

std::string render_junit(const ReportData& data) {
    const auto summary = summarize(data);
    std::map<std::pair<std::string, std::string>, std::vector<const ReportRow*>> by_group;
    for (const auto& row : data.rows) by_group[{row.provider, row.model}].push_back(&row);

    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"e2beval\" tests=\"" << summary.total << "\" failures=\"" << summary.failed << "\" errors=\""
        << summary.errors << "\" time=\"" << fixed(summary.runtime_total_s, 3) << "\">\n";
    std::size_t suite_id = 0;
    for (const auto& group : summary.groups) {  // in order of first appearance
        const auto& rows = by_group[{group.provider, group.model}];
        const auto failures = group.total - group.passed - group.errors;
        out << "  <testsuite id=\"" << suite_id++ << "\" name=\"" << escape_attribute(group.provider + " / " + group.model)
            << "\" tests=\"" << group.total << "\" failures=\"" << failures << "\" errors=\"" << group.errors
            << "\" skipped=\"0\" time=\"" << fixed(group.runtime_total_s, 3) << "\"";
        if (!rows.empty() && rows.front()->timestamp > 0) out << " timestamp=\"" << iso8601_utc(rows.front()->timestamp) << "\"";
        out << ">\n    <properties>\n";
        property(out, "      ", "provider", group.provider);
        property(out, "      ", "model", group.model);
        property(out, "      ", "pass_rate", fixed(group.pass_rate(), 4));
        if (group.memory_max_mb) property(out, "      ", "peak_memory_mb", fixed(*group.memory_max_mb, 3));
        for (const auto& [k, value] : group.pass_at_k) property(out, "      ", "pass@" + std::to_string(k), fixed(value, 4));
        property(out, "      ", "source", data.source);
        out << "    </properties>\n";

        // Samples of one task share a name; a sample number keeps each test case distinct in CI views.
        std::map<std::string, std::size_t> seen;
        std::map<std::string, std::size_t> count;
        for (const auto* row : rows) ++count[row->task];
        for (const auto* row : rows) {
            const auto sample = ++seen[row->task];
            const std::string name = count[row->task] > 1 ? row->task + " [sample " + std::to_string(sample) + "]" : row->task;
            out << "    <testcase name=\"" << escape_attribute(name) << "\" classname=\""
                << escape_attribute(group.provider + "." + group.model) << "\" time=\"" << fixed(row->runtime_s, 3) << "\">\n";
            out << "      <properties>\n";
            property(out, "        ", "runtime_s", fixed(row->runtime_s, 6));
            if (row->memory_mb) property(out, "        ", "memory_mb", fixed(*row->memory_mb, 3));
            property(out, "        ", "outcome", row->outcome);
            if (row->score) property(out, "        ", "score", fixed(*row->score, 4));
            out << "      </properties>\n";
            if (!row->success) {
                const char* element = row->error.empty() ? "failure" : "error";
                const std::string message = row->error.empty() ? row->reason : row->error;
                out << "      <" << element << " message=\"" << escape_attribute(message) << "\" type=\""
                    << escape_attribute(row->outcome) << "\">" << escape(failure_detail(*row)) << "</" << element << ">\n";
            }
            if (!row->stdout_text.empty()) out << "      <system-out>" << escape(row->stdout_text) << "</system-out>\n";
            if (!row->stderr_text.empty()) out << "      <system-err>" << escape(row->stderr_text) << "</system-err>\n";
            out << "    </testcase>\n";
        }
        out << "  </testsuite>\n";
    }
    out << "</testsuites>\n";
    return out.str();
}

}  // namespace e2beval
