// Report: the tutorial's promptfoo_report.md from the metrics files, tolerant of foreign or broken files.
#include "e2beval/report.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "e2beval/error.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

std::string table_cell(std::string text) {
    // A '|' or a newline would break the Markdown table.
    for (auto& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    std::string out;
    for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

std::string format_seconds(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", seconds);
    return text;
}

}  // namespace

MetricsCollection load_metrics(const std::filesystem::path& directory) {
    MetricsCollection collection;
    std::error_code ec;
    if (!std::filesystem::is_directory(directory, ec))
        throw io_error("no metrics directory at " + directory.string() +
                       "; run an evaluation first or set PROMPTFOO_RESULTS_DIR to where its metrics are");
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
        if (entry.path().extension() == ".json" && entry.path().filename().string()[0] != '.') files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream content;
        content << in.rdbuf();
        boost::system::error_code parse_error;
        const auto value = json::parse(content.str(), parse_error);
        if (parse_error || !value.is_object()) {
            collection.skipped.push_back(file.filename().string() + ": not a JSON object");
            continue;
        }
        try {
            collection.records.push_back(metrics_from_json(value.get_object()));
        } catch (const error& failure) {
            collection.skipped.push_back(file.filename().string() + ": " + failure.what());
        }
    }
    std::stable_sort(collection.records.begin(), collection.records.end(),
                     [](const MetricsRecord& a, const MetricsRecord& b) { return a.timestamp < b.timestamp; });
    return collection;
}

std::string render_markdown(const MetricsCollection& metrics) {
    std::ostringstream out;
    out << "| task | provider | model | success | runtime_s |\n";
    out << "|------|----------|-------|---------|-----------|\n";
    std::size_t passed = 0;
    for (const auto& record : metrics.records) {
        passed += record.success ? 1 : 0;
        out << "| " << table_cell(record.task_id) << " | " << table_cell(record.provider) << " | "
            << table_cell(record.model) << " | " << (record.success ? "True" : "False") << " | "
            << format_seconds(record.runtime_s) << " |\n";
    }
    out << "\n" << passed << " of " << metrics.records.size() << " passed";
    if (!metrics.skipped.empty()) out << "; " << metrics.skipped.size() << " file(s) skipped (not metrics)";
    out << "\n";
    return out.str();
}

std::size_t write_markdown_report(const std::filesystem::path& results_dir, const std::filesystem::path& output) {
    const auto metrics = load_metrics(results_dir);
    std::ofstream out(output, std::ios::binary);
    out << render_markdown(metrics);
    if (!out) throw io_error("cannot write the report to " + output.string());
    return metrics.records.size();
}

}  // namespace e2beval
