// The E2B backend's HTTP/1.1 client (src/e2b/http_client.hpp), after Beast's awaitable SSL client: a deadline
// re-armed before every step (resolve, connect, handshake, write, each read), SNI and host name verification,
// keep-alive connections pooled per origin, and the retries RetryPolicy allows.
#include "e2b/http_client.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <random>
#include <variant>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "core/erased_io.hpp"
#include "e2beval/version.hpp"

namespace e2beval::e2b {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace asio::experimental::awaitable_operators;

Origin Origin::parse(const std::string& base_url) {
    Origin origin;
    std::string_view rest = base_url;
    if (rest.starts_with("https://")) {
        rest.remove_prefix(8);
    } else if (rest.starts_with("http://")) {
        origin.tls = false;
        rest.remove_prefix(7);
    } else {
        throw input_error("'" + base_url + "' is not an http:// or https:// URL");
    }
    const auto slash = rest.find('/');
    auto authority = rest.substr(0, slash);
    if (slash != std::string_view::npos) {
        origin.path_prefix = std::string(rest.substr(slash));
        while (origin.path_prefix.ends_with('/')) origin.path_prefix.pop_back();
    }
    if (authority.find('@') != std::string_view::npos) throw input_error("'" + base_url + "': credentials in a URL are not supported");
    std::string_view port;
    if (authority.starts_with('[')) {  // [::1]:443
        const auto close = authority.find(']');
        if (close == std::string_view::npos) throw input_error("'" + base_url + "' has an unclosed IPv6 address");
        origin.host = std::string(authority.substr(1, close - 1));
        if (authority.size() > close + 1 && authority[close + 1] == ':') port = authority.substr(close + 2);
    } else {
        const auto colon = authority.rfind(':');
        origin.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (origin.host.empty()) throw input_error("'" + base_url + "' names no host");
    origin.port = port.empty() ? (origin.tls ? "443" : "80") : std::string(port);
    if (origin.port.find_first_not_of("0123456789") != std::string::npos)
        throw input_error("'" + base_url + "' has a port that is not a number");
    return origin;
}

namespace {

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// Plain or TLS, as one AsyncStream for Beast's operations: reads and writes go through start_read_some and
// start_write_some, so the TCP and TLS streams' operations are instantiated once (core/erased_io.hpp).
struct Connection {
    using executor_type = beast::tcp_stream::executor_type;

    template <typename Stream, typename... Args>
    explicit Connection(std::in_place_type_t<Stream> type, Args&&... args) : stream(type, std::forward<Args>(args)...) {}

    std::variant<beast::tcp_stream, TlsStream> stream;
    beast::flat_buffer buffer;
    bool reused = false;

    beast::tcp_stream& tcp() {
        return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); }, stream);
    }
    executor_type get_executor() { return tcp().get_executor(); }

    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(beast::error_code, std::size_t)>(
            [this](auto handler, const MutableBuffers& into) {
                start_read_some(MutableBufferList::of(into), erase_io_handler(std::move(handler), get_executor()));
            },
            token, buffers);
    }
    template <class ConstBuffers, class Token>
    auto async_write_some(const ConstBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(beast::error_code, std::size_t)>(
            [this](auto handler, const ConstBuffers& from) {
                start_write_some(ConstBufferList::of(from), erase_io_handler(std::move(handler), get_executor()));
            },
            token, buffers);
    }
    void start_read_some(MutableBufferList into, IoHandler handler) {
        std::visit([&](auto& s) { s.async_read_some(into, std::move(handler)); }, stream);
    }
    void start_write_some(ConstBufferList from, IoHandler handler) {
        std::visit([&](auto& s) { s.async_write_some(from, std::move(handler)); }, stream);
    }
};

// Why one attempt failed, and whether the server may have acted on the request.
struct AttemptFailure {
    CallError::Stage stage;
    std::string what;
    bool before_send = false;  // the request was never sent: always safe to repeat
    bool permanent = false;    // repeating cannot help (a certificate, an unknown host)
};

