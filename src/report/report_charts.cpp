// SVG charts of the HTML report. Geometry is computed here in C++, so the page needs no charting library;
// every label goes through report_markup::escape because task and provider names come from user files.
#include "report/report_charts.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "report/report_markup.hpp"

namespace e2beval::report_charts {

namespace {

using report_markup::escape;
using report_markup::fixed;

constexpr std::string_view kTextColor = "#24292f";
constexpr std::string_view kMutedColor = "#57606a";
constexpr std::string_view kGridColor = "#d0d7de";
constexpr std::string_view kTrackColor = "#f0f3f6";

// 1, 2, 2.5 or 5 times a power of ten, the smallest such step >= raw.
double nice_step(double raw) {
    if (!(raw > 0)) return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double multiple : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (multiple * magnitude >= raw * (1 - 1e-9)) return multiple * magnitude;
    return 10.0 * magnitude;
}

// Decimals needed to print multiples of `step` exactly (2.5 -> 1, 0.02 -> 2, 50 -> 0).
int decimals_for(double step) {
    for (int decimals = 0; decimals < 8; ++decimals) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) return decimals;
    }
    return 8;
}

std::string shortened(std::string_view text, std::size_t max_chars) { return report_markup::first_line(text, max_chars); }

std::string px(double value) { return fixed(value, 1); }

}  // namespace

std::string horizontal_bars(std::string_view aria_label, const std::vector<Bar>& bars, double scale_max, bool percent_axis) {
    constexpr double kWidth = 600, kLabelWidth = 180, kAnnotationWidth = 120, kRow = 30, kBarHeight = 18, kTop = 8, kAxis = 24;
    const double plot_width = kWidth - kLabelWidth - kAnnotationWidth;
    const double height = kTop + kRow * static_cast<double>(std::max<std::size_t>(bars.size(), 1)) + kAxis;
    if (!(scale_max > 0)) scale_max = 1.0;
    std::ostringstream svg;
    svg << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kWidth << " " << px(height)
        << "\" role=\"img\" aria-label=\"" << escape(aria_label) << "\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\n";
    // Grid: five lines across the plot, labelled as percentages or counts.
    const double plot_bottom = height - kAxis;
    const double tick_step = percent_axis ? 0.25 : nice_step(scale_max / 4);
    if (!percent_axis) scale_max = std::max(scale_max, tick_step * std::ceil(scale_max / tick_step));
    for (double tick = 0; tick <= scale_max * (1 + 1e-9); tick += tick_step) {
        const double x = kLabelWidth + plot_width * tick / scale_max;
        svg << "<line x1=\"" << px(x) << "\" y1=\"" << kTop << "\" x2=\"" << px(x) << "\" y2=\"" << px(plot_bottom)
            << "\" stroke=\"" << kGridColor << "\" stroke-width=\"1\"/>";
        svg << "<text x=\"" << px(x) << "\" y=\"" << px(plot_bottom + 16) << "\" text-anchor=\"middle\" fill=\"" << kMutedColor
            << "\">" << (percent_axis ? fixed(tick * 100, 0) + "%" : fixed(tick, decimals_for(tick_step))) << "</text>\n";
    }
    double y = kTop;
    for (const auto& bar : bars) {
        const double bar_y = y + (kRow - kBarHeight) / 2;
        svg << "<g><title>" << escape(bar.label + ": " + bar.annotation) << "</title>";
        svg << "<text x=\"" << px(kLabelWidth - 8) << "\" y=\"" << px(bar_y + kBarHeight - 5) << "\" text-anchor=\"end\" fill=\""
            << kTextColor << "\">" << escape(shortened(bar.label, 26)) << "</text>";
        svg << "<rect x=\"" << px(kLabelWidth) << "\" y=\"" << px(bar_y) << "\" width=\"" << px(plot_width) << "\" height=\""
            << kBarHeight << "\" fill=\"" << kTrackColor << "\"/>";
        double x = kLabelWidth;
        for (const auto& segment : bar.segments) {
            const double width = plot_width * std::clamp(segment.value / scale_max, 0.0, 1.0);
            if (width <= 0) continue;
            svg << "<rect x=\"" << px(x) << "\" y=\"" << px(bar_y) << "\" width=\"" << px(width) << "\" height=\"" << kBarHeight
                << "\" rx=\"2\" fill=\"" << segment.color << "\"><title>" << escape(segment.tooltip) << "</title></rect>";
            x += width;
        }
        svg << "<text x=\"" << px(kLabelWidth + plot_width + 8) << "\" y=\"" << px(bar_y + kBarHeight - 5) << "\" fill=\""
            << kTextColor << "\">" << escape(bar.annotation) << "</text></g>\n";
        y += kRow;
    }
    svg << "</svg>\n";
    return svg.str();
}

