// e2beval._core.Session: the session API for python/e2beval/sandbox.py. Requests and events cross as JSON
// text; every blocking call releases the GIL, and event callbacks take it back only to call Python.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/session.hpp"

namespace py = pybind11;
namespace json = boost::json;
using namespace e2beval;

namespace e2beval::python {

LocalSandbox& sandbox_for(const std::string& python_executable, bool pool);
E2bSandbox& e2b_sandbox_for(const BackendConfig& config);  // bindings/python/e2b.cpp
const std::shared_ptr<SessionRegistry>& module_sessions();  // bindings/python/module.cpp
boost::json::object parse_object(const std::string& text, const char* what);  // bindings/python/module.cpp

namespace {

std::map<std::string, std::string> string_map(const json::object& object, const char* what) {
    std::map<std::string, std::string> map;
    for (const auto& [key, value] : object) {
        if (!value.is_string()) throw input_error(std::string(what) + " values must be strings; '" + std::string(key) + "' is not");
        map.emplace(std::string(key), std::string(value.as_string()));
    }
    return map;
}

double epoch_seconds(std::chrono::system_clock::time_point time) {
    return std::chrono::duration<double>(time.time_since_epoch()).count();
}

std::string info_json(const SessionInfo& info) {
    json::object metadata;
    for (const auto& [key, value] : info.metadata) metadata[key] = value;
    return to_json_text(json::object{{"sandbox_id", info.id},
                                        {"metadata", std::move(metadata)},
                                        {"started_at", epoch_seconds(info.started_at)},
                                        {"end_at", epoch_seconds(info.end_at)},
                                        {"alive", info.alive},
                                        {"host_pid", info.host_pid}});
}

// options: {"timeout_s", "limits": {...}, "isolation": {...}, "envs": {...}, "metadata": {...}, "template"}
// backend "local" (a sandbox on this machine) or "e2b" (a remote sandbox, through the process-wide E2bSandbox of
// the environment's E2B settings; on it `template` is an E2B template ID).
std::shared_ptr<Session> create_session(const std::string& options_json,
                                        const std::string& python_executable, const std::string& backend) {
    const auto object = parse_object(options_json, "session options");
    SessionOptions options;
    for (const auto& [key, value] : object) {
        if (key == "timeout_s") {
            if (!value.is_number() || value.to_number<double>() <= 0)
                throw input_error("timeout must be a positive number of seconds");
            options.timeout = std::chrono::milliseconds(static_cast<long long>(value.to_number<double>() * 1000.0));
        } else if (key == "limits") {
            if (!value.is_object()) throw input_error("limits must be a mapping");
            options.limits = limits_from_json(value.as_object(), options.limits);
        } else if (key == "isolation") {
            if (!value.is_object()) throw input_error("isolation must be a mapping");
            options.isolation = isolation_from_json(value.as_object(), options.isolation);
        } else if (key == "envs") {
            options.env = string_map(value.as_object(), "envs");
        } else if (key == "metadata") {
            options.metadata = string_map(value.as_object(), "metadata");
        } else if (key == "template") {
            if (!value.is_string()) throw input_error("template must be a string (a template's name)");
            options.template_name = std::string(value.as_string());
        } else {
            throw input_error("unknown session option '" + std::string(key) + "'");
        }
    }
    if (backend == "e2b") {
        BackendConfig config;
        config.backend = "e2b";
        auto session = e2b_sandbox_for(config).create_session(options);
        module_sessions()->add(session);  // Sandbox.connect/list/kill by id find it, as they find local ones
        return session;
    }
    if (backend != "local") throw input_error("unknown backend '" + backend + "'; use local or e2b");
    return sandbox_for(python_executable, false).create_session(options);
}

// Sends a request; calls `on_event(json_text)` for each streamed event; returns the final event's JSON.
// An exception raised by the callback stops further callbacks and is re-raised once the request ends.
// `request_timeout_s`: E2B's request_timeout (None: its default, 0: none); see Session::call.
std::string call(Session& session, const std::string& request_json, const py::object& on_event,
                 std::optional<double> request_timeout_s) {
    auto request = parse_object(request_json, "session request");
    std::optional<py::error_already_set> raised;
    SessionEventHandler handler;
    if (!on_event.is_none())
        handler = [&](const SessionEvent& event) {
            if (raised) return;
            const auto text = to_json_text(event);
            py::gil_scoped_acquire gil;
            try {
                on_event(text);
            } catch (py::error_already_set& failure) {
                raised.emplace(std::move(failure));
            }
        };
    std::optional<std::chrono::milliseconds> request_timeout;
    if (request_timeout_s) {
        if (!(*request_timeout_s >= 0)) throw input_error("request_timeout must be a number of seconds, 0 for none");
        request_timeout = std::chrono::milliseconds(static_cast<long long>(std::min(*request_timeout_s, 3.0e7) * 1000.0));
    }
    std::string final_event;
    {
        py::gil_scoped_release release;
        final_event = to_json_text(session.call(std::move(request), handler, request_timeout));
    }
    if (raised) throw std::move(*raised);
    return final_event;
}

}  // namespace

void bind_sessions(py::module_& m) {
    const auto release = py::call_guard<py::gil_scoped_release>();
    py::class_<Session, std::shared_ptr<Session>>(m, "Session")
        .def_property_readonly("id", &Session::id)
        .def("call", &call, py::arg("request_json"), py::arg("on_event") = py::none(),
             py::arg("request_timeout_s") = py::none())
        .def("interrupt", &Session::interrupt, release)
        .def("alive", &Session::alive, release)
        .def("info", [](const Session& session) { return info_json(session.info()); }, release)
        .def(
            "set_timeout",
            [](Session& session, double seconds) {
                if (seconds <= 0) throw input_error("timeout must be a positive number of seconds");
                session.set_timeout(std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0)));
            },
            py::arg("seconds"), release)
        .def("kill", &Session::kill, release);
    m.def("create_session", &create_session, py::arg("options_json"), py::arg("python_executable"),
          py::arg("backend") = "local", release);
    m.def(
        "list_sessions",
        [] {
            json::array rows;
            for (const auto& info : module_sessions()->list()) rows.push_back(json::parse(info_json(info)));
            return to_json_text(rows);
        },
        release);
    m.def(
        "ready_session_pids",
        [](const std::string& python_executable) { return sandbox_for(python_executable, false).ready_session_pids(); },
        py::arg("python_executable") = "", release);
    m.def("find_session", [](const std::string& id) { return module_sessions()->find(id); }, py::arg("sandbox_id"), release);
}

}  // namespace e2beval::python
