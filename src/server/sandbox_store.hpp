// The sandboxes one server serves: each is a Session from the backend (the server holds the only strong
// reference, the backend's SessionRegistry a weak one) plus what E2B's API says about it that a session does
// not keep (its template name, when it was created). Thread-safe: the I/O thread and call threads use it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "e2beval/session.hpp"

namespace e2beval::server {

struct ServedSandbox {
    // Sends one request through the session and returns its final event, like Session::call. Calls run
    // concurrently (the session serves them at once); each is known by its `caller` (any pointer unique to
    // the client's request, or nullptr for a call nobody interrupts), so that a client that goes away
    // interrupts its own request and never another's.
    SessionEvent call(const void* caller, boost::json::object request, const SessionEventHandler& on_event);
    // Interrupts `caller`'s request, if it is running (or as soon as it starts).
    void interrupt(const void* caller, CallInterrupt::Mode mode = CallInterrupt::Mode::stop);

    std::shared_ptr<Session> session;
    std::string template_id;
    bool allow_internet_access = false;
    std::uint64_t memory_mb = 0;
    unsigned cpu_count = 1;  // the CPUs' worth its CPU quota allows, rounded up (the host's CPUs without a cap)
    std::chrono::system_clock::time_point created_at;
    std::uint64_t sequence = 0;  // creation order, for listing and pagination
    // The secrets that let a client reach it (access_token.hpp, sandbox_access.hpp); fixed at creation.
    std::string envd_access_token;
    std::string traffic_access_token;

private:
    std::mutex interrupts_mutex_;
    // The interrupt of each caller's call in progress; one made early by interrupt() when it came first.
    std::map<const void*, std::shared_ptr<CallInterrupt>> interrupts_;
};

class SandboxStore {
public:
    void add(std::shared_ptr<ServedSandbox> sandbox);
    // nullptr when unknown, killed or past its timeout (a dead one is dropped on the way).
    std::shared_ptr<ServedSandbox> find(const std::string& id);
    // The live ones, oldest first; drops the dead ones.
    std::vector<std::shared_ptr<ServedSandbox>> live();
    // Removes it and kills its session. False when it was not there (or already dead).
    bool kill(const std::string& id);
    // Kills every sandbox (shutdown).
    void kill_all() noexcept;
    std::size_t live_count();

private:
    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<ServedSandbox>> sandboxes_;
};

}  // namespace e2beval::server
