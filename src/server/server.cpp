// The listener and its connections (Boost.Beast over Asio, C++20 coroutines, one I/O thread; plain HTTP or
// TLS), the caps on connections (in all, per client address), graceful shutdown on SIGINT/SIGTERM. What a request means is routing.cpp's business.
#include "server/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <map>
#include <optional>

#include "e2beval/core/error.hpp"
#include "server/http_exchange.hpp"
#include "server/routing.hpp"
#include "server/sandbox_fusion/dataset_routes.hpp"
#include "server/sandbox_fusion/fair_queue.hpp"
#include "server/server_context.hpp"
#include "server/server_stream.hpp"
#include "server/tls_context.hpp"

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
asio::awaitable<beast::error_code> read_request(ServerStream& stream, beast::flat_buffer& buffer,
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

// The first bytes of a TLS connection are a handshake record (content type 22). Anything else on the HTTPS port
// is most likely plain HTTP: it gets a plain 400 that says so, rather than a handshake failure a person has to
// decode. Returns false when the connection is to be closed.
asio::awaitable<bool> tls_handshake(ServerStream& stream, beast::flat_buffer& buffer, const ServerOptions& options) {
    stream.expires_after(options.header_timeout);
    const auto [ec, read] = co_await stream.tcp().async_read_some(buffer.prepare(kHeaderLimitBytes), kAwait);
    if (ec) co_return false;
    buffer.commit(read);
    if (static_cast<unsigned char>(static_cast<const char*>(buffer.data().data())[0]) != 22) {
        const std::string body =
            R"json({"code":400,"message":"e2beval serve speaks HTTPS on this port (--tls-cert): use an https:// URL"})json";
        const std::string answer = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                   "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        co_await asio::async_write(stream.tcp(), asio::buffer(answer), kAwait);
        co_return false;
    }
    const auto [handshake_ec, used] = co_await stream.tls().async_handshake(asio::ssl::stream_base::server, buffer.data(), kAwait);
    // A client sends nothing after its ClientHello before the server's answer; bytes past it would be TLS
    // records the HTTP parser must never see as plain text.
    if (handshake_ec || used != buffer.size()) co_return false;
    buffer.consume(used);
    co_return true;
}

// Ends a connection: a TLS close_notify (bounded: a peer that never answers it costs at most the header
// deadline), then the TCP half-close.
asio::awaitable<void> close_connection(ServerStream& stream, const ServerOptions& options) {
    if (stream.is_tls()) {
        stream.expires_after(options.header_timeout);
        co_await stream.tls().async_shutdown(kAwait);
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

// Errors that mean the client went away or stalled: the connection ends without an answer. Under TLS that
// includes any TLS failure (a truncated stream, a bad record): there is no channel left to answer on.
bool silent_end(const beast::error_code& ec) {
    return ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::eof ||
           ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
           ec.category() == asio::error::get_ssl_category() || ec == asio::ssl::error::stream_truncated;
}

// The 413/431 for a request past the body or header limit. Built outside the coroutine: GCC 12 destroys the
// temporaries of a conditional expression inside a co_await's arguments twice (a double free after every 413).
Response too_large_response(const beast::error_code& ec, std::size_t max_body_bytes) {
    if (ec == http::error::body_limit)
        return error_response(http::status::payload_too_large, "the request body is larger than this server accepts (" +
                                                                   std::to_string(max_body_bytes >> 20) +
                                                                   " MiB, e2beval serve --max-body-mb)");
    return error_response(http::status::request_header_fields_too_large, "the request headers are larger than 64 KiB");
}

asio::awaitable<void> serve_connection(ServerContext& context, ServerStream& stream) {
    beast::flat_buffer buffer;
    if (stream.is_tls() && !co_await tls_handshake(stream, buffer, context.options)) co_return;
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
                co_await refusal.reply(too_large_response(ec, context.options.max_body_bytes));
            } else if (!silent_end(ec)) {
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
    co_await close_connection(stream, context.options);
}

// A connection's coroutine owns its stream.
asio::awaitable<void> run_connection(ServerContext& context, std::unique_ptr<ServerStream> stream) {
    co_await serve_connection(context, *stream);
}

// The address a connection counts against: an IPv4 client reached through an IPv6 listener is its IPv4 address.
asio::ip::address client_address(const tcp::socket& socket) {
    boost::system::error_code ec;
    auto address = socket.remote_endpoint(ec).address();
    if (address.is_v6() && address.to_v6().is_v4_mapped())
        return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
    return address;
}

}  // namespace

struct Server::State {
    explicit State(ServerOptions server_options)
        : io(1), acceptor(io), signals(io, SIGINT, SIGTERM) {
        auto registry = std::make_shared<SessionRegistry>();
        auto backend = server_options.make_backend(registry);
        // The sandboxes a create asks for by default (no envs, no internet) are started before the first
        // request, so that even the first Sandbox.create() is a hand-out (--ready-sandboxes sets how many).
        backend->keep_sessions_ready(server_options.session_defaults);
        context = std::make_unique<ServerContext>(server_options, std::move(backend), std::move(registry));
        context->sandbox_fusion_datasets = sandbox_fusion::load_datasets(server_options.sandbox_fusion.datasets);
        context->sandbox_fusion_queue = std::make_shared<sandbox_fusion::FairQueue>(server_options.sandbox_fusion.jobs,
                                                                                    server_options.sandbox_fusion.queue);
        if (!server_options.tls_certificate_file.empty())
            tls.emplace(make_tls_context(server_options.tls_certificate_file, server_options.tls_private_key_file));
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
            const auto address = client_address(socket);
            if (open_connections >= context->options.max_connections) {
                refuse_connection(socket, "e2beval serve has too many open connections (--max-connections)");
                continue;
            }
            auto& from_address = connections_by_address[address];
            if (from_address >= context->options.max_connections_per_address) {
                refuse_connection(socket, "e2beval serve has too many open connections from your address "
                                          "(--max-connections-per-address)");
                continue;
            }
            ++open_connections;
            ++from_address;
            auto stream = tls ? std::make_unique<ServerStream>(std::move(socket), *tls)
                              : std::make_unique<ServerStream>(std::move(socket));
            asio::co_spawn(io, run_connection(*context, std::move(stream)), [this, address](std::exception_ptr) {
                --open_connections;
                if (const auto found = connections_by_address.find(address); found != connections_by_address.end() &&
                                                                              --found->second == 0)
                    connections_by_address.erase(found);
            });
        }
    }

    // Past a cap: one non-blocking write of a 503 (it fits in any socket buffer; if not, nothing is lost but the
    // courtesy) and the socket is closed, so a flood costs the server an accept and a close each. Under TLS the
    // socket is only closed: a plain-text answer would be noise to a TLS client.
    void refuse_connection(tcp::socket& socket, std::string_view why) const {
        boost::system::error_code ignored;
        if (!tls) {
            const std::string body = R"json({"code":503,"message":")json" + std::string(why) + R"json("})json";
            const std::string busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                     "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
            socket.non_blocking(true, ignored);
            socket.write_some(asio::buffer(busy.data(), busy.size()), ignored);
        }
        socket.shutdown(tcp::socket::shutdown_both, ignored);
        socket.close(ignored);
    }

    void shut_down() {
        context->stopping = true;
        boost::system::error_code ignored;
        acceptor.close(ignored);
        signals.cancel(ignored);
        // Killing the sessions ends the calls waiting on them (their completions run in settle_calls()).
        context->sandboxes.kill_all();
        kill_other_sessions();
        io.stop();
    }

    // The sessions that are no E2B sandbox (SandboxFusion's /run_jupyter runs one per request): the registry
    // holds every session the backend started, so that a cell running on a call thread ends now too, instead of
    // holding the shutdown until its time limit.
    void kill_other_sessions() noexcept {
        for (const auto& info : context->registry->list())
            if (auto session = context->registry->find(info.id)) session->kill();
    }

    // Session calls in progress hold timers and reads on the I/O context: once their sessions are killed, their
    // completions (posted to it) run here, so that no session still uses the context when it goes.
    void settle_calls() {
        io.restart();
        io.poll();
    }

    // Declared first so that it goes last: the I/O context's pending coroutines, destroyed with it, refer to it.
    std::unique_ptr<ServerContext> context;
    std::optional<asio::ssl::context> tls;  // set: every connection speaks TLS; outlives the connections too
    asio::io_context io;
    tcp::acceptor acceptor;
    asio::signal_set signals;
    // Only the I/O thread touches these.
    std::size_t open_connections = 0;
    std::map<asio::ip::address, std::size_t> connections_by_address;  // addresses with at least one connection
};

Server::Server(ServerOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Server::~Server() {
    if (!state_) return;
    state_->context->sandboxes.kill_all();
    state_->settle_calls();
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
    state_->settle_calls();
    state_->context->calls.shutdown();
}

void Server::stop() {
    asio::post(state_->io, [this] { state_->shut_down(); });
}

}  // namespace e2beval::server
