// The code interpreter's /execute NDJSON stream cut short, from a fault-injecting peer on 127.0.0.1 (plain HTTP,
// one connection per case): the client delivers the events that arrived, then fails with a clear error naming
// the call and what went wrong — a stream closed cleanly before end_of_execution, and a connection that breaks
// in the middle of the chunked body. (e2beval serve cannot be made to do either; tests/serve's fault proxy
// cuts the envd process stream the same way for the CLI.)
#include <doctest/doctest.h>

#include <future>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>

#include "e2b/e2b_api.hpp"
#include "e2b/http_client.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_e2b_execute_stream {

namespace {

namespace asio = boost::asio;
using namespace e2beval;
using namespace e2beval::e2b;
using asio::ip::tcp;

std::string chunk(const std::string& data) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
}

// Answers one request with `answer`, then closes the connection.
struct OneShotPeer {
    asio::io_context io;
    tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
    std::thread thread;
    std::string request_head;

    explicit OneShotPeer(std::string answer) {
        thread = std::thread([this, answer = std::move(answer)] {
            tcp::socket socket(io);
            acceptor.accept(socket);
            asio::streambuf head;
            asio::read_until(socket, head, "\r\n\r\n");
            request_head.assign(asio::buffers_begin(head.data()), asio::buffers_end(head.data()));
            asio::write(socket, asio::buffer(answer));
            socket.shutdown(tcp::socket::shutdown_both);
        });
    }
    ~OneShotPeer() { thread.join(); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()); }
};

struct Outcome {
    std::vector<std::string> events;
    std::string error;
};

Outcome execute_against(const OneShotPeer& peer) {
    E2bSettings settings;
    settings.api_key = "e2b_0123456789abcdef0123456789abcdef01234567";
    settings.api_url = peer.url();
    settings.sandbox_url = peer.url();
    asio::io_context io;
    ClientSettings client_settings;
    HttpClient client(io.get_executor(), client_settings);
    E2bApi api(client, settings);
    RemoteSandbox sandbox;
    sandbox.id = "isandbox1";
    sandbox.envd_access_token = "secret-envd-token";
    Outcome outcome;
    const std::map<std::string, std::string> no_envs;
    auto work = [&]() -> asio::awaitable<void> {
        try {
            co_await api.execute(sandbox, "print(1)", std::nullopt, std::nullopt, no_envs, std::chrono::seconds(20),
                                 [&](const boost::json::object& event) { outcome.events.push_back(std::string(event.at("type").as_string())); });
        } catch (const std::exception& failure) {
            outcome.error = failure.what();
        }
    };
    auto done = asio::co_spawn(io, work(), asio::use_future);
    io.run();
    done.get();
    return outcome;
}

const std::string kHead = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n";
const std::string kStdout = "{\"type\":\"stdout\",\"text\":\"1\\n\",\"timestamp\":1}\n";

}  // namespace

TEST_CASE("e2b client: an /execute stream that ends before end_of_execution is a clear error") {
    OneShotPeer peer(kHead + chunk(kStdout) + "0\r\n\r\n");  // a well-formed body, but no end_of_execution
    const auto outcome = execute_against(peer);
    CHECK(peer.request_head.starts_with("POST /execute HTTP/1.1"));
    CHECK(outcome.events == std::vector<std::string>{"stdout"});
    CHECK(outcome.error == "execute code: the /execute stream ended before end_of_execution (truncated)");
    CHECK(outcome.error.find("secret-envd-token") == std::string::npos);
}

TEST_CASE("e2b client: an /execute stream whose connection breaks mid-body is a clear error, not retried") {
    OneShotPeer peer(kHead + chunk(kStdout) + "40\r\n{\"type\":\"std");  // cut inside a chunk, then closed
    const auto outcome = execute_against(peer);
    CHECK(outcome.events == std::vector<std::string>{"stdout"});
    CHECK(outcome.error.find("execute code (POST http://127.0.0.1:") != std::string::npos);
    CHECK(outcome.error.find("the connection broke in the middle of the answer") != std::string::npos);
    CHECK(outcome.error.find("attempts") == std::string::npos);  // a started stream is never sent again
    CHECK(outcome.error.find("secret-envd-token") == std::string::npos);
}

}  // namespace e2beval_test_e2b_execute_stream
