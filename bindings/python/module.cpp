// e2beval._core: the thin pybind11 layer. Arguments cross as Python values or JSON text, results come
// back as JSON text the package turns into dicts; blocking calls release the GIL; errors map to the
// e2beval.Error hierarchy.
#include <pybind11/pybind11.h>
#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include <fstream>
#include <map>
#include <memory>
#include <mutex>

#include <boost/json.hpp>

#include "e2beval/eval/batch.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/json.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/eval/answer.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/eval/multipl_e.hpp"
#include "e2beval/eval/assertion_options.hpp"
#include "e2beval/eval/json.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"
#include "e2beval/local/doctor.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/local/resident_compilers.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/report/report.hpp"
#include "e2beval/eval/runner.hpp"
#include "e2beval/analysis/safety.hpp"
#include "e2beval/core/text.hpp"
#include "e2beval/version.hpp"

namespace py = pybind11;
namespace json = boost::json;
using namespace e2beval;

namespace {

Language parse_language(const std::string& tag) {
    const auto language = language_from_tag(tag);
    if (!language) throw input_error("unknown language '" + tag + "'; use one of " + language_names_text());
    return *language;
}

// The policy arrives as JSON: a preset name ("standard") or {"preset", "allow_rules", ...}.
Policy parse_policy(const std::string& policy_json) {
    boost::system::error_code ec;
    const auto value = json::parse(policy_json, ec);
    if (ec) throw input_error("scanner policy must be a preset name or a mapping");
    return policy_from_json(value);
}

// One sandbox per interpreter and pool setting for the whole process, so its warm pool survives between
// calls (the zygotes die with the process).
LocalSandbox& shared_sandbox(const LocalSandboxOptions& options, const std::string& key) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<LocalSandbox>> sandboxes;
    std::lock_guard lock(mutex);
    auto& sandbox = sandboxes[key];
    if (!sandbox) sandbox = std::make_unique<LocalSandbox>(options);
    return *sandbox;
}

}  // namespace

namespace e2beval::python {

// The interpreter running this module, read at import (PYBIND11_MODULE) with the same discovery script the
// host probe runs in other interpreters.
std::optional<InterpreterInfo>& this_interpreter_slot() {
    static std::optional<InterpreterInfo> info;
    return info;
}

const InterpreterInfo& this_interpreter() {
    if (!this_interpreter_slot()) throw sandbox_error("e2beval._core was not initialised (this interpreter is unknown)");
    return *this_interpreter_slot();
}

// The module's sessions, whichever interpreter's sandbox started them: Sandbox.list() and connect() see all.
const std::shared_ptr<SessionRegistry>& module_sessions() {
    static const auto registry = std::make_shared<SessionRegistry>();
    return registry;
}

}  // namespace e2beval::python

namespace {

LocalSandboxOptions sandbox_options(const std::string& python_executable) {
    LocalSandboxOptions options;
    options.sessions = e2beval::python::module_sessions();
    options.python_executable = python_executable;
    // No interpreter named (the `python` option) and none in $E2BEVAL_PYTHON: the one running this module, as
    // read when it was imported, so no process has to be started to ask it.
    const char* from_env = std::getenv("E2BEVAL_PYTHON");
    if (python_executable.empty() && !(from_env && *from_env)) options.python_info = e2beval::python::this_interpreter();
    return options;
}

}  // namespace

