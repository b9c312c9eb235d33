// See report_images.hpp.
#include "report/report_images.hpp"

#include <boost/json.hpp>
#include <string_view>

#include "core/base64.hpp"
#include "e2beval/core/error.hpp"
#include "report/report_markup.hpp"

namespace e2beval::report_images {

namespace json = boost::json;

namespace {

constexpr std::string_view kPngSignature = "\x89PNG\r\n\x1a\n";

// RFC 4648 base64 with padding and nothing else: what goes into the src attribute can then hold no quote,
// angle bracket or space (base64_decode alone stops at the first '=' and would let a tail through).
bool strict_base64(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0) return false;
    std::size_t padding = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (c == '=') {
            if (i + 2 < text.size()) return false;  // padding only in the last two places
            ++padding;
        } else if (!letter || padding) {
            return false;
        }
    }
    return true;
}

void note(std::string& notes, const std::string& text) { notes += (notes.empty() ? "" : "; ") + text; }

}  // namespace

void absorb_png_results(const json::object& detail, ReportRow& row) {
    if (!row.png_results.empty() || !row.png_results_note.empty()) return;
    if (const auto* recorded = detail.if_contains("png_results_note"); recorded && recorded->is_string())
        row.png_results_note = report_markup::excerpt(recorded->get_string(), 512);
    const auto* pngs = detail.if_contains("png_results");
    if (!pngs || !pngs->is_array()) return;
    std::size_t excess = 0, oversized = 0, invalid = 0;
    for (const auto& item : pngs->get_array()) {
        const std::string_view text = item.is_string() ? std::string_view(item.get_string()) : std::string_view();
        if (text.size() > (kMaxPngResultBytes + 2) / 3 * 4) {
            ++oversized;
            continue;
        }
        std::string bytes;
        try {
            if (strict_base64(text)) bytes = base64_decode(text);
        } catch (const input_error&) {
        }
        if (bytes.compare(0, kPngSignature.size(), kPngSignature) != 0) ++invalid;
        else if (row.png_results.size() >= kMaxPngResultsPerRow) ++excess;
        else row.png_results.emplace_back(text);
    }
    if (oversized) note(row.png_results_note, std::to_string(oversized) + " PNG result(s) over 1 MiB not shown");
    if (excess)
        note(row.png_results_note, std::to_string(excess) + " more PNG result(s) not shown (at most " +
                                       std::to_string(kMaxPngResultsPerRow) + " per case)");
    if (invalid) note(row.png_results_note, std::to_string(invalid) + " result(s) that are not base64 PNG not shown");
}

std::string png_results_block(const ReportRow& row) {
    if (row.png_results.empty() && row.png_results_note.empty()) return "";
    std::string html = "<div class=\"detail-label\">PNG results</div><div class=\"png-results\">";
    for (std::size_t i = 0; i < row.png_results.size(); ++i)
        html += "<img src=\"data:image/png;base64," + row.png_results[i] + "\" alt=\"PNG result " + std::to_string(i + 1) +
                " of " + report_markup::escape(row.task) + "\">";
    html += "</div>";
    if (!row.png_results_note.empty()) html += "<div class=\"note\">" + report_markup::escape(row.png_results_note) + "</div>";
    return html;
}

}  // namespace e2beval::report_images
