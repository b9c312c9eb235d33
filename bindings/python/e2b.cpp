// e2beval._core's E2B backend: execute_e2b (e2beval.execute(..., backend="e2b")) and e2b_sandbox_for, the
// process-wide E2bSandbox per configuration (so remote sandboxes and connections are reused between calls;
// every remote sandbox it created is killed when the process exits).
#include <map>
#include <memory>
#include <mutex>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"

namespace py = pybind11;
namespace json = boost::json;
using namespace e2beval;

namespace e2beval::python {

namespace {
std::mutex& e2b_mutex() {
    static std::mutex mutex;
    return mutex;
}
// Never destroyed by a static destructor (OpenSSL and the interpreter are gone by then): e2b_shutdown, which
// the package registers with atexit, kills the remote sandboxes while everything still works.
std::map<std::string, std::unique_ptr<E2bSandbox>>& e2b_sandboxes() {
    static auto* sandboxes = new std::map<std::string, std::unique_ptr<E2bSandbox>>();
    return *sandboxes;
}
}  // namespace

// bindings/python/module.cpp: the one reading of execute()'s arguments, for every backend.
ExecRequest exec_request_from_python(const std::string& code, const std::string& language, const std::string& stdin_data,
                                     const std::map<std::string, std::string>& env, const std::string& limits_json,
                                     const std::string& isolation_json, const std::string& template_name);

// The environment's E2B settings decide which shared backend a call gets (a test may point at another server).
E2bSandbox& e2b_sandbox_for(const BackendConfig& config) {
    auto& mutex = e2b_mutex();
    auto& sandboxes = e2b_sandboxes();
    const auto settings = e2b_settings(config);
    const auto key = settings.api_key + "\n" + settings.domain + "\n" + settings.api_url + "\n" + settings.sandbox_url + "\n" +
                     settings.ca_file + "\n" + settings.template_id + "\n" + std::to_string(settings.max_sandboxes) + "\n" +
                     std::to_string(settings.uses_per_sandbox);
    std::lock_guard lock(mutex);
    auto& sandbox = sandboxes[key];
    if (!sandbox) sandbox = std::make_unique<E2bSandbox>(settings);
    return *sandbox;
}

namespace {

std::string execute_e2b_json(const std::string& code, const std::string& language, const std::string& stdin_data,
                             const std::map<std::string, std::string>& env, const std::string& limits_json,
                             const std::string& isolation_json, const std::string& template_name) {
    const auto request = exec_request_from_python(code, language, stdin_data, env, limits_json, isolation_json, template_name);
    BackendConfig config;
    config.backend = "e2b";
    config.e2b_template = template_name;  // on E2B, an E2B template ID (empty: E2BEVAL_E2B_TEMPLATE, else code-interpreter-v1)
    return to_json_text(to_json(e2b_sandbox_for(config).execute(request)));
}

}  // namespace

void bind_e2b(py::module_& m) {
    const auto release = py::call_guard<py::gil_scoped_release>();
    m.def("execute_e2b", &execute_e2b_json, py::arg("code"), py::arg("language"), py::arg("stdin"), py::arg("env"),
          py::arg("limits_json"), py::arg("isolation_json"), py::arg("template_name") = "", release);
    m.def("e2b_shutdown", [] {
        std::lock_guard lock(e2b_mutex());
        e2b_sandboxes().clear();  // each kills every remote sandbox it created
    }, release);
    m.def("e2b_counters", [] {
        BackendConfig config;
        config.backend = "e2b";
        const auto counters = e2b_sandbox_for(config).counters();
        return std::map<std::string, std::uint64_t>{{"requests", counters.requests}, {"retries", counters.retries},
                                                    {"connections", counters.connections},
                                                    {"sandboxes_created", counters.sandboxes_created},
                                                    {"sandboxes_killed", counters.sandboxes_killed}};
    }, release);
}

}  // namespace e2beval::python
