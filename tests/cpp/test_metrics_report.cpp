// MetricsSink and Report: the tutorial's file schema and Markdown table, and tolerance of foreign files.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2beval/error.hpp"
#include "e2beval/metrics.hpp"
#include "e2beval/report.hpp"
#include "temporary_directory.hpp"

using namespace e2beval;
namespace json = boost::json;

namespace {

using testing::TemporaryDirectory;

std::string read(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

}  // namespace

TEST_CASE("a metrics file has the tutorial's fields and name") {
    TemporaryDirectory directory;
    MetricsRecord record;
    record.task_id = "factorial";
    record.provider = "echo";
    record.model = "recorded";
    record.success = true;
    record.runtime_s = 0.25;
    record.extra = json::object{{"reason", "Correct output: 120"}};
    const auto path = MetricsSink(directory.path / "results").write(record);
    CHECK(path.filename().string().rfind("metrics_", 0) == 0);
    CHECK(path.filename().string().size() == std::string("metrics_").size() + 32 + 5);
    const auto object = json::parse(read(path)).as_object();
    for (const auto key : {"task_id", "provider", "model", "success", "runtime_s", "memory_mb", "extra", "timestamp"})
        CHECK(object.contains(key));
    CHECK(object.at("memory_mb").is_null());
    CHECK(object.at("timestamp").as_double() > 1.7e9);
}

TEST_CASE("the report is the tutorial's table and skips files that are not metrics") {
    TemporaryDirectory directory;
    const MetricsSink sink(directory.path);
    for (const auto& [task, success, runtime] : {std::tuple{"factorial", true, 0.5}, std::tuple{"reverse|string", false, 1.25}}) {
        MetricsRecord record;
        record.task_id = task;
        record.provider = "echo";
        record.model = "m";
        record.success = success;
        record.runtime_s = runtime;
        sink.write(record);
    }
    std::ofstream(directory.path / "broken.json") << "{not json";
    const auto output = directory.path / "report.md";
    CHECK(write_markdown_report(directory.path, output) == 2);
    const auto markdown = read(output);
    CHECK(markdown.rfind("| task | provider | model | success | runtime_s |\n", 0) == 0);
    CHECK(markdown.find("| factorial | echo | m | True | 0.500 |") != std::string::npos);
    CHECK(markdown.find("| reverse\\|string | echo | m | False | 1.250 |") != std::string::npos);
    CHECK(markdown.find("1 of 2 passed; 1 file(s) skipped") != std::string::npos);
}

TEST_CASE("a missing metrics directory is a clear error") {
    CHECK_THROWS_WITH_AS(load_metrics("/nonexistent/e2beval"), doctest::Contains("run an evaluation first"), io_error);
}
