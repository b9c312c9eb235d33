// e2beval._core's side of the promptfoo assertion's rich-result check (include/e2beval/eval/result_check.hpp):
// the settings python/e2beval/rich_results.py needs from a checked `config:`, and the cell it runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/analysis/json.hpp"
#include "e2beval/eval/assertion_options.hpp"
#include "e2beval/eval/json.hpp"
#include "e2beval/eval/result_check.hpp"

namespace py = pybind11;
namespace json = boost::json;
using namespace e2beval;

namespace e2beval::python {

namespace {

json::object vars_object(const std::string& vars_json) {
    boost::system::error_code ec;
    auto value = json::parse(vars_json, ec);
    if (ec || !value.is_object()) throw input_error("test vars must be a JSON object");
    return std::move(value.get_object());
}

// {expect_results: [[kind, count]...], template, wall_time_s, python, session: {limits, isolation}} as JSON text:
// what e2beval.Sandbox takes to run the cell under the config's own limits and isolation.
std::string result_check_settings(const AssertionOptions& config) {
    json::array expected;
    for (const auto& item : config.expect_results) expected.push_back(json::array{json::value(item.kind), item.count});
    auto limits = to_json(config.runner.limits);
    // A session's lifetime is its timeout and its cells are timed one by one: the cell gets wall_time_s.
    limits.erase("wall_time_s");
    limits.erase("cpu_time_s");
    return to_json_text(json::object{
        {"expect_results", std::move(expected)},
        {"template", config.runner.template_name},
        {"wall_time_s", std::chrono::duration<double>(config.runner.limits.wall_time).count()},
        {"python", config.python_executable},
        {"session", json::object{{"limits", std::move(limits)}, {"isolation", to_json(config.runner.isolation)}}},
    });
}

std::string prepare_result_cell_json(const std::string& output, const std::string& vars_json, const AssertionOptions& config) {
    const auto vars = vars_object(vars_json);
    auto options = answer_options(config);
    // The test's own language, else the config's (vars_with_defaults): a cell is Python only.
    if (const auto* language = vars.if_contains("language"); language && language->is_string())
        if (const auto named = language_from_tag(language->get_string())) options.extract.language = *named;
    const auto prepared = prepare_result_cell(output, vars, options);
    auto answer = to_json(prepared.answer);
    answer["cell"] = prepared.cell;
    return to_json_text(answer);
}

}  // namespace

void bind_result_check(py::module_& m) {
    const auto release = py::call_guard<py::gil_scoped_release>();
    m.def("result_check_settings", &result_check_settings, py::arg("config"));
    m.def("prepare_result_cell", &prepare_result_cell_json, py::arg("output"), py::arg("vars_json"), py::arg("config"),
          release);
    m.def("vars_describe_test", [](const std::string& vars_json) { return vars_describe_test(vars_object(vars_json)); },
          py::arg("vars_json"));
}

}  // namespace e2beval::python