namespace {

// Values spread over at least this factor get logarithmic bins (see make_histogram).
constexpr double kLogarithmicSpread = 20.0;

// The 1-2-5 series from its largest member <= low to its smallest member > high; the 1-3 series, then whole
// decades, when that gives more than `max_bins` bins.
std::vector<double> logarithmic_edges(double low, double high, std::size_t max_bins) {
    const std::vector<std::vector<double>> series = {{1, 2, 5}, {1, 3}, {1}};
    std::vector<double> edges;
    for (const auto& multiples : series) {
        edges.clear();
        const auto reaches_high = [&] {
            for (int exponent = static_cast<int>(std::floor(std::log10(low))) - 1;; ++exponent)
                for (const double multiple : multiples) {
                    const double edge = multiple * std::pow(10.0, exponent);
                    if (edge <= low * (1 + 1e-9)) {
                        edges.assign(1, edge);  // only the largest member <= low is kept
                        continue;
                    }
                    edges.push_back(edge);
                    if (edge > high) return;
                }
        };
        reaches_high();
        if (edges.size() - 1 <= max_bins) break;
    }
    return edges;
}

}  // namespace

Histogram make_histogram(const std::vector<std::pair<double, bool>>& values, std::size_t max_bins) {
    Histogram histogram;
    if (values.empty() || max_bins == 0) return histogram;
    double low = values.front().first, high = low;
    std::optional<double> smallest_positive;
    for (const auto& [value, passed] : values) {
        low = std::min(low, value);
        high = std::max(high, value);
        if (value > 0 && (!smallest_positive || value < *smallest_positive)) smallest_positive = value;
    }
    if (low >= 0 && smallest_positive && high / *smallest_positive >= kLogarithmicSpread) {
        histogram.logarithmic = true;
        histogram.edges = logarithmic_edges(*smallest_positive, high, max_bins);
        if (low == 0) histogram.edges.insert(histogram.edges.begin(), 0.0);
    } else {
        if (high - low < 1e-12) {  // all the same: a small window around the value
            const double pad = std::max(std::fabs(low) * 0.05, 0.001);
            low = low >= 0 ? std::max(0.0, low - pad) : low - pad;
            high += pad;
        }
        const double step = nice_step((high - low) / static_cast<double>(max_bins));
        const double start = std::floor(low / step) * step;
        auto bins = static_cast<std::size_t>(std::ceil((high - start) / step - 1e-9));
        bins = std::clamp<std::size_t>(bins, 1, max_bins + 1);
        for (std::size_t i = 0; i <= bins; ++i) histogram.edges.push_back(start + step * static_cast<double>(i));
        // Labels of a fixed-width axis share their decimals (0.5, 1.0, 1.5).
        for (const double edge : histogram.edges) histogram.labels.push_back(fixed(edge, decimals_for(step)));
    }
    if (histogram.logarithmic)
        for (const double edge : histogram.edges) histogram.labels.push_back(fixed(edge, decimals_for(edge)));
    const std::size_t bins = histogram.edges.size() - 1;
    histogram.passed.assign(bins, 0);
    histogram.failed.assign(bins, 0);
    for (const auto& [value, passed] : values) {
        // The bin whose [lower, upper) holds the value; the top value goes into the last bin.
        const auto upper = std::upper_bound(histogram.edges.begin(), histogram.edges.end(), value * (1 + 1e-12));
        const auto position = static_cast<std::ptrdiff_t>(upper - histogram.edges.begin()) - 1;
        const auto bin = static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(position, 0, static_cast<std::ptrdiff_t>(bins) - 1));
        (passed ? histogram.passed : histogram.failed)[bin] += 1;
    }
    return histogram;
}

