// E2B's API as typed calls over HttpClient: the control plane (REST), envd (Connect over HTTP/1.1 with JSON:
// process start as a server stream, signals, files) and the code interpreter (/execute NDJSON, contexts).
// What is sent is what the official SDKs send (../shared/E2B_PROTOCOL.md, e2b 2.63 / e2b-code-interpreter 2.11).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "e2b/http_client.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"

namespace e2beval::e2b {

// A call that got an answer saying no: the HTTP status and the server's message (never a credential).
class ApiError : public sandbox_error {
public:
    ApiError(unsigned status, const std::string& message, std::string code = {})
        : sandbox_error(message), status_(status), code_(std::move(code)) {}
    unsigned status() const noexcept { return status_; }
    // Connect's error code of an envd call ("not_found", "already_exists", ...); empty for other calls.
    const std::string& code() const noexcept { return code_; }
    // E2B's proxy answers 502 for a sandbox that is gone (killed or timed out).
    bool sandbox_gone() const noexcept { return status_ == 502; }

private:
    unsigned status_;
    std::string code_;
};

struct RemoteSandbox {
    std::string id;
    std::string envd_access_token;
    std::string traffic_access_token;
    std::string domain;
    std::string envd_version;
};

struct CreateSandbox {
    std::string template_id;
    std::chrono::seconds timeout{60};
    std::map<std::string, std::string> metadata;
    std::map<std::string, std::string> envs;
    bool allow_internet_access = false;
};

struct ProcessSpec {
    std::string cmd;
    std::vector<std::string> args;
    std::map<std::string, std::string> envs;
    std::string cwd;
    bool stdin = false;  // keep its stdin open for SendInput (else it reads /dev/null)
    std::string tag{};   // names the process (StartRequest.tag); empty: none
};

// One event of a process's stream, decoded.
struct ProcessEvent {
    enum class Kind { start, stdout_data, stderr_data, end, keepalive } kind = Kind::keepalive;
    int pid = 0;
    std::string data;  // stdout/stderr bytes
    int exit_code = -1;
    bool exited = false;
    std::string status;  // "exit status 1", "signal: killed"
    std::string error;
};

class E2bApi {
public:
    E2bApi(HttpClient& client, const E2bSettings& settings);

    // Control plane.
    boost::asio::awaitable<RemoteSandbox> create(const CreateSandbox& request);
    boost::asio::awaitable<boost::json::object> get(const std::string& id);
    boost::asio::awaitable<std::vector<boost::json::object>> list(const std::map<std::string, std::string>& metadata = {});
    boost::asio::awaitable<bool> kill(const std::string& id);  // false: it was already gone
    boost::asio::awaitable<void> set_timeout(const std::string& id, std::chrono::seconds timeout);
    boost::asio::awaitable<RemoteSandbox> connect(const std::string& id, std::chrono::seconds timeout);
    // The sandbox's latest metrics sample (E2B's SandboxMetric: cpuCount, cpuUsedPct, memUsed, memTotal,
    // diskUsed, diskTotal, timestamp); nullopt when the server has none yet.
    boost::asio::awaitable<std::optional<boost::json::object>> metrics(const std::string& id);

    // envd.
    boost::asio::awaitable<void> health(const RemoteSandbox& sandbox);
    // Starts a process and follows it to its end, each event to `on_event` (return false to stop following:
    // the stream is closed and the process left to the caller). `timeout` bounds the stream (Connect-Timeout-Ms,
    // after which envd ends the process; 0: no timeout). A process envd ended at its timeout (Connect's
    // deadline_exceeded) throws CallError with Stage::timeout.
    boost::asio::awaitable<void> run_process(const RemoteSandbox& sandbox, const ProcessSpec& spec, std::chrono::milliseconds timeout,
                                             const std::function<bool(const ProcessEvent&)>& on_event);
    boost::asio::awaitable<void> send_signal(const RemoteSandbox& sandbox, int pid, int signal);
    // A unary Connect call of envd ("process.Process/SendInput", "filesystem.Filesystem/Stat", ...) with a JSON
    // message; its answer, or ApiError with Connect's code (not_found, invalid_argument, already_exists, ...).
    boost::asio::awaitable<boost::json::object> envd_call(const RemoteSandbox& sandbox, const std::string& method,
                                                          boost::json::object message, bool idempotent);
    // The upload's answer: the written file's {"name", "type", "path"}.
    boost::asio::awaitable<boost::json::object> write_file(const RemoteSandbox& sandbox, const std::string& path, const std::string& bytes);
    boost::asio::awaitable<std::string> read_file(const RemoteSandbox& sandbox, const std::string& path);

    // Code interpreter.
    boost::asio::awaitable<boost::json::object> create_context(const RemoteSandbox& sandbox, const std::string& language,
                                                               const std::string& cwd = {});
    boost::asio::awaitable<std::vector<boost::json::object>> list_contexts(const RemoteSandbox& sandbox);
    boost::asio::awaitable<void> restart_context(const RemoteSandbox& sandbox, const std::string& context_id);
    boost::asio::awaitable<void> delete_context(const RemoteSandbox& sandbox, const std::string& context_id);  // 404: ApiError
    // Runs a cell; each NDJSON event to `on_event` up to and including end_of_execution. Throws CallError when
    // the stream ends without it (a truncated stream) or `timeout` passes.
    boost::asio::awaitable<void> execute(const RemoteSandbox& sandbox, const std::string& code,
                                         const std::optional<std::string>& context_id, const std::optional<std::string>& language,
                                         const std::map<std::string, std::string>& envs, std::chrono::milliseconds timeout,
                                         const std::function<void(const boost::json::object&)>& on_event);

private:
    HttpCall control(std::string name, boost::beast::http::verb method, std::string target, bool idempotent) const;
    HttpCall sandbox_call(const RemoteSandbox& sandbox, int port, std::string name, boost::beast::http::verb method,
                          std::string target, bool idempotent) const;
    [[noreturn]] void fail(const HttpCall& call, const HttpResponse& response) const;

    HttpClient& client_;
    const E2bSettings& settings_;
    Origin api_;
};

}  // namespace e2beval::e2b
