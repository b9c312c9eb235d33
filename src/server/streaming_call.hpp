// A session request whose events a coroutine reads as they come: the call runs on a thread of its own and
// feeds an EventPipe; when the client goes away, the request is interrupted (and only that request).
#pragma once

#include <memory>

#include <boost/json/object.hpp>

#include "server/blocking_calls.hpp"
#include "server/sandbox_store.hpp"

namespace e2beval::server {

// The pipe gets every event as JSON text, the final one last, then ends (with the exception the call threw,
// if any: a session that closed mid-request throws sandbox_error).
std::shared_ptr<EventPipe> start_streaming_call(BlockingCalls& calls, boost::asio::any_io_executor io,
                                                std::shared_ptr<ServedSandbox> sandbox, boost::json::object request);

// Called when the client went away: nothing more is pushed, and the request is interrupted if it is running
// (a command that follows a process detaches from it with Mode::detach: envd keeps the process running).
void abandon_streaming_call(const std::shared_ptr<EventPipe>& pipe, ServedSandbox& sandbox,
                            CallInterrupt::Mode mode = CallInterrupt::Mode::stop);

bool is_final_event(const boost::json::object& event);

// {"op": op} plus one string field: built in a plain function, because GCC 12 cannot brace-initialise JSON
// from string literals inside a coroutine.
boost::json::object session_request(std::string_view op, std::string_view key = {}, std::string_view value = {});

}  // namespace e2beval::server
