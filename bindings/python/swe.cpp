// e2beval._core's SWE functions (python/e2beval/swe.py is the public face): JSON text in, JSON text out, the GIL
// released while the evaluation runs.
#include <boost/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/swe/evaluate.hpp"
#include "e2beval/swe/patch.hpp"

namespace py = pybind11;
namespace json = boost::json;

namespace e2beval::python {

LocalSandbox& sandbox_for(const std::string& python_executable, bool pool);  // module.cpp

namespace {

json::object object_from(const std::string& text, const char* what) {
    boost::system::error_code ec;
    auto value = json::parse(text, ec);
    if (ec || !value.is_object()) throw input_error(std::string(what) + " must be a JSON object");
    return std::move(value.as_object());
}

swe::EvaluationOptions options_from(const json::object& object) {
    swe::EvaluationOptions options;
    if (const auto* python = object.if_contains("python"); python && python->is_string()) options.python_executable = python->as_string();
    if (const auto* name = object.if_contains("template"); name && name->is_string()) options.template_name = name->as_string();
    if (const auto* protect = object.if_contains("protect_tests"); protect && protect->is_bool()) options.protect_tests = protect->as_bool();
    if (const auto* timeout = object.if_contains("timeout"); timeout && timeout->is_number()) {
        const auto seconds = timeout->to_number<double>();
        if (seconds <= 0) throw input_error("timeout must be a positive number of seconds");
        options.test_timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
    }
    if (const auto* limits = object.if_contains("limits"); limits && limits->is_object())
        options.limits = limits_from_json(limits->as_object(), options.limits);
    return options;
}

std::string evaluate(const std::string& instance_json, const std::string& patch, const std::string& options_json,
                     const std::string& model) {
    const auto instance = swe::instance_from_json(object_from(instance_json, "instance"));
    const auto options = options_from(object_from(options_json, "options"));
    auto& sandbox = sandbox_for(options.python_executable, false);
    return to_json_text(swe::to_json(swe::evaluate_patch(sandbox, instance, patch, options, model)));
}

std::string validate(const std::string& instance_json, const std::string& options_json) {
    const auto instance = swe::instance_from_json(object_from(instance_json, "instance"));
    const auto options = options_from(object_from(options_json, "options"));
    auto& sandbox = sandbox_for(options.python_executable, false);
    const auto validation = swe::validate_instance(sandbox, instance, options);
    json::array problems;
    for (const auto& problem : validation.problems) problems.emplace_back(problem);
    return to_json_text(json::object{{"valid", validation.valid()},
                                     {"problems", std::move(problems)},
                                     {"gold", swe::to_json(validation.gold)},
                                     {"empty", swe::to_json(validation.empty)}});
}

}  // namespace

void bind_swe(py::module_& m) {
    const auto release = py::call_guard<py::gil_scoped_release>();
    m.def("swe_evaluate", &evaluate, py::arg("instance_json"), py::arg("patch"), py::arg("options_json"), py::arg("model"), release);
    m.def("swe_validate", &validate, py::arg("instance_json"), py::arg("options_json"), release);
    m.def("swe_extract_diff", &swe::extract_diff, py::arg("answer"));
    m.def("swe_refuse_reason", [](const std::string& diff, const std::vector<std::string>& protected_paths) {
        return swe::refuse_reason(diff, swe::PatchCheckOptions{protected_paths});
    }, py::arg("diff"), py::arg("protected_paths"));
}

}  // namespace e2beval::python
