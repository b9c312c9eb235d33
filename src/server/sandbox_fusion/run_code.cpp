// SandboxFusion's /run_code over e2beval's local sandbox: the request becomes one ExecRequest (compile stage and
// run stage in one execution), the ExecResult becomes SandboxFusion's RunCodeResponse by its own rules
// (parse_run_status in sandbox/server/sandbox_api.py). docs/sandbox-fusion.md.
#include "server/sandbox_fusion/run_code.hpp"

#include <cmath>
#include <cstdlib>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "core/base64.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/core/text.hpp"
#include "server/sandbox_fusion/fair_queue.hpp"
#include "server/sandbox_fusion/languages.hpp"
#include "server/sandbox_fusion/requests.hpp"
#include "server/server_context.hpp"

namespace e2beval::server::sandbox_fusion {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::chrono::milliseconds whole_milliseconds(double seconds) {
    return std::chrono::milliseconds(std::max<long long>(1, static_cast<long long>(std::ceil(seconds * 1000))));
}

double seconds_of(std::chrono::nanoseconds time) { return std::chrono::duration<double>(time).count(); }

// SandboxFusion's return code for a process that ended: its exit status, or -N for signal N (asyncio's convention).
int return_code(int exit_code, int signal) {
    if (signal > 0) return -signal;
    return exit_code >= 0 ? exit_code : -9;
}

ExecRequest exec_request(const ServerContext& context, const RunCodeRequest& request, const ServedLanguage& served) {
    const auto& options = context.options.sandbox_fusion;
    ExecRequest exec;
    for (const auto& [path, bytes] : request.files) exec.files.push_back({path, bytes, 0644});
    shape_program(served, request.code, exec);
    exec.stdin_data = request.stdin_data.value_or("");
    // The run stage: SandboxFusion's run_timeout is wall-clock time; the CPU time may not pass it either (with the
    // CPU quota of one CPU it cannot).
    exec.limits.wall_time = whole_milliseconds(request.run_timeout);
    exec.limits.cpu_time = exec.limits.wall_time;
    exec.limits.memory_bytes = request.memory_limit_mb > 0 ? static_cast<std::uint64_t>(request.memory_limit_mb) << 20
                                                           : options.default_memory_bytes;
    exec.limits.cpus = context.options.session_defaults.limits.cpus;
    // The compile stage keeps its language's limits (memory, processes: a compiler needs more than most programs)
    // but for SandboxFusion's compile_timeout.
    if (describe(exec.language).compiled()) {
        Limits compile = describe(exec.language).compile_limits;
        compile.wall_time = whole_milliseconds(request.compile_timeout);
        compile.cpu_time = std::max(compile.cpu_time, compile.wall_time);
        compile.cpus = exec.limits.cpus;
        exec.compile_limits = compile;
    }
    for (const auto& name : request.fetch_files) {
        const auto path = workspace_path(name);
        if (!path.empty() && std::find(exec.collect.begin(), exec.collect.end(), path) == exec.collect.end())
            exec.collect.push_back(path);
    }
    return exec;
}

CommandRunResult finished(int exit_code, int signal, std::chrono::nanoseconds wall, std::string_view out, std::string_view err) {
    CommandRunResult result;
    result.status = "Finished";
    result.execution_time = seconds_of(wall);
    result.return_code = return_code(exit_code, signal);
    result.stdout_data = to_valid_utf8(out);
    result.stderr_data = to_valid_utf8(err);
    return result;
}

CommandRunResult time_limit_exceeded(std::chrono::nanoseconds wall, std::string_view out, std::string_view err) {
    CommandRunResult result;
    result.status = "TimeLimitExceeded";
    result.execution_time = seconds_of(wall);
    result.stdout_data = to_valid_utf8(out);
    result.stderr_data = to_valid_utf8(err);
    return result;
}

CommandRunResult sandbox_failure(std::string_view detail) {
    CommandRunResult result;
    result.status = "Error";
    result.stdout_data = "";
    result.stderr_data = to_valid_utf8(detail);
    return result;
}

std::optional<CommandRunResult> compile_stage(const CompileResult& compile) {
    switch (compile.outcome) {
        case Outcome::compile_timeout:
            return time_limit_exceeded(compile.wall_time, compile.stdout_data, compile.stderr_data);
        case Outcome::sandbox_error:
            return sandbox_failure(compile.detail);
        case Outcome::cancelled:
            return std::nullopt;
        case Outcome::compile_memory_limit:
            // Killed by the memory cgroup (SIGKILL); a compiler that noticed first exited non-zero itself.
            return finished(compile.exit_code, compile.exit_code > 0 ? 0 : (compile.signal > 0 ? compile.signal : 9),
                            compile.wall_time, compile.stdout_data, compile.stderr_data);
        default: {
            auto result = finished(compile.exit_code, compile.signal, compile.wall_time, compile.stdout_data, compile.stderr_data);
            // A compile that failed with status 0 would read as a success to every client: never report one.
            if (compile.outcome != Outcome::ok && result.return_code == 0) result.return_code = 1;
            return result;
        }
    }
}

CommandRunResult run_stage(const ExecResult& run) {
    switch (run.outcome) {
        case Outcome::timeout:
        case Outcome::cpu_limit:
            return time_limit_exceeded(run.wall_time, run.stdout_data, run.stderr_data);
        case Outcome::sandbox_error:
            return sandbox_failure(run.detail);
        case Outcome::memory_limit:
        case Outcome::output_limit:
        case Outcome::pids_limit:
        case Outcome::file_limit:
            // The sandbox killed the tree (SIGKILL) unless the program ended on its own first.
            return finished(run.exit_code, run.signal > 0 ? run.signal : (run.exit_code >= 0 ? 0 : 9), run.wall_time,
                            run.stdout_data, run.stderr_data);
        default:
            return finished(run.exit_code, run.signal, run.wall_time, run.stdout_data, run.stderr_data);
    }
}

// SandboxFusion's parse_run_status: an Error anywhere is SandboxError (its stderr the message); else a time
// limit or a non-zero return code is Failed; else Success.
void set_status(RunCodeResponse& response) {
    std::vector<const CommandRunResult*> results;
    if (response.compile_result) results.push_back(&*response.compile_result);
    if (response.run_result) results.push_back(&*response.run_result);
    for (const auto* result : results)
        if (result->status == "Error") {
            response.status = "SandboxError";
            response.message = result->stderr_data.value_or("");
            return;
        }
    for (const auto* result : results)
        if (result->status == "TimeLimitExceeded" || result->return_code.value_or(0) != 0) {
            response.status = "Failed";
            return;
        }
    response.status = "Success";
}

// The fetched files under the caps: a file over the per-file cap, or past the total, is left out (as a missing
// file is) and the message says which, and which option raises the cap.
void fetch_files(const ServerOptions::SandboxFusion& options, const RunCodeRequest& request, ExecResult& exec,
                 RunCodeResponse& response) {
    std::uint64_t total = 0;
    std::string notes;
    for (const auto& name : request.fetch_files) {
        const auto path = workspace_path(name);
        const auto found = std::find_if(exec.collected.begin(), exec.collected.end(),
                                        [&](const WorkspaceFile& file) { return file.path == path; });
        if (found == exec.collected.end()) continue;
        const auto size = found->data.size();
        if (size > options.fetch_file_bytes) {
            notes += (notes.empty() ? "" : "; ") + std::string("fetch_files: '") + name + "' (" + std::to_string(size) +
                     " bytes) is larger than the " + std::to_string(options.fetch_file_bytes) +
                     " bytes a fetched file may have, so it was left out (e2beval serve --sandbox-fusion-fetch-file-mb)";
            continue;
        }
        if (total + size > options.fetch_total_bytes) {
            notes += (notes.empty() ? "" : "; ") + std::string("fetch_files: '") + name +
                     "' was left out: the fetched files together would pass " + std::to_string(options.fetch_total_bytes) +
                     " bytes (e2beval serve --sandbox-fusion-fetch-total-mb)";
            continue;
        }
        total += size;
        response.files[name] = found->data;
    }
    if (!notes.empty()) response.message += (response.message.empty() ? "" : "; ") + notes;
}

RunCodeResponse unsupported_language(const std::string& language) {
    RunCodeResponse response;
    response.status = "SandboxError";
    response.message = "e2beval serve does not run the language '" + language + "'; it runs: " + served_language_names() +
                       " (docs/sandbox-fusion.md)";
    return response;
}

// The response for an execution's outcome. A plain function, not part of the coroutine: GCC 12 mishandles some
// temporaries in coroutines (src/server/server.cpp's too_large_response).
RunCodeResponse response_of(const ServerOptions::SandboxFusion& options, const RunCodeRequest& request,
                            const boost::system::error_code& ec, ExecResult& result) {
    RunCodeResponse response;
    if (result.compile) response.compile_result = compile_stage(*result.compile);
    const bool compile_failed = result.compile && result.compile->outcome != Outcome::ok;
    if (ec && !compile_failed) {
        response.run_result = sandbox_failure(result.detail.empty() ? ec.message() : result.detail);
    } else if (!compile_failed) {
        response.run_result = run_stage(result);
        // What the sandbox stopped (memory, output, processes, file size) is said in the message, for people.
        if (result.outcome == Outcome::memory_limit || result.outcome == Outcome::output_limit ||
            result.outcome == Outcome::pids_limit || result.outcome == Outcome::file_limit)
            response.message = result.detail;
    }
    set_status(response);
    if (response.status != "SandboxError") fetch_files(options, request, result, response);
    return response;
}

}  // namespace

