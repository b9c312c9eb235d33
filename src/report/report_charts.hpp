// Charts for the HTML report, drawn as inline SVG strings: no script, no network, nothing to load, so the
// page renders the same from a file, an e-mail attachment or a CI artifact. Private to the report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace e2beval::report_charts {

// The colours of the report (GitHub's Primer palette: readable, and distinct for colour-blind readers
// by lightness as well as hue).
inline constexpr std::string_view kPassColor = "#2da44e";
inline constexpr std::string_view kFailColor = "#cf222e";
inline constexpr std::string_view kErrorColor = "#bf8700";
inline constexpr std::string_view kNeutralColor = "#0969da";

struct Segment {
    double value = 0.0;
    std::string_view color;
    std::string tooltip;
};

struct Bar {
    std::string label;
    std::vector<Segment> segments;  // stacked left to right
    std::string annotation;         // text right of the bar
};

// One horizontal (stacked) bar per entry, scaled so that `scale_max` fills the width. `percent_axis`
// labels the grid 0%..100% (for rates, scale_max 1); otherwise the grid shows counts.
std::string horizontal_bars(std::string_view aria_label, const std::vector<Bar>& bars, double scale_max, bool percent_axis);

struct Histogram {
    std::vector<double> edges;           // bins + 1 boundaries
    std::vector<std::size_t> passed;     // per bin
    std::vector<std::size_t> failed;     // per bin
    std::vector<std::string> labels;     // one per edge, as few decimals as each needs
    bool logarithmic = false;            // edges grow by 1-2-5 steps instead of a fixed width
};

// Bins chosen from the data, at most `max_bins` (+1). Values spread over less than a factor of 20 get
// equal-width bins with a "nice" width (1, 2, 2.5 or 5 times a power of ten). Values spread wider — a few
// fast runs and one that hit a 10 s timeout — get logarithmic bins on the 1-2-5 series (0.01, 0.02, 0.05,
// 0.1, ...), so the fast ones spread over several bars instead of sharing the first one; a first edge of 0
// holds zeros (code that never ran). Each value is (measurement, passed). Empty input gives no bins.
Histogram make_histogram(const std::vector<std::pair<double, bool>>& values, std::size_t max_bins);

// Vertical stacked bars (passed below, failed above) with count and value axes.
std::string histogram_chart(std::string_view aria_label, std::string_view axis_title, const Histogram& histogram);

// A ring of passed / failed / errors with the pass rate in the middle.
std::string donut(std::size_t passed, std::size_t failed, std::size_t errors);

}  // namespace e2beval::report_charts
