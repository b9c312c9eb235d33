// MetricsSink and Report: the tutorial's file schema and Markdown table, and tolerance of foreign files.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/report/report.hpp"
#include "temporary_directory.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_metrics_report {

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

TEST_CASE("every record carries the run that wrote it; a report shows the latest run, re-runs are not samples") {
    TemporaryDirectory directory;
    const auto write = [&](const std::string& run_id, const std::string& task, bool success, double timestamp) {
        MetricsRecord record;
        record.task_id = task;
        record.provider = "echo";
        record.model = "m";
        record.success = success;
        record.timestamp = timestamp;
        MetricsSink(directory.path, run_id).write(record);
    };
    // Two runs of the same two tasks: the older one passed both, the newer one passed one.
    write("run-old", "a", true, 1.7e9);
    write("run-old", "b", true, 1.7e9 + 1);
    write("run-new", "a", true, 1.8e9);
    write("run-new", "b", false, 1.8e9 + 1);
    const auto object = json::parse(read(std::filesystem::directory_iterator(directory.path)->path())).as_object();
    CHECK(object.at("run_id").is_string());

    const auto latest = load_report_input(directory.path);
    REQUIRE(latest.rows.size() == 2);
    CHECK(latest.shown_runs == std::vector<std::string>{"run-new"});
    REQUIRE(latest.runs.size() == 2);
    CHECK(latest.runs.front().id == "run-new");
    const auto summary = summarize(latest);
    CHECK(summary.passed == 1);
    CHECK(summary.groups.front().pass_at_k.empty());  // one sample per task in this run
    CHECK(describe_runs(latest).find("Showing run run-new, the latest of 2 runs") == 0);

    const auto all = load_report_input(directory.path, RunSelection::all());
    CHECK(all.rows.size() == 4);
    // Two runs of task a are two problems with one sample each, not one problem with two samples.
    CHECK(summarize(all).groups.front().pass_at_k.empty());
    CHECK(summarize(all).groups.front().tasks == 4);

    CHECK(load_report_input(directory.path, RunSelection::one("run-old")).rows.size() == 2);
    CHECK_THROWS_WITH_AS(load_report_input(directory.path, RunSelection::one("nope")),
                         doctest::Contains("the runs there, newest first: run-new (2 rows), run-old (2 rows)"), input_error);
}

TEST_CASE("records without a run id (the tutorial's metrics.py, older versions) are one legacy run") {
    TemporaryDirectory directory;
    for (int i = 0; i < 3; ++i)
        std::ofstream(directory.path / ("metrics_" + std::to_string(i) + ".json"))
            << R"({"task_id": "t", "provider": "p", "model": "m", "success": true, "runtime_s": 0.1, "timestamp": )"
            << 1.7e9 + i << "}";
    const auto data = load_report_input(directory.path);
    CHECK(data.rows.size() == 3);
    CHECK(data.shown_runs == std::vector<std::string>{std::string(kLegacyRunId)});
    // Three samples of task t within the one legacy run.
    CHECK(summarize(data).groups.front().max_samples_per_task == 3);
}

TEST_CASE("the process run id comes from E2BEVAL_RUN_ID or is made once") {
    CHECK(process_run_id() == process_run_id());
    CHECK_FALSE(process_run_id().empty());
}

}  // namespace e2beval_test_metrics_report