std::string histogram_chart(std::string_view aria_label, std::string_view axis_title, const Histogram& histogram) {
    constexpr double kWidth = 600, kHeight = 240, kLeft = 44, kRight = 24, kTop = 10, kBottom = 48;
    const double plot_width = kWidth - kLeft - kRight, plot_height = kHeight - kTop - kBottom;
    const double plot_bottom = kTop + plot_height;
    const std::size_t bins = histogram.passed.size();
    std::size_t tallest = 1;
    for (std::size_t i = 0; i < bins; ++i) tallest = std::max(tallest, histogram.passed[i] + histogram.failed[i]);
    const double count_step = std::max(1.0, nice_step(static_cast<double>(tallest) / 4));
    const double count_max = count_step * std::ceil(static_cast<double>(tallest) / count_step);

    std::ostringstream svg;
    svg << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kWidth << " " << kHeight
        << "\" role=\"img\" aria-label=\"" << escape(aria_label) << "\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\n";
    for (double tick = 0; tick <= count_max + 1e-9; tick += count_step) {
        const double y = plot_bottom - plot_height * tick / count_max;
        svg << "<line x1=\"" << kLeft << "\" y1=\"" << px(y) << "\" x2=\"" << kLeft + plot_width << "\" y2=\"" << px(y)
            << "\" stroke=\"" << kGridColor << "\" stroke-width=\"1\"/>";
        svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << px(y + 4) << "\" text-anchor=\"end\" fill=\"" << kMutedColor << "\">"
            << fixed(tick, 0) << "</text>\n";
    }
    if (bins > 0) {
        const double bin_width = plot_width / static_cast<double>(bins);
        const std::size_t label_every = bins > 8 ? 2 : 1;
        for (std::size_t i = 0; i < bins; ++i) {
            const double x = kLeft + bin_width * static_cast<double>(i) + 1;
            const double passed_height = plot_height * static_cast<double>(histogram.passed[i]) / count_max;
            const double failed_height = plot_height * static_cast<double>(histogram.failed[i]) / count_max;
            const std::string range = histogram.labels[i] + "–" + histogram.labels[i + 1] + " " + std::string(axis_title);
            svg << "<g><title>" << escape(range + ": " + std::to_string(histogram.passed[i]) + " passed, " +
                                          std::to_string(histogram.failed[i]) + " failed")
                << "</title>";
            if (passed_height > 0)
                svg << "<rect x=\"" << px(x) << "\" y=\"" << px(plot_bottom - passed_height) << "\" width=\"" << px(bin_width - 2)
                    << "\" height=\"" << px(passed_height) << "\" fill=\"" << kPassColor << "\"/>";
            if (failed_height > 0)
                svg << "<rect x=\"" << px(x) << "\" y=\"" << px(plot_bottom - passed_height - failed_height) << "\" width=\""
                    << px(bin_width - 2) << "\" height=\"" << px(failed_height) << "\" fill=\"" << kFailColor << "\"/>";
            svg << "</g>\n";
        }
        for (std::size_t i = 0; i <= bins; i += label_every) {
            const double x = kLeft + bin_width * static_cast<double>(i);
            svg << "<text x=\"" << px(x) << "\" y=\"" << px(plot_bottom + 16) << "\" text-anchor=\"middle\" fill=\"" << kMutedColor
                << "\">" << histogram.labels[i] << "</text>";
        }
    }
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << px(plot_bottom) << "\" x2=\"" << kLeft + plot_width << "\" y2=\""
        << px(plot_bottom) << "\" stroke=\"" << kMutedColor << "\" stroke-width=\"1\"/>\n";
    svg << "<text x=\"" << px(kLeft + plot_width / 2) << "\" y=\"" << kHeight - 8 << "\" text-anchor=\"middle\" fill=\""
        << kTextColor << "\">" << escape(axis_title) << (histogram.logarithmic ? ", logarithmic bins" : "") << "</text>\n";
    svg << "</svg>\n";
    return svg.str();
}

std::string donut(std::size_t passed, std::size_t failed, std::size_t errors) {
    constexpr double kSize = 140, kRadius = 54, kStroke = 20;
    const double circumference = 2 * M_PI * kRadius;
    const double total = static_cast<double>(passed + failed + errors);
    std::ostringstream svg;
    svg << "<svg class=\"donut\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kSize << " " << kSize
        << "\" width=\"" << kSize << "\" height=\"" << kSize << "\" role=\"img\" aria-label=\"" << passed << " passed, " << failed
        << " failed, " << errors << " errors\" font-family=\"system-ui, sans-serif\">\n";
    svg << "<circle cx=\"70\" cy=\"70\" r=\"" << kRadius << "\" fill=\"none\" stroke=\"" << kTrackColor << "\" stroke-width=\""
        << kStroke << "\"/>";
    double offset = 0;
    const std::pair<std::size_t, std::string_view> parts[] = {{passed, kPassColor}, {failed, kFailColor}, {errors, kErrorColor}};
    for (const auto& [count, color] : parts) {
        if (count == 0 || total == 0) continue;
        const double length = circumference * static_cast<double>(count) / total;
        // Each arc is a dash of the circle's stroke, rotated to start at twelve o'clock.
        svg << "<circle cx=\"70\" cy=\"70\" r=\"" << kRadius << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\""
            << kStroke << "\" stroke-dasharray=\"" << px(length) << " " << px(circumference - length) << "\" stroke-dashoffset=\""
            << px(-offset) << "\" transform=\"rotate(-90 70 70)\"/>";
        offset += length;
    }
    const std::string rate = total > 0 ? fixed(100.0 * static_cast<double>(passed) / total, 0) + "%" : "–";
    svg << "\n<text x=\"70\" y=\"76\" text-anchor=\"middle\" font-size=\"22\" font-weight=\"600\" fill=\"" << kTextColor << "\">"
        << rate << "</text>";
    svg << "<text x=\"70\" y=\"94\" text-anchor=\"middle\" font-size=\"11\" fill=\"" << kMutedColor << "\">passed</text>\n</svg>\n";
    return svg.str();
}

}  // namespace e2beval::report_charts