bool is_ip_address(const std::string& host) {
    boost::system::error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

std::string host_header(const Origin& origin) {
    const bool default_port = origin.port == (origin.tls ? "443" : "80");
    const auto host = origin.host.find(':') != std::string::npos ? "[" + origin.host + "]" : origin.host;
    return default_port ? host : host + ":" + origin.port;
}

std::string seconds_text(std::chrono::milliseconds duration) {
    const auto tenths = (duration.count() + 50) / 100;
    return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " s";
}

// The path without its query: a query may carry a signature.
std::string shown_target(const HttpCall& call) {
    const auto target = call.origin.path_prefix + call.target;
    return target.substr(0, target.find('?'));
}

std::string describe(const HttpCall& call) {
    return call.name + " (" + std::string(http::to_string(call.method)) + " " + call.origin.key() + shown_target(call) + ")";
}

// A pooled connection the server closed while it was idle reads as end of stream at once.
bool still_open(Connection& connection) {
    auto& socket = connection.tcp().socket();
    if (!socket.is_open()) return false;
    char byte;
    const auto got = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (got == 0) return false;
    if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    // Bytes waiting on an idle plain connection are garbage; under TLS they may be a session ticket.
    return std::holds_alternative<TlsStream>(connection.stream);
}

}  // namespace

struct HttpClient::Impl {
    Impl(asio::any_io_executor io, ClientSettings config)
        : executor(std::move(io)), settings(std::move(config)), tls(ssl::context::tls_client), random(std::random_device{}()) {
        SSL_CTX_set_min_proto_version(tls.native_handle(), TLS1_2_VERSION);
        tls.set_options(ssl::context::default_workarounds | ssl::context::no_compression);
        tls.set_verify_mode(ssl::verify_peer);
        tls.set_default_verify_paths();
        if (!settings.ca_file.empty()) {
            boost::system::error_code ec;
            tls.load_verify_file(settings.ca_file, ec);
            if (ec) throw input_error("the CA file '" + settings.ca_file + "' cannot be used (" + ec.message() +
                                      "); give a readable PEM file of CA certificates");
        }
    }

    asio::any_io_executor executor;
    ClientSettings settings;
    ssl::context tls;
    std::mt19937_64 random;
    std::map<std::string, std::vector<std::unique_ptr<Connection>>> idle;