namespace e2beval::python {

void bind_sessions(py::module_& m);  // bindings/python/session.cpp
void bind_swe(py::module_& m);       // bindings/python/swe.cpp
void bind_result_check(py::module_& m);  // bindings/python/result_check.cpp
void bind_e2b(py::module_& m);       // bindings/python/e2b.cpp
E2bSandbox& e2b_sandbox_for(const BackendConfig& config);  // bindings/python/e2b.cpp

json::object parse_object(const std::string& text, const char* what) {
    boost::system::error_code ec;
    auto value = json::parse(text, ec);
    if (ec || !value.is_object()) throw input_error(std::string(what) + " must be a JSON object");
    return std::move(value.get_object());
}

ExecRequest exec_request_from_python(const std::string& code, const std::string& language, const std::string& stdin_data,
                                     const std::map<std::string, std::string>& env, const std::string& limits_json,
                                     const std::string& isolation_json, const std::string& template_name) {
    ExecRequest request;
    request.template_name = template_name;
    request.code = code;
    request.language = parse_language(language);
    request.stdin_data = stdin_data;
    request.env = env;
    request.limits = limits_from_json(parse_object(limits_json, "limits"));
    request.isolation = isolation_from_json(parse_object(isolation_json, "isolation"));
    return request;
}

LocalSandbox& sandbox_for(const std::string& python_executable, bool pool) {
    auto options = sandbox_options(python_executable);
    options.pool.enabled = pool;
    const char* from_env = std::getenv("E2BEVAL_PYTHON");
    return shared_sandbox(options, python_executable + "\n" + (from_env ? from_env : "") + "\n" + (pool ? "warm" : "cold"));
}

}  // namespace e2beval::python

