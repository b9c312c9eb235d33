// SandboxFusion's /run_code as value types and one awaitable call, shared by the route (routes.cpp) and the
// dataset API's /submit (submit.cpp). Shapes: SandboxFusion's RunCodeRequest / RunCodeResponse /
// CommandRunResult (sandbox/server/sandbox_api.py, sandbox/runners/types.py; docs/sandbox-fusion.md).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

namespace e2beval::server {
struct ServerContext;
}

namespace e2beval::server::sandbox_fusion {

struct RunCodeRequest {
    std::string code;
    std::string language;         // SandboxFusion's name: "python", "cpp", "nodejs", "go_test", ...
    double compile_timeout = 10;  // seconds of wall-clock time
    double run_timeout = 10;
    long memory_limit_mb = -1;    // -1: the server's default (docs/sandbox-fusion.md)
    std::optional<std::string> stdin_data;
    std::map<std::string, std::string> files;  // workspace path -> decoded bytes (already base64-decoded)
    std::vector<std::string> fetch_files;
};

// One stage's result: status "Finished", "Error" or "TimeLimitExceeded".
struct CommandRunResult {
    std::string status = "Finished";
    std::optional<double> execution_time;  // wall seconds
    std::optional<int> return_code;        // -N for a signal; absent on TimeLimitExceeded and Error
    std::optional<std::string> stdout_data;
    std::optional<std::string> stderr_data;
};

struct RunCodeResponse {
    std::string status = "Success";  // "Success", "Failed" or "SandboxError"
    std::string message;
    std::optional<CommandRunResult> compile_result;
    std::optional<CommandRunResult> run_result;
    std::map<std::string, std::string> files;  // requested path -> raw bytes (base64-encoded by to_json)
};

boost::json::object to_json(const CommandRunResult& result);
boost::json::object to_json(const RunCodeResponse& response);

// Runs one request as SandboxFusion would (compile stage, run stage, files in and out) in e2beval's local
// sandbox, waiting its turn in the server's fair queue under `client` (the client's address). Never throws for
// anything the program does; a language e2beval does not run, or a failure of the sandbox itself, is a
// SandboxError response. Throws QueueFull when the queue is full (the route answers 503).
boost::asio::awaitable<RunCodeResponse> run_code(ServerContext& context, RunCodeRequest request, std::string client);

// The fair queue is full: the route answers 503 with this message (and Retry-After).
struct QueueFull : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace e2beval::server::sandbox_fusion
