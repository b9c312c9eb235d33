// LocalSandbox: runs code on this machine in new user, pid, mount, net, ipc, uts and cgroup namespaces,
// on a minimal read-only root with a size-limited tmpfs workspace, rlimits and no network.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


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
        // A zygote is replaced after this many executions: a bound on what it could accumulate, though its
        // RSS and fds stay flat (scripts/soak.sh); a start costs ~40 ms of CPU, ~0.02 ms per execution.
        unsigned max_uses = 2000;
    } pool;
    // Pool of ready sessions (docs/sessions.md): how many sessions to keep started ahead of demand for each
    // kind of session (limits and isolation) created so far, so that create_session() and the first run_code
    // pay only for the cell. Unset: $E2BEVAL_SESSION_POOL, else 1; 0 turns the pool off. Sessions with
    // environment variables never come from the pool.
    std::optional<std::size_t> ready_sessions;
    // Where create_session() registers its sessions for list_sessions()/find_session(). Empty: this
    // sandbox keeps its own; a face that creates several sandboxes (the Python module) shares one.
    std::shared_ptr<SessionRegistry> sessions;
};

namespace local {
class WarmPool;
class SessionPool;
class Zygote;
struct SupervisionRequest;
}

// Asks `python` (a path or a name on PATH) where it lives. Throws sandbox_error when it cannot be run.
InterpreterInfo discover_python(const std::string& python);

// The Python code that reports where an interpreter lives (its real executable, version and prefixes, a line
// each), and the reading of that report: discover_python runs it in `python`; the Python module runs it in its
// own interpreter (no process to start), so both describe an interpreter the same way.
std::string_view python_discovery_script() noexcept;
InterpreterInfo interpreter_from_discovery(std::string_view report);

class LocalSandbox : public Sandbox {
public:
    // Finds the interpreter once; throws sandbox_error when it cannot be found. `executor`: see Sandbox.
    explicit LocalSandbox(LocalSandboxOptions options = {}, executor_type executor = {});

    std::string_view backend() const noexcept override { return "local"; }
    const InterpreterInfo& python() const noexcept;

    // Starts a long-lived session (docs/session-protocol.md) with this sandbox's interpreter. Throws
    // sandbox_error when it cannot start, saying why. The session lives until kill(), its timeout, or the
    // end of this process, whichever comes first; it does not depend on this LocalSandbox object.
    std::shared_ptr<Session> create_session(const SessionOptions& options = {}) override;
    // Starts filling the pool of ready sessions (LocalSandboxOptions::ready_sessions) for `options`' kind.
    void keep_sessions_ready(const SessionOptions& options) override;
    // The live sessions in this sandbox's registry (LocalSandboxOptions::sessions), and one of them by id.
    std::vector<SessionInfo> list_sessions() override;
    std::shared_ptr<Session> find_session(const std::string& id) override;

    // Starts zygotes until `count` are idle for `isolation` (no-op when the pool is disabled).
    void warm_up(std::size_t count, const IsolationProfile& isolation = {});
    // Launches zygotes for Python requests like `like` until `concurrency` are idle (ready or starting), and
    // returns while they start (no-op when the pool is disabled or cannot start).
    void prepare_executions(const ExecRequest& like, std::size_t concurrency) override;
    // Host pids of the live zygotes' sandbox init processes (the zygote interpreter is its child).
    std::vector<int> zygote_pids() const;
    // Host pids of the sandbox init processes of the sessions the pool keeps ready (not yet handed out).
    std::vector<int> ready_session_pids() const;

    ~LocalSandbox() override;

    // What an execution in flight keeps alive: it may outlive this object (destroying a LocalSandbox
    // while a warm execution falls back to a cold run must not leave that run with a dangling `this`).
    struct Settings;

protected:
    void initiate_execute(executor_type io, ExecRequest request, ExecHandler& handler) override;

private:
    // Runs the request warm (from a zygote) or cold; throws only before it took `handler`.
    void run(executor_type io, ExecRequest request,
             boost::asio::any_completion_handler<void(boost::system::error_code, ExecResult)>& handler);

    std::shared_ptr<const Settings> settings_;
    std::shared_ptr<local::WarmPool> pool_;
    std::shared_ptr<SessionRegistry> sessions_;
    // Declared last, so destroyed first: it kills the sessions it still keeps ready.
    std::shared_ptr<local::SessionPool> session_pool_;
};

}  // namespace e2beval
