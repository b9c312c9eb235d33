// One accepted connection as the server reads and writes it: plain TCP or TLS (Boost.Beast's ssl_stream over
// OpenSSL), behind one AsyncStream type, so the request reader, Exchange and every route are written once.
// Deadlines are the TCP layer's (beast::tcp_stream), under TLS too; socket() is the TCP socket, which is what
// ClientWatch watches (readiness and a closed peer show on it whatever runs above it). Reads and writes go
// through two functions compiled once, in server_stream.cpp (core/erased_io.hpp says why).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "core/erased_io.hpp"

namespace e2beval::server {

class ServerStream {
public:
    using executor_type = boost::beast::tcp_stream::executor_type;
    using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

    // Plain HTTP.
    explicit ServerStream(boost::asio::ip::tcp::socket socket) : plain_(std::in_place, std::move(socket)) {}
    // HTTPS: the handshake is the caller's (tls().async_handshake) before the first request is read.
    ServerStream(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls_context)
        : tls_(std::in_place, std::move(socket), tls_context) {}

    bool is_tls() const noexcept { return tls_.has_value(); }
    tls_stream& tls() { return *tls_; }
    boost::beast::tcp_stream& tcp() noexcept { return tls_ ? boost::beast::get_lowest_layer(*tls_) : *plain_; }
    boost::asio::ip::tcp::socket& socket() noexcept { return tcp().socket(); }
    executor_type get_executor() noexcept { return tcp().get_executor(); }

    template <class Duration>
    void expires_after(Duration duration) { tcp().expires_after(duration); }
    void expires_never() { tcp().expires_never(); }

    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
            [this](auto handler, const MutableBuffers& into) {
                start_read_some(MutableBufferList::of(into), erase_io_handler(std::move(handler), get_executor()));
            },
            token, buffers);
    }

    template <class ConstBuffers, class Token>
    auto async_write_some(const ConstBuffers& buffers, Token&& token) {
        return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
            [this](auto handler, const ConstBuffers& from) {
                start_write_some(ConstBufferList::of(from), erase_io_handler(std::move(handler), get_executor()));
            },
            token, buffers);
    }

private:
    void start_read_some(MutableBufferList into, IoHandler handler);
    void start_write_some(ConstBufferList from, IoHandler handler);

    std::optional<boost::beast::tcp_stream> plain_;
    std::optional<tls_stream> tls_;
};

}  // namespace e2beval::server
