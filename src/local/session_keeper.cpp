// See session_keeper.hpp. One thread, a queue of start-up jobs and a table of deadlines.
#include "local/session_keeper.hpp"

#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <thread>

namespace e2beval::local {

struct SessionKeeper::State {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> jobs;
    struct Tracked {
        std::shared_ptr<KeptSession> session;  // a session lives until its timeout or kill, as on E2B
        std::chrono::steady_clock::time_point deadline;
    };
    std::map<std::string, Tracked> tracked;
    bool deadlines_changed = false;
    bool owner_exiting = false;
    const pid_t owner_pid = ::getpid();  // the process whose sessions these are (not a forked child of it)  // end_all_sessions() ran: a session scheduled after it is ended at once

    // Never returns: the thread is detached and ends with the process, taking every session's init with it
    // (PR_SET_PDEATHSIG), which is what "killing the owner process kills its sessions" needs.
    [[noreturn]] void run() {
        std::unique_lock lock(mutex);
        for (;;) {
            while (!jobs.empty()) {
                auto job = std::move(jobs.front());
                jobs.pop_front();
                lock.unlock();
                job();
                lock.lock();
            }
            deadlines_changed = false;
            const auto now = std::chrono::steady_clock::now();
            auto next = now + std::chrono::hours(24);
            std::vector<std::shared_ptr<KeptSession>> expired;
            for (auto entry = tracked.begin(); entry != tracked.end();) {
                if (entry->second.deadline <= now) {
                    expired.push_back(std::move(entry->second.session));
                    entry = tracked.erase(entry);
                } else {
                    next = std::min(next, entry->second.deadline);
                    ++entry;
                }
            }
            if (!expired.empty()) {
                lock.unlock();
                for (auto& session : expired) session->expire();
                expired.clear();  // the last owner may be us: destroy outside the lock
                lock.lock();
                continue;
            }
            wake.wait_until(lock, next, [&] {
                return !jobs.empty() || deadlines_changed || std::chrono::steady_clock::now() >= next;
            });
        }
    }
};

SessionKeeper::SessionKeeper() : state_(std::make_shared<State>()) {
    std::thread([state = state_] { state->run(); }).detach();
    // A script that just ends (no kill()) exits with its sessions alive. Their processes would die with the
    // keeper thread (PR_SET_PDEATHSIG), but nothing would remove their cgroups: end them here instead.
    // (A SIGKILLed owner runs nothing; its cgroup reaper removes their cgroups, see cgroup_reaper.hpp.)
    std::atexit([] { SessionKeeper::instance().end_all_sessions(); });
}

void SessionKeeper::end_all_sessions() noexcept {
    // A forked child inherits this handler and the sessions' handles, not the sessions: when it exits, they
    // are still its parent's.
    if (::getpid() != state_->owner_pid) return;
    std::map<std::string, State::Tracked> ending;
    {
        std::lock_guard lock(state_->mutex);
        state_->owner_exiting = true;
        ending.swap(state_->tracked);
    }
    for (auto& [id, entry] : ending) entry.session->end_with_owner();
}

SessionKeeper& SessionKeeper::instance() {
    // Never destroyed: the detached thread uses the state until the process ends.
    static SessionKeeper* keeper = new SessionKeeper();
    return *keeper;
}

InteractiveSandbox SessionKeeper::spawn(SupervisionRequest request) {
    auto task = std::make_shared<std::packaged_task<InteractiveSandbox()>>(
        [request = std::move(request)]() mutable { return spawn_interactive(std::move(request)); });
    auto result = task->get_future();
    {
        std::lock_guard lock(state_->mutex);
        state_->jobs.push_back([task] { (*task)(); });
    }
    state_->wake.notify_one();
    return result.get();
}

void SessionKeeper::schedule(const std::shared_ptr<KeptSession>& session, std::chrono::steady_clock::time_point deadline) {
    bool owner_exiting;
    {
        std::lock_guard lock(state_->mutex);
        owner_exiting = state_->owner_exiting;
        if (!owner_exiting) {
            state_->tracked[session->keeper_id()] = {session, deadline};
            state_->deadlines_changed = true;
        }
    }
    if (owner_exiting) {
        // Started while the process exits (the session pool's refill): nobody will use it, and nothing else
        // would remove its cgroup.
        session->end_with_owner();
        return;
    }
    state_->wake.notify_one();
}

void SessionKeeper::forget(const std::string& id) {
    std::shared_ptr<KeptSession> last;  // destroyed after the lock is released
    std::lock_guard lock(state_->mutex);
    if (auto entry = state_->tracked.find(id); entry != state_->tracked.end()) {
        last = std::move(entry->second.session);
        state_->tracked.erase(entry);
    }
}

std::vector<std::shared_ptr<KeptSession>> SessionKeeper::sessions() {
    std::lock_guard lock(state_->mutex);
    std::vector<std::shared_ptr<KeptSession>> live;
    for (const auto& [id, entry] : state_->tracked) live.push_back(entry.session);
    return live;
}

}  // namespace e2beval::local