json::object to_json(const CommandRunResult& result) {
    json::object object;
    object["status"] = result.status;
    object["execution_time"] = result.execution_time ? json::value(*result.execution_time) : json::value(nullptr);
    object["return_code"] = result.return_code ? json::value(*result.return_code) : json::value(nullptr);
    object["stdout"] = result.stdout_data ? json::value(*result.stdout_data) : json::value(nullptr);
    object["stderr"] = result.stderr_data ? json::value(*result.stderr_data) : json::value(nullptr);
    return object;
}

json::object to_json(const RunCodeResponse& response) {
    json::object object;
    object["status"] = response.status;
    object["message"] = to_valid_utf8(response.message);
    object["compile_result"] = response.compile_result ? json::value(to_json(*response.compile_result)) : json::value(nullptr);
    object["run_result"] = response.run_result ? json::value(to_json(*response.run_result)) : json::value(nullptr);
    // SandboxFusion reports its pod's name from $MY_POD_NAME (null when unset, as on a local server).
    const char* pod = std::getenv("MY_POD_NAME");
    object["executor_pod_name"] = pod ? json::value(pod) : json::value(nullptr);
    json::object files;
    for (const auto& [name, bytes] : response.files) files[name] = base64_encode(bytes);
    object["files"] = std::move(files);
    return object;
}

asio::awaitable<RunCodeResponse> run_code(ServerContext& context, RunCodeRequest request, std::string client) {
    const auto served = served_language(request.language);
    if (!served) co_return unsupported_language(request.language);
    auto exec = exec_request(context, request, *served);
    // Waits its turn (throws QueueFull at once when the queue is full, or when the client goes away meanwhile).
    auto slot = co_await context.sandbox_fusion_queue->acquire(std::move(client));
    auto [ec, result] = co_await context.backend->async_execute(std::move(exec), asio::as_tuple(asio::use_awaitable));
    if (ec == asio::error::operation_aborted) throw boost::system::system_error(ec, "the client went away");
    co_return response_of(context.options.sandbox_fusion, request, ec, result);
}

}  // namespace e2beval::server::sandbox_fusion
