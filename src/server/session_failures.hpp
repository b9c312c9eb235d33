// A session's "failure" events and call exceptions as HTTP answers: the kinds of docs/session-protocol.md
// map to the statuses the SDKs turn into the matching exception.
#pragma once

#include <exception>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "server/http_exchange.hpp"

namespace e2beval::server {

// not_found → 404, invalid/unsupported → 400, timeout (the host killed a stalled sandbox) → 502, else 500.
http::status failure_status(const boost::json::object& failure);
std::string failure_message(const boost::json::object& failure);
// The same kinds as Connect codes (envd's Connect routes): not_found, invalid/unsupported → invalid_argument,
// timeout → unavailable, else internal.
std::string connect_code_of_failure(const boost::json::object& failure);

// An exception of a session call: a closed session (killed, past its timeout, its sandbox died) is 502 with
// E2B's proxy wording ("... was not found"), so the SDKs say the sandbox is gone; anything else 500.
Response call_exception_response(std::exception_ptr failure, const std::string& sandbox_id);

}  // namespace e2beval::server

#include <memory>
#include <variant>

namespace e2beval::server {

struct ServedSandbox;
// A request with a single answer, sent from the calling (blocking) thread: its "reply", or the HTTP answer
// to give instead (a failure event or an exception of the call, mapped as above).
using UnaryAnswer = std::variant<boost::json::object, Response>;
UnaryAnswer unary_call(const std::shared_ptr<ServedSandbox>& sandbox, boost::json::object request);
// The same, awaited on the I/O thread (Session::async_call: no thread of its own).
boost::asio::awaitable<UnaryAnswer> await_unary_call(std::shared_ptr<ServedSandbox> sandbox, boost::json::object request);

}  // namespace e2beval::server