namespace {

using e2beval::python::parse_object;

using e2beval::python::sandbox_for;

std::string extract_json(const std::string& output, std::optional<std::string> function_name, const std::string& language,
                         bool keep_main, bool keep_examples) {
    ExtractOptions options;
    options.function_name = std::move(function_name);
    options.language = parse_language(language);
    options.keep_main = keep_main;
    options.keep_examples = keep_examples;
    return to_json_text(to_json(CodeExtractor(options).extract(output)));
}

// A MultiPL-E row (its JSON) and one answer -> the program to judge, as JSON (eval/assembly.hpp).
std::string assemble_multipl_e_json(const std::string& row_json, const std::string& answer, const std::string& kind) {
    require_clean_text(answer, "answer");
    const auto parsed_kind = answer_kind_from_string(kind);
    if (!parsed_kind) throw input_error("kind must be 'continuation', 'freeform' or 'auto', got '" + kind + "'");
    const auto task = multipl_e_task_from_json(parse_object(row_json, "row"));
    const auto program = assemble_multipl_e(task, answer, *parsed_kind);
    return to_json_text(json::object{{"task_id", task.task_id},
                                     {"language", std::string(to_string(program.language))},
                                     {"entry_point", multipl_e_entry_point(task)},
                                     {"source", program.source},
                                     {"file_name", program.file_name},
                                     {"main_class", program.main_class},
                                     {"kind", std::string(to_string(program.kind))},
                                     {"explanation", program.explanation}});
}

std::string scan_json(const std::string& code, const std::string& language, const std::string& policy) {
    require_clean_text(code, "code");
    const auto findings = SafetyScanner(parse_policy(policy)).scan(code, parse_language(language));
    return to_json_text(json::object{{"blocked", SafetyScanner::blocks(findings)}, {"findings", to_json(findings)}});
}

std::string execute_json(const std::string& code, const std::string& language, const std::string& stdin_data,
                         const std::map<std::string, std::string>& env, const std::string& limits_json,
                         const std::string& isolation_json,
                         const std::string& python_executable, bool pool, const std::string& template_name,
                         const std::string& compile_limits_json) {
    auto request = e2beval::python::exec_request_from_python(code, language, stdin_data, env, limits_json, isolation_json,
                                                             template_name);
    // A compiled language's compile stage: the language's defaults, with what the caller sets on top.
    if (!compile_limits_json.empty())
        request.compile_limits = limits_from_json(parse_object(compile_limits_json, "compile_limits"),
                                                  describe(request.language).compile_limits);
    LocalSandbox& sandbox = sandbox_for(python_executable, pool);
    return to_json_text(to_json(sandbox.execute(request)));
}

std::string rules_json() {
    json::array rows;
    for (const auto& rule : SafetyScanner::rules()) rows.push_back(to_json(rule));
    return to_json_text(rows);
}

// The compare override as JSON text: a mode name or {mode, tolerance, relative_tolerance, pattern}; empty: none.
std::optional<CompareMode> compare_option(const std::string& compare_json) {
    if (compare_json.empty()) return std::nullopt;
    boost::system::error_code ec;
    const auto value = json::parse(compare_json, ec);
    if (ec) throw input_error("compare must be a mode name or a mapping");
    return compare_mode_from_json(value);
}

// The sandbox an evaluation runs in, as execute() chooses it: the local one (shared per interpreter and pool
// setting), or E2B's (settings from the environment; `template_name` an E2B template ID there).
Sandbox& evaluation_sandbox(const std::string& backend, const std::string& template_name, const std::string& python_executable,
                            bool pool) {
    if (backend == "local") return sandbox_for(python_executable, pool);
    if (backend == "e2b") {
        BackendConfig config;
        config.backend = "e2b";
        config.e2b_template = template_name;
        return e2beval::python::e2b_sandbox_for(config);
    }
    throw input_error("backend must be 'local' or 'e2b', got '" + backend + "'");
}

std::string evaluate_json(const std::string& output, const std::string& vars_json, const std::string& policy, bool scan,
                          bool keep_main, bool keep_examples,
                          const std::string& limits_json, const std::string& isolation_json,
                          const std::string& python_executable, bool pool,
                          const std::string& compare_json, const std::string& backend, const std::string& template_name) {
    const auto spec = TestSpec::from_vars_json(vars_json);
    RunnerOptions options;
    options.policy = parse_policy(policy);
    options.scan = scan;
    options.keep_main = keep_main;
    options.keep_examples = keep_examples;
    options.limits = limits_from_json(parse_object(limits_json, "limits"));
    options.isolation = isolation_from_json(parse_object(isolation_json, "isolation"));
    options.compare = compare_option(compare_json);
    options.template_name = template_name;
    Sandbox& sandbox = evaluation_sandbox(backend, template_name, python_executable, pool);
    return to_json_text(to_json(Runner(sandbox, options).evaluate(output, spec)));
}

ExecRequest request_from_json(const json::object& item, const Limits& limits, const IsolationProfile& isolation) {
    ExecRequest request;
    request.limits = limits;
    request.isolation = isolation;
    for (const auto& [key, value] : item) {
        if (key == "code") request.code = std::string(value.as_string());
        else if (key == "language") request.language = parse_language(std::string(value.as_string()));
        else if (key == "stdin") request.stdin_data = std::string(value.as_string());
        else if (key == "env")
            for (const auto& [name, text] : value.as_object()) request.env[std::string(name)] = std::string(text.as_string());
        else if (key == "limits") request.limits = limits_from_json(value.as_object(), limits);
        else if (key == "compile_limits") request.compile_limits = limits_from_json(value.as_object(), describe(request.language).compile_limits);
        else throw input_error("unknown request field '" + std::string(key) + "'; valid: code, language, stdin, env, limits, compile_limits");
    }
    return request;
}

std::string execute_many_json(const std::string& requests_json, std::size_t jobs, const std::string& limits_json,
                              const std::string& isolation_json,
                              const std::string& python_executable, bool pool) {
    boost::system::error_code ec;
    const auto value = json::parse(requests_json, ec);
    if (ec || !value.is_array()) throw input_error("requests must be a list");
    const auto limits = limits_from_json(parse_object(limits_json, "limits"));
    const auto isolation = isolation_from_json(parse_object(isolation_json, "isolation"));
    std::vector<ExecRequest> requests;
    std::vector<std::string> refused(value.get_array().size());
    for (std::size_t i = 0; i < value.get_array().size(); ++i) {
        try {
            requests.push_back(request_from_json(value.get_array()[i].as_object(), limits, isolation));
        } catch (const std::exception& failure) {
            refused[i] = failure.what();
            requests.emplace_back();  // placeholder, replaced below
        }
    }
    LocalSandbox& sandbox = sandbox_for(python_executable, pool);
    BatchOptions options;
    options.jobs = jobs;
    auto results = execute_many(sandbox, requests, options);
    json::array out;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!refused[i].empty()) {
            results[i] = ExecResult{};
            results[i].outcome = Outcome::sandbox_error;
            results[i].detail = "invalid request: " + refused[i];
        }
        out.push_back(to_json(results[i]));
    }
    return to_json_text(out);
}

