// E2bSession (src/e2b/e2b_session.hpp): the caller's side of each call (its deadline, its events, its
// interrupt) and the session's lifetime on E2B's control plane (create, set_timeout, metrics, kill).
#include "e2b/e2b_session.hpp"

#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "e2beval/core/error.hpp"

namespace e2beval::e2b {

namespace asio = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// On top of an operation's own budget: the network's round trips and E2B's own slack.
constexpr std::chrono::milliseconds kNetworkMargin{30'000};
// How often a waiting caller looks whether the engine is shutting down.
constexpr std::chrono::milliseconds kEngineCheck{500};
constexpr std::chrono::seconds kKillPatience{20};

std::chrono::seconds whole_seconds(std::chrono::milliseconds duration) {
    return std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(duration));
}

bool closed_error(std::exception_ptr failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const error& failed) {
        return failed.code() == errc::session_closed;
    } catch (...) {
        return false;
    }
}

// run_blocking wants a value.
asio::awaitable<bool> set_remote_timeout(E2bSandbox::Engine& engine, std::string id, std::chrono::seconds timeout) {
    co_await engine.api.set_timeout(id, timeout);
    co_return true;
}

}  // namespace

std::shared_ptr<E2bSession> E2bSession::create(std::shared_ptr<E2bSandbox::Engine> engine, const SessionOptions& options) {
    if (engine->shutting_down) throw sandbox_error("the E2B backend is shutting down: no new sessions");
    CreateSandbox request;
    request.template_id = options.template_name.empty() ? engine->settings.template_id : options.template_name;
    request.timeout = whole_seconds(options.timeout);
    request.metadata = options.metadata;
    request.metadata.emplace("created_by", "e2beval");
    request.envs = options.env;
    // The one isolation setting E2B has. The others (options.limits, the rest of options.isolation) cannot be
    // applied to a remote sandbox: its template and E2B decide them (docs/e2b.md, "Sessions").
    request.allow_internet_access = options.isolation.network;
    RemoteSandbox remote;
    try {
        remote = engine->run_blocking(engine->create_tracked(request));
    } catch (const ApiError& refused) {
        if (refused.status() == 404)
            throw unknown_template_error(std::string(refused.what()) + " (on the e2b backend a template is an E2B template ID)");
        throw;
    }
    return std::shared_ptr<E2bSession>(new E2bSession(std::move(engine), std::move(remote), options));
}

E2bSession::E2bSession(std::shared_ptr<E2bSandbox::Engine> engine, RemoteSandbox remote, const SessionOptions& options)
    : engine_(std::move(engine)), core_(std::make_shared<SessionCore>()), id_(remote.id) {
    core_->engine = engine_;
    core_->remote = std::move(remote);
    info_.id = id_;
    info_.metadata = options.metadata;
    info_.started_at = std::chrono::system_clock::now();
    info_.end_at = info_.started_at + std::chrono::duration_cast<std::chrono::system_clock::duration>(whole_seconds(options.timeout));
    info_.alive = true;
}

E2bSession::~E2bSession() { kill(); }

SessionInfo E2bSession::info() const {
    const bool live = alive();  // takes the lock itself
    std::lock_guard lock(mutex_);
    auto info = info_;
    info.alive = live;
    return info;
}

bool E2bSession::alive() const {
    if (closed_ || engine_->shutting_down) return false;
    std::lock_guard lock(mutex_);
    return std::chrono::system_clock::now() < info_.end_at;  // past it, E2B has killed it
}

void E2bSession::throw_closed(const std::string& reason) const {
    throw sandbox_error("session " + id_ + " is closed: " + reason, errc::session_closed);
}

void E2bSession::mark_closed(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (closed_reason_.empty()) closed_reason_ = reason;
    closed_ = true;
}

