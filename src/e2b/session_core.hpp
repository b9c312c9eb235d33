// The engine-side state of one E2B session (src/e2b/e2b_session.cpp): the remote sandbox, the commands it
// started and follows, the calls in flight. Everything here runs on the engine's thread, so it needs no lock.
//
// serve_request translates one request of docs/session-protocol.md into E2B calls (session_ops.cpp; commands
// in session_commands.cpp) and sends the answer back as the protocol's events through the call's channel.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "e2b/e2b_api.hpp"
#include "e2b/engine.hpp"
#include "e2b/session_call.hpp"

namespace e2beval::e2b {

// One caller following a command (a foreground run_command or a command_wait).
struct CommandListener {
    std::shared_ptr<CallChannel> channel;
    std::shared_ptr<CallControl> control;
    bool start_only = false;  // a background run_command: it only waits for the pid
    bool timed_out = false;   // its command_wait's timeout killed the command
    bool kill_on_start = false;  // interrupted before the process started
};

// A command this session started: followed on the engine for as long as it runs, its output buffered while
// nobody follows it (docs/session-protocol.md, "Commands").
struct RemoteCommand {
    int pid = 0;
    std::string cmd;
    std::optional<std::vector<std::string>> args;  // nullopt: `cmd` is a bash line
    std::map<std::string, std::string> envs;
    std::string cwd;
    std::string tag;
    bool background = false;
    bool stdin_open = false;
    std::optional<boost::json::object> end;  // once it ended with nobody following
    std::vector<boost::json::object> buffered;
    std::uint64_t buffered_bytes[2] = {0, 0};  // stdout, stderr
    bool buffer_truncated[2] = {false, false};
    std::string partial_utf8[2];  // a character split between two reads
    std::vector<std::shared_ptr<CommandListener>> listeners;
};

struct SessionCore {
    std::shared_ptr<E2bSandbox::Engine> engine;
    RemoteSandbox remote;
    std::map<int, std::shared_ptr<RemoteCommand>> commands;  // by pid, until collected
    std::set<std::shared_ptr<CallControl>> calls;            // in flight
    bool closed = false;
    std::string closed_reason;

    // Marks the session closed, stops every call in flight (each ends with session_closed).
    void close(const std::string& reason);
    // The exception a call on a closed session throws.
    std::exception_ptr closed_error() const;
};

// Serves one request: the final event, or nullopt when something else already finished the channel (a
// command's follower sends `end`). Throws sandbox_error(errc::session_closed) when the sandbox is gone.
boost::asio::awaitable<std::optional<boost::json::object>> serve_request(std::shared_ptr<SessionCore> core, boost::json::object request,
                                                                         std::shared_ptr<CallChannel> channel,
                                                                         std::shared_ptr<CallControl> control);

// The command ops (session_commands.cpp): run_command, command_wait, command_kill, command_send_stdin,
// command_close_stdin, command_list.
boost::asio::awaitable<std::optional<boost::json::object>> serve_command_request(std::shared_ptr<SessionCore> core,
                                                                                 const std::string& op, boost::json::object request,
                                                                                 std::shared_ptr<CallChannel> channel,
                                                                                 std::shared_ptr<CallControl> control);

// What an E2B call's failure means for the protocol: a "failure" event of the right kind, or — when the
// sandbox is gone (502 from its proxy, or a broken stream and a /health that says so) — the session is closed
// and session_closed thrown.
boost::asio::awaitable<boost::json::object> failure_event(SessionCore& core, std::exception_ptr failure);

boost::json::object failure(const std::string& kind, const std::string& message);
// A request's field checks: input_error naming the field when it has the wrong type.
std::string required_string(const boost::json::object& request, std::string_view key);
std::optional<std::string> optional_string(const boost::json::object& request, std::string_view key);
std::optional<double> optional_number(const boost::json::object& request, std::string_view key);
std::map<std::string, std::string> string_map_field(const boost::json::object& request, std::string_view key);
std::string utc_timestamp_now();

}  // namespace e2beval::e2b
