// Report: reads the metrics files back and writes the tutorial's Markdown table (promptfoo_report.md).
// Files that are not valid metrics are skipped and counted, never fatal: a report shows what it can.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "e2beval/metrics.hpp"

namespace e2beval {

struct MetricsCollection {
    std::vector<MetricsRecord> records;           // sorted by timestamp
    std::vector<std::string> skipped;             // "file: why" for each unreadable file
};

MetricsCollection load_metrics(const std::filesystem::path& directory);

// The tutorial's table: | task | provider | model | success | runtime_s |, plus a summary line.
std::string render_markdown(const MetricsCollection& metrics);

// Writes render_markdown() to `output` and returns the number of rows. Throws io_error.
std::size_t write_markdown_report(const std::filesystem::path& results_dir, const std::filesystem::path& output);

}  // namespace e2beval