SessionEvent E2bSession::call(json::object request, const SessionEventHandler& on_event,
                              std::optional<std::chrono::milliseconds> request_timeout, CallInterrupt* interrupt) {
    const auto* op = request.if_contains("op");
    if (!op || !op->is_string()) throw input_error("a session request is a JSON object with an \"op\" (docs/session-protocol.md)");
    if (closed_) {
        std::lock_guard lock(mutex_);
        throw_closed(closed_reason_);
    }
    if (engine_->shutting_down) throw_closed("the E2B backend was shut down");
    const auto budget = session_request_budget(request, request_timeout);
    const auto deadline = budget ? Clock::now() + *budget + kNetworkMargin : Clock::time_point::max();

    auto channel = std::make_shared<CallChannel>();
    auto control = std::make_shared<CallControl>(engine_->io);
    auto core = core_;
    asio::post(engine_->io, [core, control, channel, request = std::move(request)]() mutable {
        core->calls.insert(control);
        asio::co_spawn(core->engine->io, serve_request(core, std::move(request), channel, control),
                       [core, control, channel](std::exception_ptr failure, std::optional<json::object> final_event) {
                           core->calls.erase(control);
                           if (failure) channel->fail(failure);
                           else if (final_event) channel->finish(std::move(*final_event));
                       });
    });
    if (interrupt)
        interrupt->bind([engine = engine_, control](CallInterrupt::Mode mode) {
            asio::post(engine->io, [control, mode] {
                control->request(mode == CallInterrupt::Mode::detach ? CallControl::Stop::detach : CallControl::Stop::interrupt);
            });
        });
    struct Unbind {
        CallInterrupt* interrupt;
        ~Unbind() {
            if (interrupt) interrupt->unbind();
        }
    } unbind{interrupt};

    for (;;) {
        auto next = channel->next(std::min(deadline, Clock::now() + kEngineCheck));
        if (auto* event = std::get_if<json::object>(&next)) {
            if (on_event) on_event(*event);
            continue;
        }
        if (auto* final_event = std::get_if<CallChannel::Final>(&next)) return std::move(final_event->event);
        if (auto* failed = std::get_if<CallChannel::Failed>(&next)) {
            if (closed_error(failed->failure)) {
                try {
                    std::rethrow_exception(failed->failure);
                } catch (const std::exception& closed) {
                    mark_closed(closed.what());
                }
            }
            std::rethrow_exception(failed->failure);
        }
        if (engine_->shutting_down) throw_closed("the E2B backend was shut down");
        if (Clock::now() >= deadline) {
            // The Session contract: a sandbox that does not answer within the budget has stalled; it is killed.
            const auto seconds = std::chrono::duration<double>(*budget + kNetworkMargin).count();
            kill();
            return json::object{{"type", "failure"},
                                {"kind", "timeout"},
                                {"message", "the E2B sandbox " + id_ + " did not answer within " + std::to_string(static_cast<int>(seconds)) +
                                                " s (the request's budget plus 30 s for the network), so it was killed; the 'timeout' "
                                                "or 'request_timeout' option gives a request more time"}};
        }
    }
}

void E2bSession::interrupt() {
    auto core = core_;
    asio::post(engine_->io, [core] {
        for (const auto& control : core->calls) control->request(CallControl::Stop::interrupt);
    });
}

SessionUsage E2bSession::usage() const {
    if (closed_ || engine_->shutting_down) throw_closed(closed_reason_.empty() ? "the E2B backend was shut down" : closed_reason_);
    std::optional<json::object> sample;
    try {
        sample = engine_->run_blocking(engine_->api.metrics(id_));
    } catch (const ApiError& refused) {
        if (refused.status() == 404) throw_closed("the E2B sandbox is gone: " + std::string(refused.what()));
        throw;
    }
    SessionUsage usage;
    usage.measured_at = std::chrono::system_clock::now();
    usage.measured_at_steady = Clock::now();
    if (!sample) return usage;
    const auto number = [&](const char* key) -> std::optional<std::uint64_t> {
        const auto* value = sample->if_contains(key);
        if (!value || !value->is_number()) return std::nullopt;
        return static_cast<std::uint64_t>(std::max(0.0, value->to_number<double>()));
    };
    usage.cpu_count = static_cast<unsigned>(number("cpuCount").value_or(1));
    usage.memory_used_bytes = number("memUsed");
    usage.memory_cache_bytes = number("memCache");
    usage.memory_total_bytes = number("memTotal").value_or(0);
    usage.disk_used_bytes = number("diskUsed");
    usage.disk_total_bytes = number("diskTotal");
    return usage;
}

void E2bSession::set_timeout(std::chrono::milliseconds timeout) {
    if (closed_ || engine_->shutting_down) throw_closed(closed_reason_.empty() ? "the E2B backend was shut down" : closed_reason_);
    const auto seconds = whole_seconds(timeout);
    try {
        engine_->run_blocking(set_remote_timeout(*engine_, id_, seconds));
    } catch (const ApiError& refused) {
        if (refused.status() == 404) {
            mark_closed("the E2B sandbox is gone (killed, or it reached its timeout)");
            throw_closed("the E2B sandbox is gone: " + std::string(refused.what()));
        }
        throw;
    }
    std::lock_guard lock(mutex_);
    info_.end_at = std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(seconds);
}

void E2bSession::kill() noexcept {
    if (closed_.exchange(true)) return;
    try {
        mark_closed("it was killed");
        if (engine_->shutting_down) return;  // the engine kills every sandbox it tracks as it stops
        auto core = core_;
        auto engine = engine_;
        auto done = std::make_shared<std::promise<void>>();
        auto finished = done->get_future();
        asio::co_spawn(engine_->io, [core, engine]() -> asio::awaitable<void> {
            core->close("it was killed");
            engine->forget_tracked(core->remote.id);
            bool failed = false;
            try {
                co_await engine->api.kill(core->remote.id);
            } catch (const std::exception&) {
                failed = true;
            }
            if (failed) engine->kill_later(core->remote.id);  // once more in the background, counted at shutdown
        }, [done](std::exception_ptr) { done->set_value(); });
        finished.wait_for(kKillPatience);
    } catch (...) {
        // kill() never throws: a sandbox not killed here ends at its E2B timeout.
    }
}

}  // namespace e2beval::e2b
