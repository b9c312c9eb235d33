// One HTTP/1.1 request and the way its handler answers it: a whole response, or a chunked stream written as
// events come, with a way to learn that the client went away (E2B's SDKs close the connection to cancel).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/value.hpp>

#include "server/server_stream.hpp"

namespace e2beval::server {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;

// A whole response, built by a handler and written by the connection.
struct Response {
    http::status status = http::status::ok;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // extra ones (X-Next-Token, Retry-After, ...)
};

Response json_response(http::status status, const boost::json::value& body);
// E2B's error shape: {"code": <the HTTP status>, "message": ...}; the SDKs read both.
Response error_response(http::status status, std::string_view message);

// What a handler holds while it answers: the request, and the connection to answer on. The connection
// outlives every co_await of the handler.
class Exchange {
public:
    Exchange(ServerStream& stream, Request& request) : stream_(stream), request_(request) {}

    const Request& request() const noexcept { return request_; }
    std::string_view header(std::string_view name) const;

    // A whole answer. Returns false when the client was gone.
    boost::asio::awaitable<bool> reply(Response response);

    // A chunked answer: the status line and headers, then chunks, then the last chunk. Each returns false once
    // the client is gone (the rest is then skipped); a stream left unfinished closes the connection.
    boost::asio::awaitable<bool> start_stream(http::status status, std::string content_type);
    boost::asio::awaitable<bool> write_chunk(std::string_view bytes);
    boost::asio::awaitable<bool> finish_stream();

    bool answered() const noexcept { return answered_; }
    bool stream_unfinished() const noexcept { return streaming_ && !finished_; }
    // Keeps the connection from being reused (an answer the client may not have read whole).
    void close_after() noexcept { keep_alive_ = false; }
    bool keep_alive() const noexcept { return keep_alive_ && request_.keep_alive(); }
    ServerStream& stream() noexcept { return stream_; }

private:
    ServerStream& stream_;
    Request& request_;
    bool answered_ = false;
    bool streaming_ = false;
    bool finished_ = false;
    bool keep_alive_ = true;
    bool broken_ = false;  // a write failed: the client is gone
};

}  // namespace e2beval::server
