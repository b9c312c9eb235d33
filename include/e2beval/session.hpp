// Session: a long-lived sandbox with E2B's stateful model — code contexts that keep state between cells
// (Python, JavaScript), shell commands, files — behind the same isolation as a one-shot execution.
//
// A session speaks the protocol in docs/session-protocol.md: each request is a JSON object with an "op";
// the sandbox answers with events (the shapes of E2B's /execute stream and of its envd calls), ending with
// one final event. Typed wrappers for the common calls are below; `call` reaches every op.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/system_executor.hpp>
#include <boost/json/object.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/core/types.hpp"

namespace e2beval {

// The limits of a whole session (not of one cell): the defaults suit a notebook-like sandbox, like E2B's
// default template (memory for the whole tree, room for files, no CPU-time cap).
Limits default_session_limits();

struct SessionOptions {
    Limits limits = default_session_limits();  // wall_time and cpu_time are ignored: `timeout` is the lifetime
    IsolationProfile isolation;
    std::chrono::milliseconds timeout{300'000};  // killed this long after creation (E2B's default), see set_timeout
    std::map<std::string, std::string> env;      // visible to every context and command
    std::map<std::string, std::string> metadata;
    // The template (docs/templates.md) whose environment the session runs; empty: the default environment.
    std::string template_name;
};

struct SessionInfo {
    std::string id;
    std::map<std::string, std::string> metadata;
    std::chrono::system_clock::time_point started_at;
    std::chrono::system_clock::time_point end_at;  // when the timeout kills it
    bool alive = false;
    int host_pid = -1;  // the sandbox's init on the host (its pid namespace holds every process of the session)
};

// What a session uses now (E2B's sandbox metrics), measured from the host: its cgroup (CPU time, memory) and its
// workspace (the only writable disk). A field the host cannot measure (no cgroup) is nullopt.
struct SessionUsage {
    std::chrono::system_clock::time_point measured_at;
    std::chrono::steady_clock::time_point measured_at_steady;  // for CPU use between two measurements
    std::optional<std::chrono::nanoseconds> cpu_time;  // of all its processes since it started
    unsigned cpu_count = 1;                          // the CPUs its processes may run on
    std::optional<std::uint64_t> memory_used_bytes;    // charged to its cgroup now, tmpfs files included
    std::optional<std::uint64_t> memory_cache_bytes;   // of which page cache
    std::uint64_t memory_total_bytes = 0;              // its memory limit (the host's memory without one)
    std::optional<std::uint64_t> disk_used_bytes;      // of its workspace
    std::optional<std::uint64_t> disk_total_bytes;
};

// Lets another thread interrupt one session call, and only that one: pass it to Session::call, then call
// interrupt() from any thread — before the call starts (it is interrupted as soon as it is sent), while it runs,
// or after it returned (nothing happens). One CallInterrupt serves one call at a time (bind() makes it
// serve the next).
class CallInterrupt {
public:
    enum class Mode {
        stop,    // the cell gets SIGINT (then a restart if it ignores it); a followed command is killed
        detach,  // a followed command keeps running and the call ends ({"type":"reply","detached":true});
                 // a cell takes it as stop
    };
    void interrupt(Mode mode = Mode::stop);

    // For Session implementations: while bound, interrupt() runs `action`; bind() runs it at once when an
    // interrupt came first. unbind() before the call returns (afterwards interrupt() does nothing).
    void bind(std::function<void(Mode)> action);
    void unbind();

private:
    std::mutex mutex_;
    std::function<void(Mode)> action_;
    std::optional<Mode> requested_;
    bool finished_ = false;
};

// One event of a request, as the sandbox sent it ({"type": "stdout", "text": ..., ...}).
using SessionEvent = boost::json::object;
using SessionEventHandler = std::function<void(const SessionEvent&)>;

// A cell's outcome, gathered from its events (the fields of E2B's Execution).
struct CellOutput {
    std::string text;
    std::chrono::system_clock::time_point timestamp;
};
struct Execution {
    std::vector<CellOutput> stdout_chunks;
    std::vector<CellOutput> stderr_chunks;
    std::vector<boost::json::object> results;  // {"is_main_result", "text", "html"?, "png"?, ...}
    struct Error {
        std::string name, value, traceback;
    };
    std::optional<Error> error;
    int execution_count = 0;
    bool timed_out = false;
    bool context_restarted = false;  // the timed-out cell did not stop when interrupted: the context is fresh