std::string evaluate_many_json(const std::string& items_json, std::size_t jobs, const std::string& policy, bool scan,
                               const std::string& limits_json, const std::string& isolation_json,
                               const std::string& python_executable, bool pool,
                               const std::string& compare_json, const std::string& backend, const std::string& template_name) {
    // Python's json module writes a lone surrogate of an answer or vars as \udcff: read as its bytes, so the one
    // item that holds it fails alone (an answer: the Runner's verdict; vars: an invalid test), not the batch.
    boost::system::error_code ec;
    const auto value = parse_json(items_json, LoneSurrogates::as_wtf8, ec);
    if (ec || !value.is_array()) throw input_error("items must be a list");
    RunnerOptions options;
    options.policy = parse_policy(policy);
    options.scan = scan;
    options.limits = limits_from_json(parse_object(limits_json, "limits"));
    options.isolation = isolation_from_json(parse_object(isolation_json, "isolation"));
    options.compare = compare_option(compare_json);
    options.template_name = template_name;
    // An item whose vars describe no test fails alone, with the reason; the rest still run.
    std::vector<EvaluationItem> items;
    std::vector<std::size_t> positions;
    std::vector<std::string> invalid(value.get_array().size());
    for (std::size_t i = 0; i < value.get_array().size(); ++i) {
        const auto& item = value.get_array()[i].as_object();
        try {
            if (const auto bad = find_invalid_text(item.at("vars"), "vars"))
                throw input_error(bad->path + " holds " + bad->shown +
                                  ", a lone surrogate: no Unicode character, so not text a test can use; replace it");
            items.push_back({std::string(item.at("output").as_string()), TestSpec::from_vars(item.at("vars").as_object())});
            positions.push_back(i);
        } catch (const std::exception& failure) {
            invalid[i] = failure.what();
        }
    }
    Sandbox& sandbox = evaluation_sandbox(backend, template_name, python_executable, pool);
    BatchOptions batch;
    batch.jobs = jobs;
    auto verdicts = evaluate_many(sandbox, options, items, batch);
    std::vector<json::value> out(invalid.size());
    for (std::size_t k = 0; k < verdicts.size(); ++k) out[positions[k]] = to_json(verdicts[k]);
    for (std::size_t i = 0; i < invalid.size(); ++i) {
        if (invalid[i].empty()) continue;
        Verdict failed;
        failed.reason = "Invalid test: " + invalid[i];
        out[i] = to_json(failed);
    }
    return to_json_text(json::array(out.begin(), out.end()));
}

// A Python value as JSON, converted once here so that the core checks the value the user wrote (a YAML
// `config:` as promptfoo hands it over). bool before int: Python's True is an int too.
json::value json_from_python(py::handle value) {
    if (value.is_none()) return nullptr;
    if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
    if (py::isinstance<py::int_>(value)) {
        try {
            return value.cast<std::int64_t>();
        } catch (const py::cast_error&) {
            return py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(value)));
        }
    }
    if (py::isinstance<py::float_>(value)) return value.cast<double>();
    if (py::isinstance<py::str>(value)) return json::string(value.cast<std::string>());
    if (py::isinstance<py::dict>(value)) {
        json::object object;
        for (const auto& [key, item] : value.cast<py::dict>()) object[py::str(key).cast<std::string>()] = json_from_python(item);
        return object;
    }
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
        json::array array;
        for (const auto& item : value) array.push_back(json_from_python(item));
        return array;
    }
    throw config_error("a config value of type " + py::str(py::type::of(value).attr("__name__")).cast<std::string>() +
                       " cannot be read; use true/false, numbers, strings, lists and mappings");
}

