// See session_pool.hpp. A table of shelves (one per key) and one thread that fills them.
#include "local/session_pool.hpp"

#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"

namespace e2beval::local {

namespace {

// Every option that changes how a session's sandbox and agent start (session.cpp, session_request): all of
// its limits, its isolation profile and its template. Timeout and metadata are set at hand-out; env never comes pooled.
std::string pool_key(const SessionOptions& options) {
    const Limits& limits = options.limits;
    const IsolationProfile& isolation = options.isolation;
    std::string key;
    for (const auto number :
         {static_cast<std::uint64_t>(limits.wall_time.count()), static_cast<std::uint64_t>(limits.cpu_time.count()),
          limits.memory_bytes, static_cast<std::uint64_t>(limits.max_processes), limits.output_bytes,
          limits.file_size_bytes, limits.workspace_bytes, static_cast<std::uint64_t>(limits.open_files),
          static_cast<std::uint64_t>(isolation.network), static_cast<std::uint64_t>(isolation.seccomp),
          static_cast<std::uint64_t>(isolation.minimum_level)})
        key += std::to_string(number) + ",";
    key += std::to_string(limits.cpus);
    // A template's sessions are kept per build: one rebuilt under the same name never hands out the old one's.
    // An unknown template throws input_error here, naming the known ones.
    if (!is_default_template(options.template_name))
        key += options.template_name + "@" + resolve_template(options.template_name).build_id;
    return key;
}

}  // namespace

struct SessionPool::State {
    State(std::size_t sessions_per_key, Starter starter) : per_key(sessions_per_key), start(std::move(starter)) {}

    const std::size_t per_key;
    const Starter start;

    struct Shelf {
        SessionOptions options;  // how its sessions start (the first caller's, without timeout, metadata, env)
        std::deque<std::shared_ptr<PoolableSession>> ready;
        bool starting = false;
        std::shared_ptr<PoolableSession> starting_session;  // while it starts: the destructor kills it
        bool wanted = false;  // cleared when a start fails, so a key that cannot start does not spin
    };

    mutable std::mutex mutex;
    std::condition_variable changed;  // a start ended, a shelf wants filling, or the pool stops
    std::map<std::string, Shelf> shelves;
    bool stopping = false;
    // Started by the first keep_ready(), joined by the pool's destructor. It only waits (the keeper's thread
    // clones the sandboxes, session_keeper.hpp), so it need not outlive the sessions it starts.
    std::thread filler;
    const pid_t owner_pid = ::getpid();  // a forked child inherits the pool but neither its thread nor its sessions

    Shelf* shelf_to_fill() {
        for (auto& [key, shelf] : shelves)
            if (shelf.wanted && !shelf.starting && shelf.ready.size() < per_key) return &shelf;
        return nullptr;
    }

