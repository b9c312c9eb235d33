// A client that went away, told apart from one that sent more bytes (plain HTTP or TLS alike).
#include "server/client_watch.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>

#include <boost/asio/steady_timer.hpp>

namespace e2beval::server {

namespace {
// While unread bytes sit on the socket, readiness says nothing new; the peer's shutdown is looked for this often.
constexpr auto kRecheckInterval = std::chrono::milliseconds(200);
}  // namespace

struct ClientWatch::State : std::enable_shared_from_this<State> {
    explicit State(boost::asio::ip::tcp::socket& watched) : socket(&watched), timer(watched.get_executor()) {}

    boost::asio::ip::tcp::socket* socket;
    boost::asio::steady_timer timer;
    std::function<void()> on_gone;
    bool stopped = false;

    void arm() {
        socket->async_wait(boost::asio::ip::tcp::socket::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
            if (self->stopped) return;
            if (ec) return;  // cancelled or the socket is closing: the connection ends on its own
            self->check();
        });
    }

    // POLLRDHUP: the peer has shut down its side, even when bytes it sent before are still unread. Under TLS a
    // closing client may send a close_notify alert first and its FIN only later (after waiting for the
    // server's own close_notify), and the alert's bytes — encrypted in TLS 1.3, so not told apart from data
    // by looking — must not hide the close. Bytes waiting without a shutdown (the alert before its FIN, or a
    // pipelined request) are rechecked on a timer: the readiness wait would complete at once, again and again.
    void check() {
        pollfd watched{socket->native_handle(), POLLIN | POLLRDHUP, 0};
        if (::poll(&watched, 1, 0) < 0 && errno != EINTR) return;
        if (watched.revents & (POLLRDHUP | POLLHUP | POLLERR)) {
            stopped = true;
            on_gone();
        } else if (watched.revents & POLLIN) {
            timer.expires_after(kRecheckInterval);
            timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
                if (!ec && !self->stopped) self->check();
            });
        } else {
            arm();  // a spurious wake-up, or the bytes were read: watch on
        }
    }
};

ClientWatch::ClientWatch(boost::asio::ip::tcp::socket& socket, std::function<void()> on_gone)
    : state_(std::make_shared<State>(socket)) {
    state_->on_gone = std::move(on_gone);
    state_->arm();
}

void ClientWatch::stop() {
    if (!state_ || state_->stopped) return;
    state_->stopped = true;
    state_->on_gone = nullptr;
    state_->timer.cancel();
    // Only the timer and the pending wait: cancel() on the socket would also cancel a write in flight. A
    // wait_read has no per-operation cancellation in Asio 1.81's reactor other than the socket's, so its
    // handler simply finds `stopped` when readiness (or the socket's close) completes it.
}

}  // namespace e2beval::server