// The backend a config's `backend:` names (E2B's settings come from the environment, as the SDKs read them).
Sandbox& configured_sandbox(const AssertionOptions& config) {
    if (config.backend == "e2b") {
        BackendConfig backend;
        backend.backend = "e2b";
        backend.e2b_template = config.runner.template_name;  // on E2B, an E2B template ID
        return e2beval::python::e2b_sandbox_for(backend);
    }
    return sandbox_for(config.python_executable, true);
}

// Evaluates with a promptfoo assertion's checked `config:` (eval/assertion_options.hpp); returns {verdict, record}.
std::string evaluate_configured_json(const std::string& output, const std::string& vars_json, const AssertionOptions& config) {
    const auto spec = TestSpec::from_vars(vars_with_defaults(vars_from_json(vars_json), config));
    Sandbox& sandbox = configured_sandbox(config);
    const auto verdict = Runner(sandbox, config.runner).evaluate(output, spec);
    // The metrics record every face writes for a verdict (eval/metrics.hpp).
    return to_json_text(json::object{{"verdict", to_json(verdict)}, {"record", to_json(metrics_record(verdict))}});
}

// Runs a prompt as a model's answer with a promptfoo provider's checked `config:` (call_api's pipeline).
std::string run_answer_configured_json(const std::string& output, const AssertionOptions& config) {
    Sandbox& sandbox = configured_sandbox(config);
    return to_json_text(to_json(run_answer(sandbox, output, answer_options(config))));
}

std::string write_metrics_json(const std::string& record_json, const std::string& directory) {
    const auto record = metrics_from_json(parse_object(record_json, "metrics record"));
    return MetricsSink(directory.empty() ? default_results_dir() : std::filesystem::path(directory)).write(record).string();
}

// `input`: a metrics directory or promptfoo's -o JSON (empty: $PROMPTFOO_RESULTS_DIR); `format`: md, html, json, junit.
ReportFormat report_format(const std::string& name) {
    const auto format = report_format_from_string(name);
    if (!format) throw input_error("report format must be md, html, json or junit, got '" + name + "'");
    return *format;
}

// `run`: a run id, or empty for the latest run (every run when `all_runs`).
RunSelection run_selection(const std::string& run, bool all_runs) {
    if (!run.empty() && all_runs) throw input_error("give run=ID or all_runs=True, not both");
    if (!run.empty()) return RunSelection::one(run);
    return all_runs ? RunSelection::all() : RunSelection::latest();
}

std::size_t write_report_file(const std::string& input, const std::string& output, const std::string& format,
                              const std::string& run, bool all_runs) {
    return write_report(input.empty() ? default_results_dir() : std::filesystem::path(input), output, report_format(format),
                        run_selection(run, all_runs));
}

std::string render_report_text(const std::string& input, const std::string& format, const std::string& run, bool all_runs) {
    return render_report(load_report_input(input.empty() ? default_results_dir() : std::filesystem::path(input),
                                           run_selection(run, all_runs)),
                         report_format(format));
}

}  // namespace

void warm_up(std::size_t zygotes, const std::string& isolation_json,
             const std::string& python_executable) {
    sandbox_for(python_executable, true).warm_up(zygotes, isolation_from_json(parse_object(isolation_json, "isolation")));
}

// The live zygotes: their interpreter's host pid (a child of the sandbox's init) and resident memory.
std::string pool_info_json(const std::string& python_executable) {
    json::array zygotes;
    for (const int init : sandbox_for(python_executable, true).zygote_pids()) {
        std::ifstream children("/proc/" + std::to_string(init) + "/task/" + std::to_string(init) + "/children");
        int zygote = 0;
        children >> zygote;
        std::uint64_t rss_kib = 0;
        std::ifstream status("/proc/" + std::to_string(zygote) + "/status");
        for (std::string line; std::getline(status, line);)
            if (line.rfind("VmRSS:", 0) == 0) rss_kib = std::stoull(line.substr(6));
        zygotes.push_back(json::object{{"pid", zygote}, {"init_pid", init}, {"rss_bytes", rss_kib * 1024}});
    }
    return to_json_text(zygotes);
}

