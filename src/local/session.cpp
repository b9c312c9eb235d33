// LocalSession: a long-lived local sandbox whose program is the session agent (src/local/session_agent/).
// The host side writes one JSON request per line to the agent's stdin and reads its events, one JSON
// object per line, from its stdout (docs/session-protocol.md). The sandbox is built exactly like a
// one-shot execution's (LocalSandbox::base_request); what differs is listed in session_request().
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <utility>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>

#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "local/agent_lines.hpp"
#include "local/cgroup.hpp"
#include "local/interpreters.hpp"
#include "local/local_settings.hpp"
#include "local/mountns.hpp"
#include "local/rlimit.hpp"
#include "local/seccomp.hpp"
#include "local/session_agent.hpp"
#include "local/session_caps.hpp"
#include "local/session_deadline.hpp"
#include "local/session_keeper.hpp"
#include "local/session_pool.hpp"
#include "local/session_sandbox.hpp"
#include "local/session_usage.hpp"
#include "local/sudo_shim.hpp"
#include "local/supervisor.hpp"
#include "local/template_environment.hpp"
#include "local/warm_protocol.hpp"
#include "local/warm_steps_library.hpp"
#include "core/session_protocol.hpp"

namespace e2beval {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The agent's start and its default Python context's (the agent waits up to 10 s for the kernel, then reports
// ready anyway and the first cell waits for the rest): generous, for a loaded 2-core machine.
constexpr auto kStartTimeout = std::chrono::seconds(30);
constexpr std::size_t kStderrTail = 8192;
// How long a ready session of the pool is kept by the keeper before it is handed out: in effect until its owner
// (the LocalSandbox, or the process) goes.
constexpr auto kKeptReady = std::chrono::hours(24 * 365);

// `local-` and 16 base-36 digits (about 82 bits) from the kernel's random source: an id is what reaches a
// sandbox through `e2beval serve`'s routing, so it must not be predictable from earlier ids (a generator seeded
// once could be), and a forked process must not repeat its parent's ids. getrandom through syscall(2), whose
// headers this file already has; bytes of 252 and above are drawn again so that every digit is equally likely.
std::string random_id() {
    static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string id = "local-";
    unsigned char bytes[32];
    while (id.size() < 6 + 16) {
        const long got = ::syscall(SYS_getrandom, bytes, sizeof bytes, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw sandbox_error(std::string("getrandom(32 bytes, 0) failed: ") + std::strerror(errno) +
                                ": cannot make a session id (the kernel has no random source?)");
        }
        for (long i = 0; i < got && id.size() < 6 + 16; ++i)
            if (bytes[i] < 252) id += kDigits[bytes[i] % 36];
    }
    return id;
}

void write_line(int fd, const std::string& line) {
    std::size_t written = 0;
    while (written < line.size()) {
        const ssize_t n = ::send(fd, line.data() + written, line.size() - written, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure("write(session request)", errno), errc::session_closed);
        written += static_cast<std::size_t>(n);
    }
}

class LocalSession final : public local::PoolableSession, public local::KeptSession, public std::enable_shared_from_this<LocalSession> {
public:
    LocalSession(std::string id, local::InteractiveSandbox sandbox, const SessionOptions& options)
        : id_(std::move(id)), sandbox_(std::move(sandbox)), limits_(options.limits), metadata_(options.metadata),
          started_at_(std::chrono::system_clock::now()), closed_wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
        if (!closed_wake_) throw sandbox_error(describe_syscall_failure("eventfd(session)", errno));
        end_at_ = started_at_ + options.timeout;
        ::fcntl(sandbox_.stderr_read.get(), F_SETFL, O_NONBLOCK);
    }
    ~LocalSession() override { kill(); }

    // Waits for the agent's "ready" line; throws sandbox_error with what went wrong.
    void wait_until_ready() override {
        const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
        for (;;) {
            if (auto line = next_line(deadline, local::kEventLineBytes)) {
                if (line->kind != local::AgentLine::Kind::line) continue;
                auto event = local::parse_agent_event(line->text, local::kEventJsonDepth);
                if (event && event->contains("type") && event->at("type") == "ready") {
                    ready_ = std::move(*event);
                    return;
                }
                continue;
            }
            std::string why = closed_reason_.empty() ? "did not start within " + std::to_string(kStartTimeout.count()) + " s" : closed_reason_;
            local::ChildReport report;
            if (::recv(sandbox_.report.get(), &report, sizeof report, MSG_DONTWAIT) == static_cast<ssize_t>(sizeof report) &&
                report.kind == local::ChildReport::setup_failed)
                why = local::describe_setup_failure(report);
            throw sandbox_error("the session's sandbox could not start: " + why + stderr_excerpt());
        }
    }

    const std::string& id() const noexcept override { return id_; }
    const std::string& keeper_id() const noexcept override { return id_; }

    SessionInfo info() const override {
        std::lock_guard lock(state_mutex_);
        return {id_, metadata_, started_at_, end_at_, !closed_, sandbox_.pid()};
    }
    bool alive() const override {
        std::lock_guard lock(state_mutex_);
        return !closed_;
    }

    // Every call is asynchronous (initiate_call); the blocking form runs one on a private io_context, as
    // LocalSandbox::execute does, so the Python module and the CLI keep their blocking API. `interrupt` reaches
    // the call through its cancellation slot.
    SessionEvent call(json::object request, const SessionEventHandler& on_event,
                      std::optional<std::chrono::milliseconds> request_timeout, CallInterrupt* interrupt) override {
        // Shared: an interrupt from another thread may still hold the context for a moment after this returns
        // (what it posts then is never run).
        auto io = std::make_shared<asio::io_context>(1);
        asio::cancellation_signal cancel;
        std::exception_ptr failure;
        std::optional<SessionEvent> outcome;
        async_call(std::move(request), on_event, request_timeout,
                   asio::bind_cancellation_slot(cancel.slot(), asio::bind_executor(*io, [&](std::exception_ptr thrown, SessionEvent event) {
                       failure = thrown;
                       outcome = std::move(event);
                   })));
        struct Unbind {
            CallInterrupt* interrupt;
            ~Unbind() {
                if (interrupt) interrupt->unbind();  // before the call goes: no interrupt reaches a later request
            }
        } unbind{interrupt};
        if (interrupt)
            interrupt->bind([io, &cancel](CallInterrupt::Mode mode) {
                asio::post(*io, [&cancel, mode] {
                    cancel.emit(mode == CallInterrupt::Mode::detach ? asio::cancellation_type::partial
                                                                    : asio::cancellation_type::terminal);
                });
            });
        io->run();
        if (failure) std::rethrow_exception(failure);
        return std::move(*outcome);
    }

    // The request is sent at once; its lines come from the session's one reader (read_next), which hands each
    // to the call it belongs to (by id), on that call's executor. Each call parses its own lines there, with
    // its own caps, and has its own deadline (a timer on its executor). Nothing runs for an idle session.
    void initiate_call(asio::any_io_executor io, json::object request, SessionEventHandler on_event,
                       std::optional<std::chrono::milliseconds> request_timeout, CallHandler& handler) override {
        if (!request.contains("op") || !request.at("op").is_string())
            throw input_error("a session request needs an \"op\" (see docs/session-protocol.md)");
        check_open();
        const std::int64_t id = ++next_request_id_;
        request["id"] = id;
        const bool streams = session_request_streams(request);
        auto call = std::make_shared<PendingCall>(id, io, streams, local::call_caps(request, limits_),
                                                  session_request_budget(request, request_timeout), std::move(on_event));
        {
            std::lock_guard lock(dispatch_mutex_);
            pending_.emplace(id, call);
        }
        // A session closed meanwhile has failed its pending calls already, or fails this one now: either way the
        // call is known to close_with() or sees the flag it set first.
        try {
            if (closed_flag_) throw closed_error();
            send(json::serialize(request) + "\n");
        } catch (...) {
            std::lock_guard lock(dispatch_mutex_);
            pending_.erase(id);
            throw;  // `handler` is still the caller's
        }
        {
            std::lock_guard lock(dispatch_mutex_);
            call->handler.emplace(std::move(handler));  // constructed: Asio 1.81's move assignment recurses forever
        }
        call->slot = asio::get_associated_cancellation_slot(*call->handler);
        if (call->slot.is_connected())
            call->slot.assign([self = weak_from_this(), id](asio::cancellation_type type) {
                if (auto session = self.lock())
                    session->send_interrupt(id, type == asio::cancellation_type::partial ? CallInterrupt::Mode::detach
                                                                                        : CallInterrupt::Mode::stop);
            });
        arm_deadline(call);
        bool closed;
        {
            std::lock_guard lock(dispatch_mutex_);
            closed = stream_closed_;
            if (!closed && !reader_busy_) read_next(io);
        }
        if (closed) asio::post(io, [self = shared_from_this(), call] { self->finish_closed(call); });
    }

    void interrupt() override {
        std::vector<std::int64_t> running;
        {
            std::lock_guard lock(dispatch_mutex_);
            for (const auto& [id, call] : pending_)
                if (call->id == id) running.push_back(id);  // not the liveness probes
        }
        for (const auto id : running) send_interrupt(id, CallInterrupt::Mode::stop);
    }

    SessionUsage usage() const override {
        std::lock_guard lock(state_mutex_);  // the sandbox is not killed meanwhile
        if (closed_) throw sandbox_error("session " + id_ + " is closed: " + closed_reason_, errc::session_closed);
        return local::measure_session_usage(sandbox_, limits_);
    }

    void set_timeout(std::chrono::milliseconds timeout) override {
        check_open();
        {
            std::lock_guard lock(state_mutex_);
            end_at_ = std::chrono::system_clock::now() + timeout;
        }
        local::SessionKeeper::instance().schedule(shared_from_this(), std::chrono::steady_clock::now() + timeout);
    }

    void kill() noexcept override {
        close_with("it was killed");
        local::SessionKeeper::instance().forget(id_);
    }

    void expire() noexcept override {
        std::chrono::seconds lived;
        {
            std::lock_guard lock(state_mutex_);
            lived = std::chrono::duration_cast<std::chrono::seconds>(end_at_ - started_at_);
        }
        close_with("it reached its timeout of " + std::to_string(lived.count()) +
                   " s (extend it with set_timeout, or pass a longer timeout when creating it)");
    }

    void end_with_owner() noexcept override { close_with("the process that owned it exited"); }

    const json::object& ready() const noexcept { return ready_; }

    void keep_until_handed_out() override {
        // A ready session waits without a lifetime; the keeper still ends it when the process exits.
        local::SessionKeeper::instance().schedule(shared_from_this(), std::chrono::steady_clock::now() + kKeptReady);
    }

    bool fit_to_hand_out() noexcept override {
        if (!alive()) return false;
        // An idle agent writes nothing and its init does not exit: anything readable means it is not fit.
        pollfd fds[2] = {{sandbox_.stdout_read.get(), POLLIN, 0}, {sandbox_.pidfd(), POLLIN, 0}};
        return ::poll(fds, sandbox_.pidfd() >= 0 ? 2 : 1, 0) == 0 && lines_.empty();
    }

    void hand_out(const SessionOptions& options) override {
        {
            std::lock_guard lock(state_mutex_);
            started_at_ = std::chrono::system_clock::now();
            end_at_ = started_at_ + options.timeout;
            metadata_ = options.metadata;
        }
        local::SessionKeeper::instance().schedule(shared_from_this(), std::chrono::steady_clock::now() + options.timeout);
    }

private:
    // One call in progress, shared by the reader (its inbox) and its own executor (everything else).
    struct PendingCall {
        PendingCall(std::int64_t call_id, asio::any_io_executor executor, bool streaming, const local::CallCaps& call_caps,
                    std::optional<std::chrono::milliseconds> budget, SessionEventHandler events)
            : id(call_id), io(std::move(executor)), streams(streaming), caps(call_caps), intake(call_caps), deadline(budget),
              on_event(std::move(events)), timer(io) {}

        const std::int64_t id;
        const asio::any_io_executor io;  // where its lines are parsed, its events and its completion run
        const bool streams;
        const local::CallCaps caps;
        local::CallIntake intake;
        local::CallDeadline deadline;
        SessionEventHandler on_event;
        std::optional<CallHandler> handler;  // set once the request is sent
        asio::cancellation_slot slot;  // the caller's, cleared before the handler runs
        asio::steady_timer timer;      // the deadline
        std::optional<std::int64_t> probe;  // the id of its liveness probe, once sent
        // Guarded by dispatch_mutex_.
        std::deque<local::AgentLine> inbox;
        bool draining = false;
        bool done = false;
    };

    // Reads the agent's stdout once more, on `io` (the executor of a call waiting for a line). Called with
    // dispatch_mutex_ held and no read in flight. The descriptor is made again when the executor changes (a
    // blocking call's private io_context ends with its call).
    void read_next(const asio::any_io_executor& io) {
        if (!reader_ || reader_io_ != io) {
            reader_.reset();
            const int fd = ::fcntl(sandbox_.stdout_read.get(), F_DUPFD_CLOEXEC, 0);
            if (fd < 0) {
                stream_closed_ = true;  // out of descriptors: the calls fail as if the agent were gone
                for (const auto& [pending_id, call] : pending_)
                    asio::post(call->io, [self = shared_from_this(), call = call] { self->finish_closed(call); });
                return;
            }
            try {
                reader_ = std::make_unique<asio::posix::stream_descriptor>(io, fd);
            } catch (const std::exception&) {
                // The executor's reactor refused it (out of memory, epoll_ctl): no handler may throw out of a
                // caller's run(), so the calls end as if the agent were gone.
                ::close(fd);
                stream_closed_ = true;
                for (const auto& [pending_id, call] : pending_)
                    asio::post(call->io, [self = shared_from_this(), call = call] { self->finish_closed(call); });
                return;
            }
            reader_io_ = io;
        }
        reader_busy_ = true;
        reader_->async_read_some(asio::buffer(read_chunk_), [self = shared_from_this()](boost::system::error_code ec, std::size_t bytes) {
            self->on_read(ec, bytes);
        });
    }

    // On the reader's executor: routes every whole line to its call, then reads on where a call still waits.
    void on_read(boost::system::error_code ec, std::size_t bytes) {
        std::vector<std::shared_ptr<PendingCall>> woken;
        bool ended = false;
        {
            std::lock_guard lock(dispatch_mutex_);
            reader_busy_ = false;
            lines_.append(std::string_view(read_chunk_.data(), bytes));
            if (ec && ec != asio::error::operation_aborted) stdout_closed_ = true;
            std::size_t line_cap = local::kEventLineBytes;
            for (const auto& [pending_id, call] : pending_) line_cap = std::max(line_cap, call->caps.line_bytes);
            while (auto line = lines_.next(line_cap)) route(std::move(*line), woken);
            if (stdout_closed_) {
                stream_closed_ = ended = true;
                reader_.reset();
            } else if (pending_.empty()) {
                reader_.reset();  // an idle session holds nothing on anybody's loop
            } else {
                auto next_io = pending_.begin()->second->io;
                for (const auto& [pending_id, call] : pending_)
                    if (call->io == reader_io_) next_io = reader_io_;
                read_next(next_io);
            }
        }
        drain_stderr();
        for (auto& call : woken) asio::post(call->io, [self = shared_from_this(), call] { self->drain(call); });
        if (ended) end_of_stream();
    }

    // Hands a line to the call it belongs to (the agent puts the id first on every line it writes; a line
    // too long to keep was recognised by its first bytes). A line nobody claims — no id, or a request that is
    // gone — is dropped, unless exactly one call waits: then it is that call's (a line that is not JSON at
    // all is its agent's failure to report). Called with dispatch_mutex_ held.
    void route(local::AgentLine line, std::vector<std::shared_ptr<PendingCall>>& woken) {
        const auto owner = line.kind == local::AgentLine::Kind::line ? local::AgentLines::leading_id(line.text) : line.id;
        std::shared_ptr<PendingCall> call;
        if (owner) {
            if (const auto found = pending_.find(*owner); found != pending_.end()) call = found->second;
        } else if (pending_.size() == 1) {
            call = pending_.begin()->second;
        }
        if (!call) return;
        call->inbox.push_back(std::move(line));
        if (std::find(woken.begin(), woken.end(), call) == woken.end()) woken.push_back(call);
    }

    // On the call's executor: its lines, in order, until its final event.
    void drain(const std::shared_ptr<PendingCall>& call) {
        {
            std::lock_guard lock(dispatch_mutex_);
            if (call->draining || call->done) return;
            call->draining = true;
        }
        for (;;) {
            local::AgentLine line;
            {
                std::lock_guard lock(dispatch_mutex_);
                if (call->done || call->inbox.empty()) {
                    call->draining = false;
                    return;
                }
                line = std::move(call->inbox.front());
                call->inbox.pop_front();
            }
            std::optional<SessionEvent> outcome;
            try {
                outcome = take_line(*call, std::move(line));
            } catch (...) {
                // The caller's on_event threw: the call ends with it (the request may still run in the agent).
                return finish(call, std::current_exception(), {});
            }
            if (outcome) return finish(call, nullptr, std::move(*outcome));
        }
    }

    // On the call's executor: the deadline (see session_deadline.hpp) checked when its timer fires.
    void arm_deadline(const std::shared_ptr<PendingCall>& call) {
        call->timer.expires_at(call->deadline.next());
        call->timer.async_wait([self = shared_from_this(), call](boost::system::error_code ec) {
            if (!ec) self->on_deadline(call);
        });
    }

    void on_deadline(const std::shared_ptr<PendingCall>& call) {
        {
            std::lock_guard lock(dispatch_mutex_);
            if (call->done) return;
        }
        if (std::chrono::steady_clock::now() < call->deadline.next()) return arm_deadline(call);  // the agent answered a probe
        if (!call->deadline.start_probe()) return finish(call, nullptr, stalled(call->id, call->deadline));
        // The agent did not answer in time: ask whether it is alive at all (answered even while requests
        // stream); if it does not say so, or takes past the grace, it has stalled.
        const std::int64_t probe = ++next_request_id_;
        call->probe = probe;
        {
            std::lock_guard lock(dispatch_mutex_);
            pending_.emplace(probe, call);
        }
        try {
            send(json::serialize(json::object{{"id", probe}, {"op", session_op::ping}}) + "\n");
        } catch (const error&) {
            // closed meanwhile: close_with() fails the call
        }
        arm_deadline(call);
    }

    // On the call's executor, once: unregisters the call and runs its handler. When the reader reads on this
    // executor for this call alone, its read is cancelled, so that a blocking call's io_context ends with it;
    // it then moves to a call still waiting elsewhere (on_read).
    void finish(const std::shared_ptr<PendingCall>& call, std::exception_ptr thrown, SessionEvent event) {
        {
            std::lock_guard lock(dispatch_mutex_);
            if (call->done) return;
            if (!call->handler) {
                // Closed by another thread while the call was still being started (a multi-threaded executor):
                // once more, after its start.
                asio::post(call->io, [self = shared_from_this(), call, thrown, event = std::move(event)]() mutable {
                    self->finish(call, thrown, std::move(event));
                });
                return;
            }
            call->done = true;
            pending_.erase(call->id);
            if (call->probe) pending_.erase(*call->probe);
            if (reader_busy_ && reader_io_ == call->io &&
                std::none_of(pending_.begin(), pending_.end(), [&](const auto& entry) { return entry.second->io == call->io; }))
                reader_->cancel();
        }
        call->timer.cancel();
        if (call->slot.is_connected()) call->slot.clear();
        CallHandler handler(std::move(*call->handler));
        call->handler.reset();
        call->on_event = nullptr;
        std::move(handler)(thrown, std::move(event));
    }

    void finish_closed(const std::shared_ptr<PendingCall>& call) {
        finish(call, std::make_exception_ptr(closed_error()), {});
    }

    // Every call waiting now ends with session_closed, on its own executor.
    void fail_pending() {
        std::lock_guard lock(dispatch_mutex_);
        for (const auto& [pending_id, call] : pending_)
            if (call->id == pending_id)
                asio::post(call->io, [self = shared_from_this(), call = call] { self->finish_closed(call); });
    }

    // The agent's stdout ended: the session is over (closed_error() names why when nobody closed it).
    void end_of_stream() {
        bool was_closed;
        {
            std::lock_guard lock(state_mutex_);
            was_closed = closed_;
        }
        if (!was_closed) (void)closed_error();  // closes it, which fails the calls
        else fail_pending();
    }

    // One line of this call's, taken on the call's executor: its final event, or nullopt to go on.
    std::optional<SessionEvent> take_line(PendingCall& call, local::AgentLine line) {
        const auto id = call.id;
        const auto& caps = call.caps;
        auto& intake = call.intake;
        const auto& on_event = call.on_event;
        if (line.kind == local::AgentLine::Kind::line && line.text.size() > caps.line_bytes)
            line = local::AgentLine{local::AgentLine::Kind::too_long, {}, line.text.size()};
        if (line.kind == local::AgentLine::Kind::too_long) {
            intake.dropped_long_line(line.bytes);
            if (!call.streams) return failure(id, "too_large", "the sandbox's answer was longer than the " +
                                                                  std::to_string(caps.line_bytes >> 20) +
                                                                  " MiB the host accepts for it (docs/sessions.md)");
            return std::nullopt;
        }
        auto event = local::parse_agent_event(line.text, caps.json_depth);
        if (!event) {
            intake.dropped_malformed_line(line.text.size());
            if (!call.streams)
                return failure(id, "protocol", "the sandbox's agent answered with a line that is not a JSON object: " +
                                                   line.text.substr(0, 200));
            return std::nullopt;
        }
        const auto* event_id = event->if_contains("id");
        if (!event_id || !event_id->is_int64()) return std::nullopt;
        if (call.probe && event_id->as_int64() == *call.probe) {
            call.deadline.agent_alive();
            return std::nullopt;
        }
        if (event_id->as_int64() != id) return std::nullopt;
        const auto* type_field = event->if_contains("type");
        const std::string_view type = type_field && type_field->is_string() ? std::string_view(type_field->as_string()) : "";
        const bool final = type == "end_of_execution" || type == "end" || type == "reply" || type == "failure";
        if (final) {
            if (intake.dropped_anything() && on_event) on_event(intake.marker_event(id));
            return std::move(*event);
        }
        if (type == "error") name_memory_limit(*event);
        if (intake.accept(type, line.text.size()) && on_event) on_event(*event);
        return std::nullopt;
    }

    // A kernel the memory cgroup killed dies of SIGKILL, and the agent inside can say no more than "signal:
    // killed". The host sees the kill in the session's cgroup: when one happened since the last such death, the
    // error says which limit it was and how to raise it, as a one-shot execution's memory_limit does.
    void name_memory_limit(json::object& event) {
        const auto* name = event.if_contains("name");
        auto* value = event.if_contains("value");
        if (!name || *name != "KernelDied" || !value || !value->is_string() ||
            value->get_string().find("signal: killed") == json::string::npos)
            return;
        {
            std::lock_guard lock(state_mutex_);  // the sandbox (its cgroup) is not killed meanwhile
            if (closed_ || !sandbox_.cgroup) return;
            const auto kills = sandbox_.cgroup->usage().oom_kills;
            if (kills <= oom_kills_named_) return;
            oom_kills_named_ = kills;
        }
        const auto larger = std::to_string(2 * limits_.memory_bytes / kMiB);
        *value = std::string(value->get_string()) + "; it ran out of memory: the session's processes together reached its memory " +
                 "limit of " + std::to_string(limits_.memory_bytes / kMiB) +
                 " MiB and the kernel killed the cell's process. Raise the limit when you create the sandbox: " +
                 "e2beval.Sandbox.create(limits={\"memory_mb\": " + larger + "}), or `e2beval serve --memory-mb " + larger + "`";
    }

    void send_interrupt(std::int64_t target, CallInterrupt::Mode mode) {
        try {
            send(json::serialize(json::object{{"id", ++next_request_id_}, {"op", session_op::interrupt}, {"target", target},
                                              {"mode", mode == CallInterrupt::Mode::detach ? "detach" : "stop"}}) +
                 "\n");
        } catch (const error&) {
            // the session is gone: nothing is running any more
        }
    }

    // Never called with dispatch_mutex_ held (it takes it to fail the calls in progress).
    void close_with(const std::string& reason) noexcept {
        {
            std::lock_guard lock(state_mutex_);
            if (closed_) return;
            closed_ = true;
            closed_flag_ = true;
            closed_reason_ = reason;
            const std::uint64_t one = 1;
            [[maybe_unused]] const auto woken = ::write(closed_wake_.get(), &one, sizeof one);  // wait_until_ready's poll()
            // Ends every process of the session (its pid namespace) and removes its cgroup; the workspace is a
            // tmpfs of the sandbox's mount namespace and goes with it. Pipes stay open until destruction.
            sandbox_.kill();
        }
        fail_pending();  // every waiting call ends with session_closed, woken on its own executor
    }

    void check_open() const {
        std::lock_guard lock(state_mutex_);
        if (closed_) throw sandbox_error("session " + id_ + " is closed: " + closed_reason_, errc::session_closed);
    }

    sandbox_error closed_error() {
        std::string reason;
        {
            std::lock_guard lock(state_mutex_);
            reason = closed_reason_;
        }
        if (reason.empty()) {
            reason = "its sandbox ended unexpectedly (the memory or process limit of the session, or the agent was killed)" +
                     stderr_excerpt();
            close_with(reason);
        }
        return sandbox_error("session " + id_ + " is closed: " + reason, errc::session_closed);
    }

    void send(const std::string& line) {
        std::lock_guard lock(write_mutex_);
        check_open();
        write_line(sandbox_.stdin_write.get(), line);
    }


    // The next line from the agent, waited for on this thread (only before the session is shared:
    // wait_until_ready): nullopt when the agent is gone, the session was closed or `deadline` passed first.
    std::optional<local::AgentLine> next_line(std::chrono::steady_clock::time_point deadline, std::size_t max_line_bytes) {
        for (;;) {
            if (auto line = lines_.next(max_line_bytes)) return line;
            if (stdout_closed_) return std::nullopt;
            pollfd fds[3] = {{sandbox_.stdout_read.get(), POLLIN, 0},
                             {closed_wake_.get(), POLLIN, 0},
                             {sandbox_.stderr_read.get(), POLLIN, 0}};
            int wait_ms = -1;
            if (deadline != std::chrono::steady_clock::time_point::max()) {
                const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
                if (left.count() <= 0) return std::nullopt;
                wait_ms = static_cast<int>(std::min<std::int64_t>(left.count(), 60'000));
            }
            const int ready = ::poll(fds, 3, wait_ms);
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) throw sandbox_error(describe_syscall_failure("poll(session pipes)", errno));
            if (fds[2].revents & (POLLIN | POLLHUP)) drain_stderr();
            if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                char chunk[65536];
                const ssize_t n = ::read(sandbox_.stdout_read.get(), chunk, sizeof chunk);
                if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
                if (n <= 0) {
                    stdout_closed_ = true;
                    continue;
                }
                lines_.append(std::string_view(chunk, static_cast<std::size_t>(n)));
                continue;
            }
            if (fds[1].revents & POLLIN) {
                std::lock_guard lock(state_mutex_);
                if (closed_) return std::nullopt;
            }
        }
    }

    // The agent neither answered by the deadline nor showed it is alive: it cannot be trusted to answer
    // anything any more, so the session is killed; the caller gets the SDK's timeout.
    SessionEvent stalled(std::int64_t id, const local::CallDeadline& deadline) {
        const auto seconds = [](std::chrono::milliseconds duration) {
            char text[32];
            std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
            return std::string(text);
        };
        const auto budget = deadline.budget() ? seconds(*deadline.budget()) : std::string("its limit");
        const std::string why =
            deadline.phase() == local::CallDeadline::Phase::alive
                ? "its agent was still busy " + seconds(local::CallDeadline::kLiveAgentGrace) + " after the request's " +
                      budget + " had passed"
                : "its agent did not answer within the request's " + budget +
                      " and did not answer a liveness check either (stalled: stopped, or kept from reading by the "
                      "code it runs)";
        close_with(why + "; the sandbox was killed");
        return failure(id, "timeout", "Request timed out: " + why + ", so the host killed the sandbox (the "
                                      "'timeout' or 'request_timeout' option gives a request more time)");
    }

    static SessionEvent failure(std::int64_t id, const std::string& kind, const std::string& message) {
        return {{"id", id}, {"type", "failure"}, {"kind", kind}, {"message", message}};
    }

    // The agent's own stderr, kept for the reason of a failure (its last words). Read when the reader wakes and
    // when a failure is described; its pipe's buffer holds what comes meanwhile (the agent writes little there).
    void drain_stderr() {
        std::lock_guard lock(stderr_mutex_);
        if (!stderr_open_) return;
        char chunk[8192];
        for (;;) {
            const ssize_t n = ::read(sandbox_.stderr_read.get(), chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n == 0) stderr_open_ = false;
            if (n <= 0) return;
            stderr_tail_.append(chunk, static_cast<std::size_t>(n));
            if (stderr_tail_.size() > kStderrTail) stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
        }
    }

    std::string stderr_excerpt() {
        drain_stderr();
        std::lock_guard lock(stderr_mutex_);
        if (stderr_tail_.empty()) return {};
        const auto start = stderr_tail_.size() > 1500 ? stderr_tail_.size() - 1500 : 0;
        return "; the agent's last words: " + stderr_tail_.substr(start);
    }

    const std::string id_;
    local::InteractiveSandbox sandbox_;
    const Limits limits_;
    std::map<std::string, std::string> metadata_;         // set again at hand-out (pool)
    std::chrono::system_clock::time_point started_at_;  // the time it was created, or handed out from the pool
    std::chrono::system_clock::time_point end_at_;
    json::object ready_;

    mutable std::mutex state_mutex_;  // closed_, closed_reason_, oom_kills_named_, started_at_, end_at_, metadata_, sandbox_ (kill)
    bool closed_ = false;
    std::string closed_reason_;
    std::uint64_t oom_kills_named_ = 0;  // the cgroup's OOM kills a KernelDied error has named already
    const local::UniqueFd closed_wake_;  // readable once closed: wakes a call() waiting for the agent

    std::atomic<bool> closed_flag_{false};  // closed_, readable without state_mutex_

    std::mutex write_mutex_;  // requests and interrupts, one line at a time
    std::atomic<std::int64_t> next_request_id_{0};

    // The calls in progress and the one reader (see initiate_call): guarded by dispatch_mutex_.
    std::mutex dispatch_mutex_;
    std::map<std::int64_t, std::shared_ptr<PendingCall>> pending_;  // by request id, and by each call's probe id
    std::unique_ptr<asio::posix::stream_descriptor> reader_;  // a duplicate of the agent's stdout, on reader_io_
    asio::any_io_executor reader_io_;
    bool reader_busy_ = false;    // a read is in flight (its buffer is read_chunk_)
    bool stream_closed_ = false;  // the reader found the agent's stdout closed
    std::array<char, 65536> read_chunk_;
    local::AgentLines lines_;     // also wait_until_ready's, before the session is shared
    bool stdout_closed_ = false;

    std::mutex stderr_mutex_;
    bool stderr_open_ = true;
    std::string stderr_tail_;
};

}  // namespace

