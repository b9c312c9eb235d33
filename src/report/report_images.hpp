// The PNG results of a case (a cell's plots, which the promptfoo assertion's `expect_results` records as
// `png_results`, base64) in reports: read bounded and checked, shown inline in the HTML. Private to the reports.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <string>

#include "e2beval/report/report.hpp"

namespace e2beval::report_images {

// What one row keeps: a report inlines every image, and one case must not make it megabytes.
inline constexpr std::size_t kMaxPngResultsPerRow = 4;
inline constexpr std::size_t kMaxPngResultBytes = 1 << 20;  // decoded

// `png_results` (and the recorder's own `png_results_note`) of an evaluation's detail into `row`, when the row has
// none yet. Only strict base64 of a PNG is kept (the text goes into an HTML attribute); what is left out (too
// many, too big, not a PNG) is said in row.png_results_note.
void absorb_png_results(const boost::json::object& detail, ReportRow& row);

// The row's PNGs as <img src="data:image/png;base64,..."> with the note, or "" when it has neither.
std::string png_results_block(const ReportRow& row);

}  // namespace e2beval::report_images
