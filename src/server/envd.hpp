// envd, a sandbox's system daemon (E2B's port 49983): /health, /files (download and upload), and the Connect
// services process.Process and filesystem.Filesystem, as far as docs/serve.md says they are served.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <variant>

#include <boost/json/object.hpp>

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"
#include "server/plan.hpp"
#include "server/server_context.hpp"

namespace e2beval::server {

boost::asio::awaitable<void> serve_envd(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox);

// Parts of envd, each in its own file.
Plan plan_files(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox);  // envd_files.cpp
// filesystem.Filesystem/<method>: the plan of a unary call served (Stat, ListDir, MakeDir, Move, Remove);
// nullopt for a method not served.
std::optional<Plan> plan_filesystem(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view method);  // envd_filesystem.cpp
// filesystem.Filesystem/{CreateWatcher,GetWatcherEvents,RemoveWatcher}: likewise; nullopt for another method.
std::optional<Plan> plan_watcher_call(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view method);  // envd_watch.cpp
// filesystem.Filesystem/WatchDir, a server stream.
boost::asio::awaitable<void> serve_watch_dir(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox);  // envd_watch.cpp
// One session request of a unary Connect call: its reply, or the Connect error to answer instead (a failure
// event by its kind, a sandbox gone mid-call as "unavailable").
std::variant<boost::json::object, Response> connect_session_call(const std::shared_ptr<ServedSandbox>& sandbox, boost::json::object request);  // envd_filesystem.cpp
// A session's EntryInfo as filesystem.EntryInfo in proto3 JSON (Stat, ListDir, and watcher events' entries).
boost::json::object envd_entry_info(const boost::json::object& entry);  // envd_filesystem.cpp
// process.Process's streams (envd_process.cpp): Start, and Connect to a running process.
boost::asio::awaitable<void> serve_process_start(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox);
boost::asio::awaitable<void> serve_process_connect(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox);
// process.Process's unary calls (List, SendInput, SendSignal, CloseStdin) are in envd_process_calls.hpp.

// A unary Connect call's handler: the sandbox and the request message in, the answer out.
using UnaryConnectCall = Response (*)(const std::shared_ptr<ServedSandbox>&, const boost::json::object&);
// The plan of a unary Connect call: the request is checked (POST, a JSON body, not enveloped) and parsed, then
// `handler` runs on a thread of its own. `name` ("process.Process/List") names the call in error messages.
Plan plan_unary_connect_call(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view name,
                             UnaryConnectCall handler);  // envd.cpp

}  // namespace e2beval::server
