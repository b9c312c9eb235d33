// The unary calls of envd's process.Process over a session's command ops: List (command_list), SendInput
// (command_send_stdin, bytes), SendSignal (command_kill, SIGKILL or SIGTERM), CloseStdin
// (command_close_stdin); and the process selector ({"pid": N} or {"tag": "..."}) they and Connect share.
// Errors are Connect's, as the SDKs map them: an unknown process is not_found.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <variant>

#include <boost/json/object.hpp>

#include "server/http_exchange.hpp"
#include "server/plan.hpp"

namespace e2beval::server {

struct ServedSandbox;

// process.Process/<method>: the plan of a unary call served (List, SendInput, SendSignal, CloseStdin);
// nullopt for a method not served here.
std::optional<Plan> plan_process_call(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view method);

// The pid of the running process `message.process` selects, or the Connect error to answer (not_found when
// no running process matches). Blocks: call it on a call thread.
std::variant<std::int64_t, Response> running_process_pid(const std::shared_ptr<ServedSandbox>& sandbox,
                                                         const boost::json::object& message);

// The session request that follows process `pid` to its end (Connect).
boost::json::object wait_request(std::int64_t pid);

}  // namespace e2beval::server
