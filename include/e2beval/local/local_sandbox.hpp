// LocalSandbox: runs code on this machine in new user, pid, mount, net, ipc, uts and cgroup namespaces,
// on a minimal read-only root with a size-limited tmpfs workspace, rlimits and no network.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include "e2beval/sandbox.hpp"
#include "e2beval/session.hpp"

namespace e2beval {

// The interpreter as found on the host: the real binary (shims resolved) and what it needs mounted.
struct InterpreterInfo {
    std::string executable;
    std::string version;
    std::vector<std::string> read_only_paths;
};

struct LocalSandboxOptions {
    // The Python that runs the code. Empty: $E2BEVAL_PYTHON, else `python3` on PATH. Its prefixes are
    // bound read-only into the sandbox so its installed packages (numpy, ...) are importable.
    std::string python_executable;
    // Already known (the Python module passes its own interpreter): skips asking the interpreter.
    std::optional<InterpreterInfo> python_info;
    // The Node.js that runs JavaScript. Empty: $E2BEVAL_NODE, else `node` on PATH; found on first use, and
    // its install prefix is bound read-only when it lies outside /usr.
    std::string node_executable;
    // More host paths to bind read-only at the same place inside (e.g. a data directory).
    std::vector<std::string> extra_read_only_paths;
    // Warm pool: Python executions are forked from pre-started zygotes (same isolation as a cold
    // sandbox, without the interpreter's start-up). Zygotes start on first use or with warm_up().
    struct Pool {
        bool enabled = true;
        std::size_t max_zygotes = 8;  // each serves one execution at a time; beyond this, executions run cold
        unsigned max_uses = 500;      // a zygote is replaced after this many executions
    } pool;
};

namespace local {
class WarmPool;
class Zygote;
struct SupervisionRequest;
}

// Asks `python` (a path or a name on PATH) where it lives. Throws sandbox_error when it cannot be run.
InterpreterInfo discover_python(const std::string& python);

class LocalSandbox : public Sandbox {
public:
    // Finds the interpreter once; throws sandbox_error when it cannot be found.
    explicit LocalSandbox(LocalSandboxOptions options = {});

    // Blocking: runs the request on an internal io_context.
    ExecResult execute(const ExecRequest& request) override;

    // Asynchronous: completes with void(ExecResult) on `executor`. Throws input_error for a bad request.
    template <typename CompletionToken>
    auto async_execute(boost::asio::any_io_executor executor, ExecRequest request, CompletionToken&& token) {
        return boost::asio::async_initiate<CompletionToken, void(ExecResult)>(
            [this, executor](auto handler, ExecRequest r) { start(executor, std::move(r), std::move(handler)); },
            token, std::move(request));
    }

    const InterpreterInfo& python() const noexcept { return python_; }

    // Starts a long-lived session (docs/session-protocol.md) with this sandbox's interpreter. Throws
    // sandbox_error when it cannot start, saying why. The session lives until kill(), its timeout, or the
    // end of this process, whichever comes first; it does not depend on this LocalSandbox object.
    std::shared_ptr<Session> create_session(const SessionOptions& options = {});
    // The live sessions of this process, and one of them by id (nullptr when unknown or gone).
    static std::vector<SessionInfo> list_sessions();
    static std::shared_ptr<Session> find_session(const std::string& id);

    // Starts zygotes until `count` are idle for `isolation` (no-op when the pool is disabled).
    void warm_up(std::size_t count, const IsolationProfile& isolation = {});
    // Host pids of the live zygotes' sandbox init processes (the zygote interpreter is its child).
    std::vector<int> zygote_pids() const;

    ~LocalSandbox() override;

private:
    void start(boost::asio::any_io_executor executor, ExecRequest request,
               boost::asio::any_completion_handler<void(ExecResult)> handler);
    // `more_read_only_paths`: host paths to mount besides the language's own (a session's Node.js).
    local::SupervisionRequest base_request(const ExecRequest& request, bool with_filesystem,
                                           const std::vector<std::string>& more_read_only_paths = {}) const;
    std::unique_ptr<local::Zygote> start_zygote(const IsolationProfile& isolation) const;
    local::SupervisionRequest session_request(const SessionOptions& options, const std::string& agent_source) const;

    LocalSandboxOptions options_;
    InterpreterInfo python_;
    std::shared_ptr<local::WarmPool> pool_;
};

}  // namespace e2beval
