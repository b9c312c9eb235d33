// Notices a client that closes its connection while the server is still answering (the E2B SDKs cancel an
// /execute or a command by closing the connection): a read-readiness wait on the TCP socket, then a poll for
// the peer's shutdown (POLLRDHUP; while unread bytes wait, on a 200 ms timer), so that a client that merely
// sends its next request is not taken for gone.
// It watches the TCP socket under TLS too: a peer's close shows there whatever runs above it.
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/ip/tcp.hpp>

namespace e2beval::server {

class ClientWatch {
public:
    // Calls `on_gone` on the socket's executor once the peer has closed or reset the connection, unless
    // stop() came first. The socket must outlive the watch or stop() must be called before it goes.
    ClientWatch(boost::asio::ip::tcp::socket& socket, std::function<void()> on_gone);
    ~ClientWatch() { stop(); }
    ClientWatch(const ClientWatch&) = delete;
    ClientWatch& operator=(const ClientWatch&) = delete;

    void stop();

private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace e2beval::server
