// A case's PNG results (a cell's plots, recorded by the promptfoo assertion's expect_results) in reports: read
// from a metrics record or promptfoo's -o JSON, bounded, checked, and inlined in the HTML as data: images.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <string>

#include "core/base64.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/report/report.hpp"
#include "report/report_images.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_report_images {

using namespace e2beval;
namespace json = boost::json;

namespace {

std::string png(std::size_t bytes, char fill = 'a') {
    return base64_encode("\x89PNG\r\n\x1a\n" + std::string(bytes, fill));
}

std::size_t count(std::string_view text, std::string_view needle) {
    std::size_t found = 0;
    for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size())) ++found;
    return found;
}

ReportData from_record(json::object extra) {
    MetricsRecord record;
    record.task_id = "scatter plot";
    record.provider = "recorded";
    record.model = "echo";
    record.success = true;
    record.extra = std::move(extra);
    MetricsCollection metrics;
    metrics.records.push_back(record);
    return report_from_metrics(metrics, "results");
}

}  // namespace

TEST_CASE("a case's PNG results are shown inline in the HTML report") {
    const auto plot = png(200);
    const auto data = from_record(json::object{{"reason", "The cell produced a png result"},
                                               {"png_results", json::array{json::value(plot)}}});
    REQUIRE(data.rows.size() == 1);
    CHECK(data.rows[0].png_results == std::vector<std::string>{plot});
    CHECK(data.rows[0].png_results_note.empty());
    const auto html = render_html(data);
    CHECK(html.find("<img src=\"data:image/png;base64," + plot + "\" alt=\"PNG result 1 of scatter plot\">") != std::string::npos);
    CHECK(html.find("PNG results") != std::string::npos);
}

TEST_CASE("PNG results past the bounds are left out with a note") {
    json::array pngs;
    for (int i = 0; i < 6; ++i) pngs.push_back(json::value(png(100, static_cast<char>('a' + i))));
    pngs.push_back(json::value(png(report_images::kMaxPngResultBytes + 1)));  // too big
    pngs.push_back(json::value(png(10) + "\"><script>alert(1)</script>"));  // not base64: never in an attribute
    pngs.push_back(json::value(base64_encode("GIF89a not a png")));           // base64, not a PNG
    const auto data = from_record(json::object{{"png_results", std::move(pngs)},
                                               {"png_results_note", "3 more PNG result(s) not kept (at most 4 per case)"}});
    const auto& row = data.rows.at(0);
    CHECK(row.png_results.size() == report_images::kMaxPngResultsPerRow);
    CHECK(row.png_results.front() == png(100, 'a'));
    CHECK(row.png_results_note ==
          "3 more PNG result(s) not kept (at most 4 per case); 1 PNG result(s) over 1 MiB not shown; 2 more PNG "
          "result(s) not shown (at most 4 per case); 2 result(s) that are not base64 PNG not shown");
    const auto html = render_html(data);
    CHECK(count(html, "<img src=\"data:image/png;base64,") == 4);
    CHECK(html.find("<script>alert(1)") == std::string::npos);
    CHECK(html.find("1 PNG result(s) over 1 MiB not shown") != std::string::npos);
}

TEST_CASE("promptfoo's -o JSON carries the PNG results in the assertion's metadata") {
    const auto plot = png(64);
    json::object document = json::parse(R"({"evalId": "eval-1", "results": {"results": [
        {"success": true, "score": 1, "promptIdx": 0, "testIdx": 0, "failureReason": 0,
         "provider": {"id": "echo", "label": "recorded"}, "testCase": {"description": "scatter plot"},
         "gradingResult": {"pass": true, "score": 1, "reason": "All assertions passed",
           "componentResults": [{"pass": true, "score": 1, "reason": "The cell produced a png result",
              "metadata": {}}]}}]}})").as_object();
    document["results"].as_object()["results"].as_array()[0].as_object()["gradingResult"].as_object()["componentResults"]
        .as_array()[0].as_object()["metadata"].as_object()["png_results"] = json::array{json::value(plot)};
    const auto data = report_from_promptfoo(document, "out.json");
    REQUIRE(data.rows.size() == 1);
    CHECK(data.rows[0].png_results == std::vector<std::string>{plot});
    CHECK(render_html(data).find("data:image/png;base64," + plot) != std::string::npos);
}

}  // namespace e2beval_test_report_images
