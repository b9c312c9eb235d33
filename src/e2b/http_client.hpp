// The E2B backend's HTTP/1.1 client: HTTPS (SNI, host name verification, the system trust store plus an
// optional CA file) or plain HTTP, a keep-alive connection pool per origin, a deadline on every step, retries.
//
// It runs on one io_context (the backend's own thread): nothing here is thread-safe, by design.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>

#include "e2b/retry_policy.hpp"
#include "e2beval/core/error.hpp"

namespace e2beval::e2b {

// Where a call goes: parsed once from a base URL ("https://api.e2b.app", "http://127.0.0.1:3000").
struct Origin {
    bool tls = true;
    std::string host;
    std::string port;
    std::string path_prefix;  // a base URL's own path ("/prefix"), put before every target

    static Origin parse(const std::string& base_url);  // throws input_error naming the URL
    std::string key() const { return (tls ? "https://" : "http://") + host + ":" + port; }
};

struct HttpCall {
    std::string name;  // "create sandbox": names the call in every error
    boost::beast::http::verb method = boost::beast::http::verb::get;
    Origin origin;
    std::string target;  // "/sandboxes"
    // Sent as they are and never shown anywhere (they hold the API key and access tokens).
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string content_type;
    // May be sent again after the server may have seen it (a 5xx, a reset after sending). A 429, a refused
    // connection or a failed handshake is retried for every call: the server did not act on it.
    bool idempotent = false;
    // A 502 means the sandbox is gone (E2B's proxy), not a passing overload: not retried.
    bool sandbox_traffic = false;
    // The whole call, every attempt and back-off included; 0 for none (streams bounded by the caller).
    std::chrono::milliseconds timeout{60'000};
};

struct HttpResponse {
    unsigned status = 0;
    std::string body;
    std::map<std::string, std::string> headers;  // lower-case names
    unsigned attempts = 0;
};

// What the client did, for the bench's "requests per sample" and the tests.
struct ClientCounters {
    std::uint64_t requests = 0;     // requests sent (every attempt)
    std::uint64_t retries = 0;      // of which repeats
    std::uint64_t connections = 0;  // connections opened (TCP + TLS)
};

struct ClientSettings {
    std::string ca_file;  // trusted besides the system's store (a private or test CA)
    std::chrono::milliseconds resolve_timeout{10'000};
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds handshake_timeout{10'000};
    std::chrono::milliseconds io_timeout{60'000};  // each write, and each read of a unary answer
    std::size_t max_idle_per_origin = 32;
    RetryPolicy retry;
};

class HttpClient {
public:
    HttpClient(boost::asio::any_io_executor executor, ClientSettings settings);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // A unary call: the whole answer, with retries (RetryPolicy). Throws CallError (below) when it cannot
    // get an answer; an HTTP error status is an answer (the caller decides what it means).
    boost::asio::awaitable<HttpResponse> request(HttpCall call);

    // A streaming call: once the status is 200, each piece of the body as it arrives goes to `on_bytes`
    // (return false to stop reading: the connection is then dropped). Anything but 200 is read whole and
    // returned. Retried like request() only until the first byte of a 200 answer. `read_idle_timeout` bounds
    // the wait for each piece (the server sends keepalives); the call's timeout bounds the whole.
    boost::asio::awaitable<HttpResponse> stream(HttpCall call, std::chrono::milliseconds read_idle_timeout,
                                                std::function<bool(std::string_view)> on_bytes);

    const ClientCounters& counters() const noexcept { return counters_; }
    void close_idle();  // drops every pooled connection

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    ClientCounters counters_;
};

// A call that got no usable answer: what failed (resolve, connect, TLS handshake, certificate, write, read,
// timeout, cancelled) and the call's name and origin. Never holds a header's value.
class CallError : public sandbox_error {
public:
    enum class Stage { resolve, connect, handshake, certificate, write, read, timeout, cancelled, protocol };
    CallError(Stage stage, const std::string& message) : sandbox_error(message), stage_(stage) {}
    Stage stage() const noexcept { return stage_; }

private:
    Stage stage_;
};

}  // namespace e2beval::e2b