std::string resident_compilers_json() {
    json::array services;
    for (const auto& service : resident_compilers())
        services.push_back(json::object{{"language", service.language}, {"pid", service.pid}, {"compiles", service.compiles}});
    return to_json_text(services);
}

std::string doctor_json(const std::string& python_executable) {
    return to_json_text(to_json(diagnose_host(sandbox_options(python_executable))));
}

PYBIND11_MODULE(_core, m) {
    m.doc() = "e2beval's compiled core; use the public `e2beval` package instead.";
    // The version the core was compiled with (include/e2beval/version.hpp, the one place it is written).
    m.attr("__version__") = E2BEVAL_VERSION;

    {
        // Where this interpreter lives, asked in-process: promptfoo starts a Python per assertion, and starting
        // one more only to ask it would double that cost.
        py::dict scope;
        py::object report = py::module_::import("io").attr("StringIO")();
        py::object saved = py::module_::import("sys").attr("stdout");
        py::module_::import("sys").attr("stdout") = report;
        try {
            py::exec(std::string(python_discovery_script()), scope);
        } catch (...) {
            py::module_::import("sys").attr("stdout") = saved;
            throw;
        }
        py::module_::import("sys").attr("stdout") = saved;
        e2beval::python::this_interpreter_slot() = interpreter_from_discovery(report.attr("getvalue")().cast<std::string>());
    }

    static py::exception<error> base(m, "Error", PyExc_RuntimeError);
    static py::exception<input_error> input(m, "InputError", base.ptr());
    static py::exception<config_error> config(m, "ConfigError", input.ptr());
    static py::exception<unknown_template_error> unknown_template(m, "UnknownTemplateError", input.ptr());
    static py::exception<extraction_error> extraction(m, "ExtractionError", base.ptr());
    static py::exception<sandbox_error> sandbox(m, "SandboxError", base.ptr());
    static py::exception<io_error> io(m, "IOError", base.ptr());
    py::register_exception_translator([](std::exception_ptr pointer) {
        try {
            if (pointer) std::rethrow_exception(pointer);
        } catch (const config_error& failure) {
            py::set_error(config, failure.what());
        } catch (const unknown_template_error& failure) {
            py::set_error(unknown_template, failure.what());
        } catch (const input_error& failure) {
            py::set_error(input, failure.what());
        } catch (const extraction_error& failure) {
            py::set_error(extraction, failure.what());
        } catch (const sandbox_error& failure) {
            py::set_error(sandbox, failure.what());
        } catch (const io_error& failure) {
            py::set_error(io, failure.what());
        } catch (const error& failure) {
            py::set_error(base, failure.what());
        }
    });

    const auto release = py::call_guard<py::gil_scoped_release>();
    m.def("extract", &extract_json, py::arg("output"), py::arg("function_name"), py::arg("language"),
          py::arg("keep_main"), py::arg("keep_examples"), release);
    m.def("rules", &rules_json, release);
    m.def("assemble_multipl_e", &assemble_multipl_e_json, py::arg("row_json"), py::arg("answer"), py::arg("kind"), release);
    m.def("scan", &scan_json, py::arg("code"), py::arg("language"), py::arg("policy"), release);
    m.def("execute", &execute_json, py::arg("code"), py::arg("language"), py::arg("stdin"), py::arg("env"),
          py::arg("limits_json"), py::arg("isolation_json"), py::arg("python_executable"),
          py::arg("pool"), py::arg("template_name") = "", py::arg("compile_limits_json") = "", release);
    m.def("limit_keys", [] { return std::vector<std::string>(limit_keys().begin(), limit_keys().end()); });
    m.def("isolation_keys", [] { return std::vector<std::string>(isolation_keys().begin(), isolation_keys().end()); });
    // A promptfoo assertion's or provider's `config:`, checked once in C++ (eval/assertion_options.hpp); the
    // object it becomes is what evaluate_configured and run_answer_configured take.
    py::class_<AssertionOptions>(m, "AssertionConfig")
        .def_readonly("metrics", &AssertionOptions::metrics)
        .def_property_readonly("results_dir", [](const AssertionOptions& options) {
            return options.results_dir.empty() ? std::optional<std::string>() : options.results_dir;
        });
    m.def("read_assertion_config", [](py::handle config) { return assertion_options_from_json(json_from_python(config)); },
          py::arg("config"));
    m.def("read_provider_config", [](py::handle config) { return provider_options_from_json(json_from_python(config)); },
          py::arg("config"));
    m.def("assertion_config_keys",
          [] { return std::vector<std::string>(assertion_option_keys().begin(), assertion_option_keys().end()); });
    m.def("assertion_metrics_settings", [](py::handle config) {
        // Lenient: a config the checks refused may hold what cannot become JSON; its settings are then the defaults.
        json::value value;
        try {
            value = json_from_python(config);
        } catch (const config_error&) {
        }
        const auto settings = metrics_settings_from_json(value);
        return py::make_tuple(settings.metrics,
                              settings.results_dir.empty() ? py::object(py::none()) : py::object(py::str(settings.results_dir)));
    }, py::arg("config"));
    m.def("evaluate_configured", &evaluate_configured_json, py::arg("output"), py::arg("vars_json"), py::arg("config"),
          release);
    m.def("run_answer_configured", &run_answer_configured_json, py::arg("output"), py::arg("config"), release);
    m.def("evaluate", &evaluate_json, py::arg("output"), py::arg("vars_json"), py::arg("policy"), py::arg("scan"),
          py::arg("keep_main"), py::arg("keep_examples"),
          py::arg("limits_json"), py::arg("isolation_json"), py::arg("python_executable"),
          py::arg("pool"), py::arg("compare_json") = "", py::arg("backend") = "local", py::arg("template_name") = "", release);
    m.def("execute_many", &execute_many_json, py::arg("requests_json"), py::arg("jobs"), py::arg("limits_json"),
          py::arg("isolation_json"), py::arg("python_executable"), py::arg("pool"), release);
    m.def("evaluate_many", &evaluate_many_json, py::arg("items_json"), py::arg("jobs"), py::arg("policy"), py::arg("scan"),
          py::arg("limits_json"), py::arg("isolation_json"), py::arg("python_executable"),
          py::arg("pool"), py::arg("compare_json") = "", py::arg("backend") = "local", py::arg("template_name") = "", release);
    m.def("warm_up", &warm_up, py::arg("zygotes"), py::arg("isolation_json"), py::arg("python_executable"), release);
    m.def("pool_info", &pool_info_json, py::arg("python_executable"), release);
    m.def("doctor", &doctor_json, py::arg("python_executable"), release);
    m.def("resident_compilers", &resident_compilers_json, release);
    m.def("end_resident_compilers", &end_resident_compilers, release);
    m.def("error_record", [](const std::string& outcome, const std::string& reason) {
        return to_json_text(to_json(error_record(outcome, reason)));
    }, py::arg("outcome"), py::arg("reason"));
    m.def("write_metrics", &write_metrics_json, py::arg("record_json"), py::arg("directory"), release);
    m.def("write_report", &write_report_file, py::arg("input"), py::arg("output"), py::arg("format"), py::arg("run") = "",
          py::arg("all_runs") = false, release);
    m.def("render_report", &render_report_text, py::arg("input"), py::arg("format"), py::arg("run") = "",
          py::arg("all_runs") = false, release);
    e2beval::python::bind_sessions(m);
    e2beval::python::bind_swe(m);
    e2beval::python::bind_result_check(m);
    e2beval::python::bind_e2b(m);
}