    std::optional<std::string> text() const;  // the main result's text, if any
};

// How Session::async_call completes: the exception the blocking call() would throw (sandbox_error with
// errc::session_closed when the session is gone) or nullptr, and the final event.
using CallSignature = void(std::exception_ptr, SessionEvent);
using CallHandler = boost::asio::any_completion_handler<CallSignature>;

struct CommandOutput {
    std::string stdout_data;
    std::string stderr_data;
    int exit_code = -1;
    std::optional<std::string> error;
    bool timed_out = false;
};

class Session {
public:
    virtual ~Session() = default;

    virtual const std::string& id() const noexcept = 0;
    virtual SessionInfo info() const = 0;
    virtual bool alive() const = 0;

    // Sends one request and returns its final event ("end_of_execution", "end", "reply" or "failure"),
    // calling `on_event` for every event before it. Throws sandbox_error (errc::session_closed) when the
    // session is gone (killed, timed out, or its sandbox died), input_error for a request that is not an
    // object with an "op". Failures of the request itself come back as a "failure" event, not an exception.
    //
    // The host waits with a deadline of its own (E2B's rules: the request's "timeout" bounds run_code, a
    // foreground command and command_wait; `request_timeout` every other request, default 60 s, 0 for none),
    // whatever the sandbox does: past it, a sandbox that does not show it is alive has stalled, the session
    // is killed and the call returns a "failure" event of kind "timeout". What a call may send the host is
    // capped (docs/sessions.md); what is past a cap is dropped and a "stderr" event says so.
    //
    // Calls may come from many threads at once: each gets its own events, deadline and caps (docs/sessions.md,
    // "Concurrent calls"). `interrupt`, when given, lets another thread interrupt this call only.
    virtual SessionEvent call(boost::json::object request, const SessionEventHandler& on_event = {},
                              std::optional<std::chrono::milliseconds> request_timeout = std::nullopt,
                              CallInterrupt* interrupt = nullptr) = 0;

    // call() without a thread of its own: the request is sent at once and the agent's answer read on the
    // executor associated with `token` (a coroutine's use_awaitable, asio::bind_executor; it must be an I/O
    // executor such as an io_context's), where `on_event` is called for every event before the final one and
    // the completion (CallSignature) runs. Many calls may be in progress on one session, from one executor or
    // several. The same deadlines, caps and failures as call(); a request that is not an object with an "op"
    // throws input_error here, before anything is sent. Cancellation (asio::bind_cancellation_slot) interrupts
    // the request, which then completes with its own final event: cancellation_type::partial as
    // CallInterrupt::Mode::detach (a followed command keeps running), terminal or total as Mode::stop.
    template <typename CompletionToken>
    auto async_call(boost::json::object request, SessionEventHandler on_event,
                    std::optional<std::chrono::milliseconds> request_timeout, CompletionToken&& token) {
        return boost::asio::async_initiate<CompletionToken, CallSignature>(
            [this](auto handler, boost::json::object queued, SessionEventHandler events,
                   std::optional<std::chrono::milliseconds> budget) {
                using Executor = boost::asio::associated_executor_t<decltype(handler)>;
                if constexpr (std::is_same_v<Executor, boost::asio::system_executor>) {
                    throw input_error("Session::async_call needs an I/O executor: give the completion handler one "
                                      "(asio::bind_executor, a coroutine's use_awaitable)");
                } else {
                    const boost::asio::any_io_executor io = boost::asio::get_associated_executor(handler);
                    CallHandler wrapped = on_handler_executor(io, std::move(handler));
                    initiate_call(io, std::move(queued), std::move(events), budget, wrapped);
                }
            },
            token, std::move(request), std::move(on_event), request_timeout);
    }
    template <typename CompletionToken>
    auto async_call(boost::json::object request, SessionEventHandler on_event, CompletionToken&& token) {
        return async_call(std::move(request), std::move(on_event), std::nullopt, std::forward<CompletionToken>(token));
    }

