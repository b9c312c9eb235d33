// A client that went away, told apart from one that sent more bytes (plain HTTP or TLS alike).
#include "server/client_watch.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace e2beval::server {

struct ClientWatch::State : std::enable_shared_from_this<State> {
    boost::asio::ip::tcp::socket* socket;
    std::function<void()> on_gone;
    bool stopped = false;

    void arm() {
        socket->async_wait(boost::asio::ip::tcp::socket::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
            if (self->stopped) return;
            if (ec) return;  // cancelled or the socket is closing: the connection ends on its own
            // POLLRDHUP: the peer has shut down its side, even when bytes it sent before are still unread —
            // under TLS a closing client may send a close_notify alert before its FIN, and those bytes
            // (encrypted in TLS 1.3, so not told apart from data by looking) must not hide the close.
            pollfd watched{self->socket->native_handle(), POLLIN | POLLRDHUP, 0};
            if (::poll(&watched, 1, 0) < 0) {
                if (errno == EINTR) self->arm();
                return;
            }
            if (watched.revents & (POLLRDHUP | POLLHUP | POLLERR)) {
                self->stopped = true;
                self->on_gone();
            }
            // Bytes waiting and the peer still sending (a pipelined request): the client is there; nothing more
            // to watch for now. No bytes (a spurious wake-up): watch on.
            else if (!(watched.revents & POLLIN)) self->arm();
        });
    }
};

ClientWatch::ClientWatch(boost::asio::ip::tcp::socket& socket, std::function<void()> on_gone)
    : state_(std::make_shared<State>()) {
    state_->socket = &socket;
    state_->on_gone = std::move(on_gone);
    state_->arm();
}

void ClientWatch::stop() {
    if (!state_ || state_->stopped) return;
    state_->stopped = true;
    state_->on_gone = nullptr;
    // Only the pending wait: cancel() on the socket would also cancel a write in flight. A wait_read has no
    // per-operation cancellation in Asio 1.81's reactor other than the socket's, so the handler simply
    // finds `stopped` when readiness (or the socket's close) completes it.
}

}  // namespace e2beval::server
