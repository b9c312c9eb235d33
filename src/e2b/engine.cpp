// The E2B backend's engine (src/e2b/engine.hpp): the I/O thread, the pool of reused remote sandboxes, and
// the kills that leave nothing behind.
#include "e2b/engine.hpp"

#include <algorithm>
#include <random>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace e2beval {

namespace asio = boost::asio;

namespace {

e2b::ClientSettings client_settings(const E2bSettings& settings) {
    e2b::ClientSettings client;
    client.ca_file = settings.ca_file;
    client.io_timeout = settings.request_timeout;
    client.max_idle_per_origin = std::max<std::size_t>(8, settings.max_sandboxes * 2);
    return client;
}

// Marks the sandboxes of this engine (metadata e2beval_engine), so a sweep finds each it may have made.
std::string random_tag() {
    std::random_device device;
    static const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string tag;
    for (int i = 0; i < 16; ++i) tag += digits[device() % 36];
    return tag;
}

}  // namespace

E2bSandbox::Engine::Engine(E2bSettings config)
    : settings(std::move(config)),
      client(io.get_executor(), client_settings(settings)),
      api(client, settings),
      engine_tag(random_tag()),
      work_(asio::make_work_guard(io)),
      thread_([this] { io.run(); }) {}

E2bSandbox::Engine::~Engine() { stop(); }

asio::awaitable<void> E2bSandbox::Engine::pace_creation() {
    // E2B limits how many sandboxes an account may create per second: spread creations out instead of
    // collecting 429s.
    const auto spacing = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / std::max(settings.creation_rate, 0.01)));
    const auto now = Clock::now();
    const auto at = std::max(now, next_creation_);
    next_creation_ = at + spacing;
    if (at > now) {
        asio::steady_timer wait(io, at);
        co_await wait.async_wait(asio::use_awaitable);
    }
}

void E2bSandbox::Engine::wake_one() {
    if (waiters_.empty()) return;
    auto waiter = waiters_.front();
    waiters_.pop_front();
    waiter->cancel();
}

asio::awaitable<std::shared_ptr<E2bSandbox::Engine::Slot>> E2bSandbox::Engine::acquire(std::chrono::seconds needed) {
    for (;;) {
        if (stopped_) throw sandbox_error("the E2B backend is shutting down");
        const auto now = Clock::now();
        // A free sandbox first; one whose E2B timeout has passed is gone already and is dropped.
        for (auto it = slots_.begin(); it != slots_.end();) {
            if (!(*it)->busy && (*it)->expires <= now + std::chrono::seconds(2)) {
                kill_later((*it)->remote.id);  // in case the clocks differ: never leave one behind
                it = slots_.erase(it);
            } else {
                ++it;
            }
        }
        const auto free = std::find_if(slots_.begin(), slots_.end(), [](const auto& slot) { return !slot->busy; });
        if (free != slots_.end()) {
            auto slot = *free;
            slot->busy = true;
            if (slot->expires < now + needed) {
                const auto lease = std::max(settings.lease, needed + settings.lease);
                try {
                    co_await api.set_timeout(slot->remote.id, lease);
                    slot->expires = Clock::now() + lease;
                } catch (const std::exception&) {
                    // Gone or refused: replace it.
                    release(slot, false);
                    continue;
                }
            }
            co_return slot;
        }
        if (slots_.size() + creating_ < settings.max_sandboxes) {
            ++creating_;
            e2b::CreateSandbox request;
            request.template_id = settings.template_id;
            request.timeout = std::max(settings.lease, needed + std::chrono::seconds(10));
            request.metadata = {{"created_by", "e2beval"}, {"e2beval_engine", engine_tag}};
            e2b::RemoteSandbox remote;
            try {
                co_await pace_creation();
                creation_attempted_ = true;
                remote = co_await api.create(request);
            } catch (...) {
                --creating_;
                wake_one();  // a waiter may create one in its place
                throw;
            }
            --creating_;
            ++created_;
            if (stopped_) {
                kill_later(remote.id);
                throw sandbox_error("the E2B backend is shutting down");
            }
            auto slot = std::make_shared<Slot>();
            slot->remote = std::move(remote);
            slot->busy = true;
            slot->expires = Clock::now() + request.timeout;
            slots_.push_back(slot);
            co_return slot;
        }
        // Every sandbox is busy and no more may be created: wait for a release.
        auto waiter = std::make_shared<asio::steady_timer>(io, Clock::time_point::max());
        waiters_.push_back(waiter);
        auto [ec] = co_await waiter->async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;
        std::erase(waiters_, waiter);
        const auto state = co_await asio::this_coro::cancellation_state;
        if (state.cancelled() != asio::cancellation_type::none) throw sandbox_error("cancelled while waiting for a free E2B sandbox");
    }
}