    // From another thread: interrupts every call running on this session at this moment (mode stop) — the
    // single-caller form (the Python module's Session.interrupt); with several callers, use a CallInterrupt.
    virtual void interrupt() = 0;

    // What it uses now. Never blocks on the sandbox (it reads the host's view), so it is answered while a
    // request runs; a closed session throws sandbox_error (errc::session_closed).
    virtual SessionUsage usage() const = 0;

    // Kills the session `timeout` from now (E2B's set_timeout).
    virtual void set_timeout(std::chrono::milliseconds timeout) = 0;
    // Kills every process of the session and removes its workspace and cgroup. Idempotent.
    virtual void kill() noexcept = 0;

    // Typed helpers over call().
    Execution run_code(const std::string& code, const std::optional<std::string>& language = std::nullopt,
                       const std::optional<std::string>& context = std::nullopt,
                       std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                       const SessionEventHandler& on_event = {});
    CommandOutput run_command(const std::string& command, std::optional<std::chrono::milliseconds> timeout = std::nullopt);
    void write_file(const std::string& path, const std::string& bytes);
    std::string read_file(const std::string& path);

protected:
    // What a backend implements for async_call: send `request`, read its events on `io`, and call `handler`
    // exactly once (on `io`). It may throw for a request it refuses, but only before it takes `handler`.
    // The default runs the blocking call() on a thread of its own (a backend without asynchronous I/O).
    virtual void initiate_call(boost::asio::any_io_executor io, boost::json::object request, SessionEventHandler on_event,
                               std::optional<std::chrono::milliseconds> request_timeout, CallHandler& handler);

private:
    // The completion runs on the handler's own associated executor, which is kept from running out of work
    // until then; the caller's cancellation slot stays associated (as Sandbox::async_execute's).
    template <typename Handler>
    static CallHandler on_handler_executor(const boost::asio::any_io_executor& io, Handler handler) {
        auto work = boost::asio::prefer(boost::asio::get_associated_executor(handler, io),
                                        boost::asio::execution::outstanding_work.tracked);
        auto slot = boost::asio::get_associated_cancellation_slot(handler);
        return CallHandler(boost::asio::bind_cancellation_slot(
            slot, [handler = std::move(handler), work = std::move(work)](std::exception_ptr failure, SessionEvent event) mutable {
                boost::asio::dispatch(work, [handler = std::move(handler), failure, event = std::move(event)]() mutable {
                    std::move(handler)(failure, std::move(event));
                });
            }));
    }
};

// The Session contract's budget for one request (Session::call, E2B's rules): the request's `timeout` bounds
// run_code, a foreground run_command (default kSessionCommandTimeout) and command_wait; `request_timeout`
// (default kSessionRequestTimeout) every other request. nullopt: unbounded (0, or no `timeout` for run_code and
// command_wait). Every backend's host-side deadline starts from it.
inline constexpr std::chrono::milliseconds kSessionRequestTimeout{60'000};
inline constexpr std::chrono::milliseconds kSessionCommandTimeout{60'000};
std::optional<std::chrono::milliseconds> session_request_budget(const boost::json::object& request,
                                                                std::optional<std::chrono::milliseconds> request_timeout);
// Whether `request` streams events before its final one (run_code, a foreground run_command, command_wait):
// a backend caps such a call's events per call.
bool session_request_streams(const boost::json::object& request);

// The sessions a face's backends started, listed and found by id. A face owns one (the server, the Python
// module) and shares it among the backend objects it creates; nothing is process-wide.
class SessionRegistry {
public:
    void add(const std::shared_ptr<Session>& session);
    std::vector<SessionInfo> list();                        // the live ones
    std::shared_ptr<Session> find(const std::string& id);  // nullptr when unknown or gone

private:
    std::mutex mutex_;
    std::vector<std::weak_ptr<Session>> sessions_;
};

}  // namespace e2beval
