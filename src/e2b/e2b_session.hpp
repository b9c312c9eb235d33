// E2bSession: a Session (include/e2beval/session.hpp) that is one remote E2B sandbox. Requests of
// docs/session-protocol.md become E2B's calls on the engine's thread (src/e2b/session_core.hpp); the caller's
// thread waits for the events with the Session contract's deadline and runs its own event handler.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "e2b/engine.hpp"
#include "e2b/session_core.hpp"
#include "e2beval/session.hpp"

namespace e2beval::e2b {

class E2bSession : public Session {
public:
    // Creates the remote sandbox (through Engine::create_tracked, so the engine kills it when it stops).
    // Blocks until E2B answers; throws what the create call threw (unknown_template_error for E2B's 404).
    static std::shared_ptr<E2bSession> create(std::shared_ptr<E2bSandbox::Engine> engine, const SessionOptions& options);
    ~E2bSession() override;

    const std::string& id() const noexcept override { return id_; }
    SessionInfo info() const override;
    bool alive() const override;
    SessionEvent call(boost::json::object request, const SessionEventHandler& on_event = {},
                      std::optional<std::chrono::milliseconds> request_timeout = std::nullopt,
                      CallInterrupt* interrupt = nullptr) override;
    void interrupt() override;
    // E2B's latest metrics sample (GET /sandboxes/{id}/metrics): memory and disk; cpu_time is nullopt (E2B
    // reports a percentage, not CPU time). Unlike the local backend's, this asks the server.
    SessionUsage usage() const override;
    void set_timeout(std::chrono::milliseconds timeout) override;
    void kill() noexcept override;

private:
    E2bSession(std::shared_ptr<E2bSandbox::Engine> engine, RemoteSandbox remote, const SessionOptions& options);
    [[noreturn]] void throw_closed(const std::string& reason) const;
    void mark_closed(const std::string& reason);

    std::shared_ptr<E2bSandbox::Engine> engine_;
    std::shared_ptr<SessionCore> core_;  // touched on the engine's thread only
    const std::string id_;
    mutable std::mutex mutex_;
    SessionInfo info_;
    std::string closed_reason_;
    std::atomic<bool> closed_{false};
};

}  // namespace e2beval::e2b
