// The listener and its connections (Boost.Beast over Asio, C++20 coroutines, one I/O thread), graceful
// shutdown on SIGINT/SIGTERM. What a request means is routing.cpp's business.
#include "server/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>

#include "e2beval/core/error.hpp"
#include "server/http_exchange.hpp"
#include "server/routing.hpp"
#include "server/server_context.hpp"

namespace e2beval::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kHeaderLimitBytes = 64 * 1024;
constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);

// Reads one request under the deadlines of ServerOptions: after a previous request, the wait for its first
// bytes is bounded by idle_timeout; from there (or from the connection's opening) the request line and headers
// by header_timeout; then the body by body_timeout. A client that sends half a header and stalls is cut off
// then, whatever it does with the rest of its connection.
asio::awaitable<beast::error_code> read_request(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                                http::request_parser<http::string_body>& parser,
                                                const ServerOptions& options, bool kept_alive) {
    if (kept_alive && buffer.size() == 0) {
        stream.expires_after(options.idle_timeout);
        const auto [ec, read] = co_await stream.async_read_some(buffer.prepare(kHeaderLimitBytes), kAwait);
        if (ec) co_return ec;
        buffer.commit(read);
    }
    stream.expires_after(options.header_timeout);
    const auto [header_ec, header_read] = co_await http::async_read_header(stream, buffer, parser, kAwait);
    if (header_ec) co_return header_ec;
    stream.expires_after(options.body_timeout);
    const auto [body_ec, body_read] = co_await http::async_read(stream, buffer, parser, kAwait);
    co_return body_ec;
}

asio::awaitable<void> serve_connection(ServerContext& context, tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    for (bool kept_alive = false;; kept_alive = true) {
        http::request_parser<http::string_body> parser;
        parser.header_limit(kHeaderLimitBytes);
        parser.body_limit(context.options.max_body_bytes);
        const auto ec = co_await read_request(stream, buffer, parser, context.options, kept_alive);
        if (ec) {
            if (ec == http::error::body_limit || ec == http::error::header_limit) {
                auto& partial = parser.get();
                Exchange refusal(stream, partial);
                refusal.close_after();
                stream.expires_after(context.options.header_timeout);  // the refusal must not hang on a stalled reader
                co_await refusal.reply(error_response(
                    ec == http::error::body_limit ? http::status::payload_too_large
                                                  : http::status::request_header_fields_too_large,
                    ec == http::error::body_limit
                        ? "the request body is larger than this server accepts (" +
                              std::to_string(context.options.max_body_bytes >> 20) + " MiB, e2beval serve --max-body-mb)"
                        : std::string("the request headers are larger than 64 KiB")));
            } else if (ec != http::error::end_of_stream && ec != beast::error::timeout && ec != asio::error::eof &&
                       ec != asio::error::connection_reset && ec != asio::error::operation_aborted) {
                auto& partial = parser.get();
                Exchange refusal(stream, partial);
                refusal.close_after();
                stream.expires_after(context.options.header_timeout);
                co_await refusal.reply(error_response(http::status::bad_request, "malformed HTTP request: " + ec.message()));
            }
            break;
        }
        // The answer has no deadline: a stream (/execute, Start) lasts as long as the code runs, with keepalives.
        stream.expires_never();
        Request request = parser.release();
        Exchange exchange(stream, request);
        std::string unexpected = "no answer";
        try {
            co_await route(context, exchange);
        } catch (const std::exception& failure) {
            unexpected = std::string("unexpected error: ") + failure.what();
            exchange.close_after();
        }
        if (!exchange.answered())
            co_await exchange.reply(error_response(http::status::internal_server_error, "e2beval serve: " + unexpected));
        if (exchange.stream_unfinished() || !exchange.keep_alive()) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace

struct Server::State {
    explicit State(ServerOptions server_options)
        : io(1), acceptor(io), signals(io, SIGINT, SIGTERM) {
        auto registry = std::make_shared<SessionRegistry>();
        auto backend = server_options.make_backend(registry);
        context = std::make_unique<ServerContext>(server_options, std::move(backend), std::move(registry));
        boost::system::error_code ec;
        const auto address = asio::ip::make_address(server_options.host, ec);
        if (ec)
            throw input_error("--host '" + server_options.host + "' is not an IP address (use 127.0.0.1, ::1 or 0.0.0.0)");
        const tcp::endpoint endpoint(address, server_options.port);
        acceptor.open(endpoint.protocol(), ec);
        if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
        if (!ec) acceptor.bind(endpoint, ec);
        if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
        if (ec)
            throw sandbox_error("cannot listen on " + server_options.host + ":" + std::to_string(server_options.port) +
                                ": " + ec.message() + " (another server on that port? choose one with --port)");
    }

    asio::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
            if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
            if (ec) continue;  // EMFILE and the like: keep serving the connections there are
            if (open_connections >= context->options.max_connections) {
                refuse_connection(socket);
                continue;
            }
            ++open_connections;
            asio::co_spawn(io, serve_connection(*context, std::move(socket)),
                           [this](std::exception_ptr) { --open_connections; });
        }
    }

    // Past max_connections: one non-blocking write of a 503 (it fits in any socket buffer; if not, nothing is
    // lost but the courtesy) and the socket is closed, so a flood costs the server an accept and a close each.
    static void refuse_connection(tcp::socket& socket) {
        static const std::string kBusy = [] {
            const std::string body = R"json({"code":503,"message":"e2beval serve has too many open connections (--max-connections)"})json";
            return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
                   "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        }();
        boost::system::error_code ignored;
        socket.non_blocking(true, ignored);
        socket.write_some(asio::buffer(kBusy.data(), kBusy.size()), ignored);
        socket.shutdown(tcp::socket::shutdown_both, ignored);
        socket.close(ignored);
    }

    void shut_down() {
        context->stopping = true;
        boost::system::error_code ignored;
        acceptor.close(ignored);
        signals.cancel(ignored);
        // Killing the sessions ends the calls blocked on them; their threads then finish and are waited for.
        context->sandboxes.kill_all();
        io.stop();
    }

    // Declared first so that it goes last: the I/O context's pending coroutines, destroyed with it, refer to it.
    std::unique_ptr<ServerContext> context;
    asio::io_context io;
    tcp::acceptor acceptor;
    asio::signal_set signals;
    std::size_t open_connections = 0;  // only the I/O thread touches it
};

Server::Server(ServerOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Server::~Server() {
    if (!state_) return;
    state_->context->sandboxes.kill_all();
    state_->context->calls.shutdown();
}

std::uint16_t Server::port() const noexcept { return state_->acceptor.local_endpoint().port(); }

void Server::run() {
    state_->signals.async_wait([this](boost::system::error_code ec, int) {
        if (!ec) state_->shut_down();
    });
    asio::co_spawn(state_->io, state_->accept_loop(), asio::detached);
    state_->io.run();
    state_->context->sandboxes.kill_all();
    state_->context->calls.shutdown();
}

void Server::stop() {
    asio::post(state_->io, [this] { state_->shut_down(); });
}

}  // namespace e2beval::server