Limits default_session_limits() {
    Limits limits;
    limits.memory_bytes = 1024 * kMiB;
    limits.max_processes = 256;
    limits.output_bytes = 1 * kMiB;  // per stream per cell or command (the agent caps it)
    limits.file_size_bytes = 256 * kMiB;
    limits.workspace_bytes = 512 * kMiB;
    limits.open_files = 1024;
    return limits;
}

std::shared_ptr<local::PoolableSession> local::start_session(const LocalSandbox::Settings& settings,
                                                              const SessionOptions& options) {
    auto sandbox = SessionKeeper::instance().spawn(session_sandbox_request(settings, options, kSessionAgentSource));
    return std::make_shared<LocalSession>(random_id(), std::move(sandbox), options);
}

std::shared_ptr<Session> LocalSandbox::create_session(const SessionOptions& options) {
    if (options.timeout.count() <= 0) throw input_error("a session's timeout must be positive (seconds until it is killed)");
    local::check_limits_and_environment(options.limits, options.env);
    // The template first: an unknown one is refused before anything starts, and the built-in one is built on its
    // first use with this sandbox's Python.
    local::sandbox_python(settings_->python, options.template_name);
    if (auto pooled = session_pool_->take(options)) {
        sessions_->add(pooled);
        return pooled;
    }
    auto session = local::start_session(*settings_, options);
    session->wait_until_ready();
    session->hand_out(options);
    sessions_->add(session);
    // Sessions like this one are wanted: from now on one waits ready (started in the background, after this
    // one, so the two do not compete for the CPU).
    session_pool_->keep_ready(options);
    return session;
}

void LocalSandbox::keep_sessions_ready(const SessionOptions& options) {
    local::check_limits_and_environment(options.limits, options.env);
    local::sandbox_python(settings_->python, options.template_name);
    session_pool_->keep_ready(options);
}

std::vector<int> LocalSandbox::ready_session_pids() const { return session_pool_->ready_pids(); }

std::vector<SessionInfo> LocalSandbox::list_sessions() { return sessions_->list(); }

std::shared_ptr<Session> LocalSandbox::find_session(const std::string& id) { return sessions_->find(id); }

}  // namespace e2beval
