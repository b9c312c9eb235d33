// Writing answers on one connection: whole responses and chunked streams (NDJSON, Connect envelopes).
#include "server/http_exchange.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/serialize.hpp>

#include "e2beval/version.hpp"

namespace e2beval::server {

namespace asio = boost::asio;
namespace json = boost::json;
constexpr auto kAwaitWrite = asio::as_tuple(asio::use_awaitable);

Response json_response(http::status status, const json::value& body) {
    Response response;
    response.status = status;
    response.body = json::serialize(body);
    return response;
}

Response error_response(http::status status, std::string_view message) {
    return json_response(status, json::object{{"code", static_cast<int>(status)}, {"message", message}});
}

std::string_view Exchange::header(std::string_view name) const {
    const auto found = request_.find(name);
    if (found == request_.end()) return {};
    return {found->value().data(), found->value().size()};
}

asio::awaitable<bool> Exchange::reply(Response response) {
    answered_ = true;
    http::response<http::string_body> message{response.status, request_.version()};
    message.set(http::field::server, "e2beval/" E2BEVAL_VERSION);
    if (!response.content_type.empty()) message.set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) message.set(name, value);
    message.body() = std::move(response.body);
    message.keep_alive(keep_alive());
    message.prepare_payload();
    const auto [ec, written] = co_await http::async_write(stream_, message, kAwaitWrite);
    if (ec) keep_alive_ = false, broken_ = true;
    co_return !ec;
}

asio::awaitable<bool> Exchange::start_stream(http::status status, std::string content_type) {
    answered_ = true;
    streaming_ = true;
    http::response<http::empty_body> message{status, request_.version()};
    message.set(http::field::server, "e2beval/" E2BEVAL_VERSION);
    message.set(http::field::content_type, content_type);
    message.chunked(true);
    message.keep_alive(keep_alive());
    http::response_serializer<http::empty_body> serializer{message};
    const auto [ec, written] = co_await http::async_write_header(stream_, serializer, kAwaitWrite);
    if (ec) keep_alive_ = false, broken_ = true;
    co_return !ec;
}

asio::awaitable<bool> Exchange::write_chunk(std::string_view bytes) {
    if (broken_) co_return false;
    if (bytes.empty()) co_return true;  // an empty chunk would end the stream
    const auto [ec, written] = co_await asio::async_write(stream_, http::make_chunk(asio::buffer(bytes.data(), bytes.size())), kAwaitWrite);
    if (ec) keep_alive_ = false, broken_ = true;
    co_return !ec;
}

asio::awaitable<bool> Exchange::finish_stream() {
    const auto [ec, written] = co_await asio::async_write(stream_, http::make_chunk_last(), kAwaitWrite);
    finished_ = true;
    if (ec) keep_alive_ = false, broken_ = true;
    co_return !ec;
}

}  // namespace e2beval::server
