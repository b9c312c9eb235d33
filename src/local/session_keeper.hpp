// The process-wide keeper of local sessions: one thread that starts every session's sandbox (so the
// sandbox's init, which dies with the thread that cloned it, lives as long as the process) and kills
// each session when its timeout passes, whether or not anybody is using it, or when the process exits.
//
// Why the lifetimes live here and not on a caller's loop: a session's calls run on their callers' executors
// (Session::async_call), but between calls a session has no caller at all (the Python module's blocking calls
// each bring a private io_context that ends with the call), so nothing else would be awake when its timeout
// passes. The keeper's thread exists anyway, for the cloning; its table of deadlines (one timed wait for the
// nearest) costs no thread more. Everything about a session's *calls* (reading the agent, each call's own
// deadline, cancellation) is on the callers' loops, not here.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "local/supervisor.hpp"

namespace e2beval::local {

// What the keeper needs of a session.
class KeptSession {
public:
    virtual ~KeptSession() = default;
    virtual const std::string& keeper_id() const noexcept = 0;
    // Called on the keeper thread when the session's deadline has passed.
    virtual void expire() noexcept = 0;
    // Called when the process exits (std::exit, the end of a script) with the session still alive.
    virtual void end_with_owner() noexcept = 0;
};

class SessionKeeper {
public:
    static SessionKeeper& instance();

    // Runs spawn_interactive(request) on the keeper thread and returns its result (or rethrows).
    InteractiveSandbox spawn(SupervisionRequest request);

    // Keeps `session` alive until `deadline`, then calls its expire() and drops it. Calling it again moves
    // the deadline; forget() drops it early (after a kill). Once end_all_sessions() ran (the process exits), it
    // ends `session` at once instead.
    void schedule(const std::shared_ptr<KeptSession>& session, std::chrono::steady_clock::time_point deadline);
    void forget(const std::string& id);

    // The live sessions.
    std::vector<std::shared_ptr<KeptSession>> sessions();

    // Ends every live session (end_with_owner); registered with std::atexit.
    void end_all_sessions() noexcept;

private:
    SessionKeeper();
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace e2beval::local