void E2bSandbox::Engine::release(const std::shared_ptr<Slot>& slot, bool healthy) {
    slot->busy = false;
    ++slot->uses;
    if (!healthy || slot->uses >= settings.uses_per_sandbox || stopped_) {
        std::erase(slots_, slot);
        kill_later(slot->remote.id);
    }
    wake_one();
}

asio::awaitable<e2b::RemoteSandbox> E2bSandbox::Engine::create_tracked(e2b::CreateSandbox request) {
    co_await pace_creation();
    creation_attempted_ = true;
    request.metadata["e2beval_engine"] = engine_tag;
    auto remote = co_await api.create(request);
    ++created_;
    tracked_.push_back(remote.id);
    co_return remote;
}

void E2bSandbox::Engine::forget_tracked(const std::string& id) { std::erase(tracked_, id); }

void E2bSandbox::Engine::kill_later(const std::string& id) {
    ++pending_kills_;
    asio::co_spawn(io, kill_now(id), [this](std::exception_ptr) {
        if (--pending_kills_ == 0) kills_settled_.cancel();
    });
}

asio::awaitable<void> E2bSandbox::Engine::kill_now(std::string id) {
    try {
        if (co_await api.kill(id)) ++killed_;
    } catch (const std::exception&) {
        // It ends at its (short) E2B timeout anyway.
    }
}

asio::awaitable<void> E2bSandbox::Engine::wait_for_kills(Clock::time_point until) {
    // On the engine's thread, like every kill's completion: nothing runs between the check and the wait, so the
    // last kill's cancel cannot come before the wait it is meant to end.
    while (pending_kills_ > 0 && Clock::now() < until) {
        kills_settled_.expires_at(until);
        co_await kills_settled_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
}

asio::awaitable<void> E2bSandbox::Engine::drain(Clock::time_point until) {
    co_await wait_for_kills(until);
    // A create whose answer was lost (a reset, a timeout, a cancellation) may have made a sandbox this engine
    // never learned about: its tag finds it.
    if (!creation_attempted_ || Clock::now() >= until) co_return;
    std::vector<std::string> found;
    try {
        const std::map<std::string, std::string> tag{{"e2beval_engine", engine_tag}};
        for (const auto& listed : co_await api.list(tag)) {
            const auto* id = listed.if_contains("sandboxID");
            if (id && id->is_string()) found.emplace_back(id->get_string());
        }
    } catch (const std::exception&) {
        // Unreachable now: whatever is left ends at its short E2B timeout.
    }
    for (const auto& id : found) kill_later(id);
    co_await wait_for_kills(until);
}

E2bCounters E2bSandbox::Engine::counters() {
    std::promise<E2bCounters> promise;
    auto future = promise.get_future();
    asio::post(io, [&] {
        E2bCounters counters;
        counters.requests = client.counters().requests;
        counters.retries = client.counters().retries;
        counters.connections = client.counters().connections;
        counters.sandboxes_created = created_;
        counters.sandboxes_killed = killed_;
        promise.set_value(counters);
    });
    return future.get();
}

void E2bSandbox::Engine::stop(std::chrono::milliseconds patience) {
    std::lock_guard lock(stop_mutex_);
    shutting_down = true;
    if (stopped_ || !thread_.joinable()) return;
    std::promise<void> done;
    auto finished = done.get_future();
    asio::post(io, [this] {
        stopped_ = true;
        for (const auto& slot : slots_) kill_later(slot->remote.id);
        slots_.clear();
        for (const auto& id : tracked_) kill_later(id);
        tracked_.clear();
        while (!waiters_.empty()) wake_one();
    });
    // Wait on the engine's thread for the kills to be answered (or the patience to run out).
    asio::co_spawn(io, drain(Clock::now() + patience), [&done](std::exception_ptr) { done.set_value(); });
    finished.wait();
    work_.reset();
    io.stop();
    thread_.join();
}

}  // namespace e2beval
