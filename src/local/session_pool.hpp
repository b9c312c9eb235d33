// The pool of ready sessions: sessions started ahead of demand (agent up, default Python context serving), so
// that create_session() plus the first run_code pay only for the hand-out and the cell (docs/sessions.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "e2beval/session.hpp"

namespace e2beval::local {

// What the pool needs of a session it keeps.
class PoolableSession : public Session {
public:
    // Waits until the agent is ready; throws sandbox_error saying why it could not start. kill() from another
    // thread ends the wait at once (the pool's owner going away while a replacement starts).
    virtual void wait_until_ready() = 0;
    // Kept ready until handed out or until its owner goes: no lifetime runs yet, but the process's exit still
    // ends it (SessionKeeper).
    virtual void keep_until_handed_out() = 0;
    // Still fit to hand out: alive, and its agent has said nothing since it reported ready (checked without a
    // request: nothing may run in the session before its user's first call).
    virtual bool fit_to_hand_out() noexcept = 0;
    // From now on the session is its user's: its lifetime (`options.timeout`) counts from now, its start time
    // is now, and it carries `options.metadata`.
    virtual void hand_out(const SessionOptions& options) = 0;
};

// Ready sessions per key (everything that changes how a session starts: its limits and isolation profile;
// the interpreter is the owning LocalSandbox's). One background thread starts them, one at a time, and
// replaces each one handed out. Sessions with `env` are never pooled: their variables are in the agent's
// environment from its start, which a started session cannot be given exactly (docs/sessions.md).
class SessionPool {
public:
    using Starter = std::function<std::shared_ptr<PoolableSession>(const SessionOptions&)>;

    // `per_key`: ready sessions kept per key (0: the pool is off). `start` starts a session's sandbox and
    // returns at once (the pool waits until it is ready); it throws when it cannot.
    SessionPool(std::size_t per_key, Starter start);
    // Stops refilling and kills every session still waiting to be handed out (processes, cgroup, workspace),
    // and the one starting, without waiting for its start.
    ~SessionPool();
    SessionPool(const SessionPool&) = delete;
    SessionPool& operator=(const SessionPool&) = delete;

    // Whether sessions with these options may come from the pool.
    bool serves(const SessionOptions& options) const noexcept;
    // A ready session for `options`, handed out (and replaced in the background), or nullptr when none is
    // ready or starting (the caller starts one itself). Waits for one already starting for this key, which
    // is sooner than starting another.
    std::shared_ptr<Session> take(const SessionOptions& options);
    // From now on, keep `per_key` sessions ready for the key of `options` (started in the background).
    void keep_ready(const SessionOptions& options);
    // Host pids of the ready sessions' sandbox init processes.
    std::vector<int> ready_pids() const;

private:
    struct State;
    std::shared_ptr<State> state_;
};

// The ready sessions per key when LocalSandboxOptions does not say: $E2BEVAL_SESSION_POOL, else 1. Throws
// input_error for a value that is not a non-negative integer.
std::size_t configured_session_pool_size(std::optional<std::size_t> configured);

}  // namespace e2beval::local