    void fill() {
        std::unique_lock lock(mutex);
        for (;;) {
            changed.wait(lock, [&] { return stopping || shelf_to_fill(); });
            if (stopping) return;
            Shelf& shelf = *shelf_to_fill();  // shelves are never erased: the reference stays valid
            shelf.starting = true;
            const SessionOptions options = shelf.options;
            lock.unlock();
            std::shared_ptr<PoolableSession> session;
            try {
                session = start(options);
                lock.lock();
                shelf.starting_session = session;
                const bool stopped = stopping;
                lock.unlock();
                if (stopped) session->kill();  // the destructor may have looked before it was stored
                session->wait_until_ready();
                session->keep_until_handed_out();
            } catch (const std::exception&) {
                // A session that cannot start here cannot start for the caller either, who will start one
                // itself and get the error with its cause; keep_ready() asks for this key again.
                if (session) session->kill();
                session.reset();
            }
            lock.lock();
            shelf.starting = false;
            shelf.starting_session.reset();
            if (!session) {
                shelf.wanted = false;
            } else if (stopping) {
                lock.unlock();
                session->kill();
                lock.lock();
            } else {
                shelf.ready.push_back(std::move(session));
            }
            changed.notify_all();
        }
    }
};

SessionPool::SessionPool(std::size_t per_key, Starter start) : state_(std::make_shared<State>(per_key, std::move(start))) {}

SessionPool::~SessionPool() {
    std::shared_ptr<PoolableSession> starting;
    if (::getpid() != state_->owner_pid) {
        // A forked child that exits: the filler thread does not exist here (joining it would wait forever) and
        // the ready sessions are its parent's to keep or kill. Leave both alone: the state is never destroyed
        // here, so neither is the copy of the filler's handle (destroying a joinable std::thread would abort)
        // nor the sessions' handles, which stay open, untouched. No thread is leaked: only this child's copy of
        // the parent's memory.
        new std::shared_ptr<State>(state_);
        return;
    }
    std::vector<std::shared_ptr<PoolableSession>> idle;
    {
        std::lock_guard lock(state_->mutex);
        state_->stopping = true;
        for (auto& [key, shelf] : state_->shelves) {
            for (auto& session : shelf.ready) idle.push_back(std::move(session));
            if (shelf.starting_session) starting = shelf.starting_session;
        }
        // The shelves stay: the filler may hold one until it is joined.
        for (auto& [key, shelf] : state_->shelves) shelf.ready.clear();
    }
    state_->changed.notify_all();
    if (starting) starting->kill();  // its start ends at once, so the join below does not wait for it
    if (state_->filler.joinable()) state_->filler.join();
    for (auto& session : idle) session->kill();
}

bool SessionPool::serves(const SessionOptions& options) const noexcept { return state_->per_key > 0 && options.env.empty(); }

std::shared_ptr<Session> SessionPool::take(const SessionOptions& options) {
    if (!serves(options)) return nullptr;
    std::shared_ptr<PoolableSession> session;
    {
        std::unique_lock lock(state_->mutex);
        const auto found = state_->shelves.find(pool_key(options));
        if (found == state_->shelves.end()) return nullptr;
        auto& shelf = found->second;
        state_->changed.wait(lock, [&] { return state_->stopping || !shelf.ready.empty() || !shelf.starting; });
        if (state_->stopping || shelf.ready.empty()) return nullptr;
        session = std::move(shelf.ready.front());  // off the shelf under the lock: never handed out twice
        shelf.ready.pop_front();
        shelf.wanted = true;
    }
    state_->changed.notify_all();  // its replacement starts now
    if (!session->fit_to_hand_out()) {
        session->kill();
        return nullptr;
    }
    session->hand_out(options);
    return session;
}

void SessionPool::keep_ready(const SessionOptions& options) {
    if (!serves(options)) return;
    {
        std::lock_guard lock(state_->mutex);
        if (state_->stopping) return;
        auto [entry, added] = state_->shelves.try_emplace(pool_key(options));
        if (added) {
            entry->second.options.limits = options.limits;
            entry->second.options.isolation = options.isolation;
            entry->second.options.template_name = options.template_name;  // part of the key: ready ones start in it
        }
        entry->second.wanted = true;
        if (!state_->filler.joinable()) state_->filler = std::thread([state = state_.get()] { state->fill(); });
    }
    state_->changed.notify_all();
}

std::vector<int> SessionPool::ready_pids() const {
    std::lock_guard lock(state_->mutex);
    std::vector<int> pids;
    for (const auto& [key, shelf] : state_->shelves)
        for (const auto& session : shelf.ready) pids.push_back(session->info().host_pid);
    return pids;
}

std::size_t configured_session_pool_size(std::optional<std::size_t> configured) {
    if (configured) return *configured;
    const char* setting = std::getenv("E2BEVAL_SESSION_POOL");
    if (!setting || !*setting) return 1;
    const std::string text(setting);
    if (text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
        throw input_error("E2BEVAL_SESSION_POOL must be the number of ready sessions to keep per kind of session (0 "
                          "turns the pool off), not '" + text + "'");
    return static_cast<std::size_t>(std::stoul(text));
}

}  // namespace e2beval::local