    // The time a step may take: its own limit, or what is left of the call's, whichever is shorter.
    static std::chrono::milliseconds step(std::chrono::milliseconds own, Clock::time_point deadline, const HttpCall& call) {
        if (deadline == Clock::time_point::max()) return own;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left <= std::chrono::milliseconds(0))
            throw AttemptFailure{CallError::Stage::timeout, "no answer within the call's " + seconds_text(call.timeout)};
        return std::min(own, left);
    }

    // Whether the coroutine holding `state` was cancelled. (Read synchronously: a co_await inside a throw
    // expression or its operand is what GCC 12 miscompiles into a double free.)
    static bool cancelled(const asio::cancellation_state& state) { return state.cancelled() != asio::cancellation_type::none; }

    std::unique_ptr<Connection> take_idle(const Origin& origin) {
        auto found = idle.find(origin.key());
        if (found == idle.end()) return nullptr;
        while (!found->second.empty()) {
            auto connection = std::move(found->second.back());
            found->second.pop_back();
            if (still_open(*connection)) {
                connection->reused = true;
                return connection;
            }
        }
        return nullptr;
    }

    void give_back(const Origin& origin, std::unique_ptr<Connection> connection) {
        auto& list = idle[origin.key()];
        if (list.size() < settings.max_idle_per_origin) list.push_back(std::move(connection));
    }

    asio::awaitable<std::unique_ptr<Connection>> open(const HttpCall& call, Clock::time_point deadline, ClientCounters& counters) {
        const auto& origin = call.origin;
        const auto cancellation = co_await asio::this_coro::cancellation_state;
        tcp::resolver resolver(executor);
        asio::steady_timer timer(executor, step(settings.resolve_timeout, deadline, call));
        auto resolved = co_await (resolver.async_resolve(origin.host, origin.port, asio::as_tuple(asio::use_awaitable)) ||
                                  timer.async_wait(asio::as_tuple(asio::use_awaitable)));
        if (resolved.index() == 1) {
            if (cancelled(cancellation)) throw AttemptFailure{CallError::Stage::cancelled, "cancelled", true};
            throw AttemptFailure{CallError::Stage::timeout, "resolving " + origin.host + " took longer than " +
                                                                seconds_text(settings.resolve_timeout), true};
        }
        auto [resolve_error, endpoints] = std::get<0>(std::move(resolved));
        if (resolve_error) {
            if (cancelled(cancellation)) throw AttemptFailure{CallError::Stage::cancelled, "cancelled", true};
            throw AttemptFailure{CallError::Stage::resolve, "cannot resolve " + origin.host + " (" + resolve_error.message() + ")",
                                 true, resolve_error == asio::error::host_not_found};
        }

        beast::tcp_stream plain(executor);
        plain.expires_after(step(settings.connect_timeout, deadline, call));
        auto [connect_error, endpoint] = co_await plain.async_connect(endpoints, asio::as_tuple(asio::use_awaitable));
        (void)endpoint;
        if (connect_error) {
            if (cancelled(cancellation)) throw AttemptFailure{CallError::Stage::cancelled, "cancelled", true};
            if (connect_error == beast::error::timeout)
                throw AttemptFailure{CallError::Stage::timeout, "connecting to " + origin.host + ":" + origin.port + " took longer than " +
                                                                    seconds_text(settings.connect_timeout), true};
            throw AttemptFailure{CallError::Stage::connect, "cannot connect to " + origin.host + ":" + origin.port + " (" +
                                                                connect_error.message() + ")", true};
        }
        plain.socket().set_option(tcp::no_delay(true));
        ++counters.connections;
        if (!origin.tls) co_return std::make_unique<Connection>(std::in_place_type<beast::tcp_stream>, std::move(plain));

        auto connection = std::make_unique<Connection>(std::in_place_type<TlsStream>, std::move(plain), tls);
        auto& stream = std::get<TlsStream>(connection->stream);
        // SNI names a host, never an address (RFC 6066).
        if (!is_ip_address(origin.host)) SSL_set_tlsext_host_name(stream.native_handle(), origin.host.c_str());
        // The certificate must name the host we asked for; remember when that (not the chain) was the problem.
        auto name_mismatch = std::make_shared<bool>(false);
        stream.set_verify_callback([verify = ssl::host_name_verification(origin.host), name_mismatch](bool preverified, ssl::verify_context& context) mutable {
            const bool ok = verify(preverified, context);
            if (preverified && !ok) *name_mismatch = true;
            return ok;
        });
        beast::get_lowest_layer(stream).expires_after(step(settings.handshake_timeout, deadline, call));
        auto [handshake_error] = co_await stream.async_handshake(ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
        if (handshake_error) {
            if (cancelled(cancellation)) throw AttemptFailure{CallError::Stage::cancelled, "cancelled", true};
            const long verify_result = SSL_get_verify_result(stream.native_handle());
            if (*name_mismatch)
                throw AttemptFailure{CallError::Stage::certificate, "the server's TLS certificate does not name " + origin.host +
                                                                        " (host name verification failed)", true, true};
            if (verify_result != X509_V_OK)
                throw AttemptFailure{CallError::Stage::certificate,
                                     "the server's TLS certificate is not trusted (" + std::string(X509_verify_cert_error_string(verify_result)) +
                                         "); trust its CA with E2BEVAL_E2B_CA_FILE or the system's store",
                                     true, true};
            if (handshake_error == beast::error::timeout)
                throw AttemptFailure{CallError::Stage::timeout, "the TLS handshake with " + origin.host + " took longer than " +
                                                                    seconds_text(settings.handshake_timeout), true};
            throw AttemptFailure{CallError::Stage::handshake, "the TLS handshake with " + origin.host + " failed (" +
                                                                  handshake_error.message() + ")", true};
        }
        co_return connection;
    }

    // One attempt: the answer's status and headers, then its body to `on_bytes` (whole when it is not a
    // stream). Returns the connection to the pool when the answer allows it.
    asio::awaitable<HttpResponse> attempt(const HttpCall& call, Clock::time_point deadline, ClientCounters& counters,
                                          std::chrono::milliseconds read_timeout,
                                          const std::function<bool(std::string_view)>* on_bytes) {
        const auto cancellation = co_await asio::this_coro::cancellation_state;
        auto connection = take_idle(call.origin);
        if (!connection) connection = co_await open(call, deadline, counters);
        const bool reused = connection->reused;

        http::request<http::string_body> request{call.method, call.origin.path_prefix + call.target, 11};
        request.set(http::field::host, host_header(call.origin));
        request.set(http::field::user_agent, "e2beval/" E2BEVAL_VERSION);
        for (const auto& [name, value] : call.headers) request.set(name, value);
        if (!call.content_type.empty()) request.set(http::field::content_type, call.content_type);
        if (!call.body.empty() || call.method == http::verb::post || call.method == http::verb::put) {
            request.body() = call.body;
            request.prepare_payload();
        }
        request.keep_alive(true);

        ++counters.requests;
        connection->tcp().expires_after(step(settings.io_timeout, deadline, call));
        auto [write_error, written] = co_await http::async_write(*connection, request, asio::as_tuple(asio::use_awaitable));
        (void)written;
        if (write_error) {
            if (cancelled(cancellation)) throw AttemptFailure{CallError::Stage::cancelled, "cancelled"};
            // A pooled connection the server had just closed: nothing reached it.
            throw AttemptFailure{write_error == beast::error::timeout ? CallError::Stage::timeout : CallError::Stage::write,
                                 "sending the request failed (" + write_error.message() + ")", reused && write_error != beast::error::timeout};
        }

        http::response_parser<http::buffer_body> parser;
        parser.body_limit(boost::none);
        const auto read_failure = [&](const boost::system::error_code& ec, bool any_byte) {
            if (cancelled(cancellation)) return AttemptFailure{CallError::Stage::cancelled, "cancelled"};
            if (ec == beast::error::timeout)
                return AttemptFailure{CallError::Stage::timeout, any_byte ? "the answer stalled (no data before the deadline)"
                                                                          : "no answer before the deadline (the call's limit or " +
                                                                                seconds_text(read_timeout) + " of silence)"};
            const bool dropped = ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
                                 ec == ssl::error::stream_truncated;
            return AttemptFailure{CallError::Stage::read,
                                     std::string(any_byte ? "the connection broke in the middle of the answer" : "the connection closed before an answer") +
                                         " (" + (dropped ? std::string("connection reset or closed by the server") : ec.message()) + ")"};
        };

        connection->tcp().expires_after(step(read_timeout, deadline, call));
        auto [header_error, header_bytes] =
            co_await http::async_read_header(*connection, connection->buffer, parser, asio::as_tuple(asio::use_awaitable));
        (void)header_bytes;
        if (header_error) throw read_failure(header_error, false);

        HttpResponse response;
        response.status = parser.get().result_int();
        for (const auto& field : parser.get()) {
            std::string name(field.name_string());
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            response.headers[name] = std::string(field.value());
        }
        const bool streaming = on_bytes && response.status == 200;
        constexpr std::size_t kMaxUnaryBody = 64 * 1024 * 1024;
        char chunk[16 * 1024];
        while (!parser.is_done()) {
            parser.get().body().data = chunk;
            parser.get().body().size = sizeof chunk;
            connection->tcp().expires_after(step(read_timeout, deadline, call));
            // read_some, not read: http::async_read returns only once the 16 KB chunk is full or the body ends,
            // which holds back a stream's events (a process's start, a cell's output) until much later.
            auto [read_error, read_bytes] =
                co_await http::async_read_some(*connection, connection->buffer, parser, asio::as_tuple(asio::use_awaitable));
            (void)read_bytes;
            if (read_error == http::error::need_buffer) read_error = {};
            if (read_error) throw read_failure(read_error, true);
            const std::string_view got(chunk, sizeof chunk - parser.get().body().size);
            if (streaming) {
                if (!got.empty() && !(*on_bytes)(got)) co_return response;  // the caller stopped: the connection is dropped
            } else {
                response.body.append(got);
                if (response.body.size() > kMaxUnaryBody)
                    throw AttemptFailure{CallError::Stage::protocol, "the answer is larger than 64 MiB", false, true};
            }
        }
        if (parser.keep_alive()) {
            connection->reused = false;
            give_back(call.origin, std::move(connection));
        }
        co_return response;
    }

    asio::awaitable<HttpResponse> run(const HttpCall& call, ClientCounters& counters, std::chrono::milliseconds read_timeout,
                                      const std::function<bool(std::string_view)>* on_bytes) {
        const auto deadline = call.timeout.count() > 0 ? Clock::now() + call.timeout : Clock::time_point::max();
        const auto cancellation = co_await asio::this_coro::cancellation_state;
        const auto fail = [&](CallError::Stage stage, const std::string& what, unsigned attempts) {
            return CallError(stage, describe(call) + ": " + what + (attempts > 1 ? " (after " + std::to_string(attempts) + " attempts)" : ""));
        };
        for (unsigned attempt_number = 1;; ++attempt_number) {
            if (attempt_number > 1) ++counters.retries;
            std::optional<std::chrono::milliseconds> wait;
            try {
                auto response = co_await attempt(call, deadline, counters, read_timeout, on_bytes);
                response.attempts = attempt_number;
                const auto status = response.status;
                const bool retryable = is_retryable_status(status) && !(status == 502 && call.sandbox_traffic) &&
                                       (status == 429 || call.idempotent);
                const auto should_retry = response.headers.find("should-retry");
                const bool refused_for_good = should_retry != response.headers.end() && should_retry->second == "false";
                if (!retryable || refused_for_good || attempt_number >= settings.retry.max_attempts) co_return response;
                wait = settings.retry.backoff(attempt_number, random);
                if (const auto after = response.headers.find("retry-after"); after != response.headers.end())
                    if (const auto asked = parse_retry_after(after->second)) {
                        if (*asked > settings.retry.max_retry_after) co_return response;
                        wait = std::max(*wait, *asked);
                    }
                if (deadline != Clock::time_point::max() && Clock::now() + *wait >= deadline) co_return response;
            } catch (const AttemptFailure& failure) {
                if (failure.stage == CallError::Stage::cancelled) throw fail(failure.stage, "cancelled", attempt_number);
                const bool may_repeat = !failure.permanent && (failure.before_send || call.idempotent) &&
                                        failure.stage != CallError::Stage::timeout;
                // A stalled read is repeated for idempotent calls too, within the call's deadline.
                const bool stalled_idempotent = failure.stage == CallError::Stage::timeout && call.idempotent &&
                                                deadline != Clock::time_point::max() && Clock::now() < deadline;
                if (!(may_repeat || stalled_idempotent) || attempt_number >= settings.retry.max_attempts)
                    throw fail(failure.stage, failure.what, attempt_number);
                wait = settings.retry.backoff(attempt_number, random);
                if (deadline != Clock::time_point::max() && Clock::now() + *wait >= deadline)
                    throw fail(failure.stage, failure.what, attempt_number);
            }
            asio::steady_timer pause(executor, *wait);
            auto [ec] = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
            if (ec || cancelled(cancellation)) throw fail(CallError::Stage::cancelled, "cancelled", attempt_number);
        }
    }
};

HttpClient::HttpClient(asio::any_io_executor executor, ClientSettings settings)
    : impl_(std::make_unique<Impl>(std::move(executor), std::move(settings))) {}

HttpClient::~HttpClient() = default;

asio::awaitable<HttpResponse> HttpClient::request(HttpCall call) {
    co_return co_await impl_->run(call, counters_, impl_->settings.io_timeout, nullptr);
}

asio::awaitable<HttpResponse> HttpClient::stream(HttpCall call, std::chrono::milliseconds read_idle_timeout,
                                                 std::function<bool(std::string_view)> on_bytes) {
    co_return co_await impl_->run(call, counters_, read_idle_timeout, &on_bytes);
}

void HttpClient::close_idle() { impl_->idle.clear(); }

}  // namespace e2beval::e2b
