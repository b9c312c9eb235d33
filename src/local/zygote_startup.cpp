// See zygote_startup.hpp. The zygote's control socket becomes readable when its first report arrives or
// when it dies (end of file); a timer bounds the wait.
#include "local/zygote_startup.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "e2beval/core/error.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

namespace {

class StartupWait : public std::enable_shared_from_this<StartupWait> {
public:
    using Handler = asio::any_completion_handler<void(boost::system::error_code, std::string)>;

    StartupWait(asio::any_io_executor executor, std::shared_ptr<Zygote> zygote, Handler handler)
        : zygote_(std::move(zygote)), control_(executor), timer_(executor), handler_(std::move(handler)) {}

    void start() {
        // A duplicate: the descriptor object owns what it watches, and the zygote keeps its own.
        const int watched = ::fcntl(zygote_->control(), F_DUPFD_CLOEXEC, 0);
        if (watched < 0) return finish({}, describe_syscall_failure("fcntl(F_DUPFD_CLOEXEC)", errno));
        control_.assign(watched);
        if (auto slot = asio::get_associated_cancellation_slot(handler_); slot.is_connected())
            slot.assign([weak = weak_from_this()](asio::cancellation_type) {
                if (auto self = weak.lock()) self->finish(asio::error::operation_aborted, "cancelled");
            });
        timer_.expires_after(kZygoteStartTimeout);
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->finish({}, "the warm-pool zygote did not start within " + std::to_string(kZygoteStartTimeout.count()) + " s");
        });
        wait_for_report();
    }

private:
    void wait_for_report() {
        control_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
            if (ec) return;  // closed by finish()
            auto report = self->zygote_->read_startup_report();
            if (!report) return self->wait_for_report();
            self->finish({}, std::move(*report));
        });
    }

    void finish(boost::system::error_code ec, std::string failure) {
        if (finished_) return;
        finished_ = true;
        timer_.cancel();
        boost::system::error_code ignored;
        control_.close(ignored);
        asio::get_associated_cancellation_slot(handler_).clear();
        // Never inline: finish() may run inside start(), i.e. inside the caller's initiation.
        asio::post(timer_.get_executor(), [handler = std::move(handler_), ec, failure = std::move(failure)]() mutable {
            std::move(handler)(ec, std::move(failure));
        });
    }

    std::shared_ptr<Zygote> zygote_;
    asio::posix::stream_descriptor control_;
    asio::steady_timer timer_;
    Handler handler_;
    bool finished_ = false;
};

}  // namespace

void async_wait_until_ready(asio::any_io_executor executor, std::shared_ptr<Zygote> zygote,
                            asio::any_completion_handler<void(boost::system::error_code, std::string)> handler) {
    std::make_shared<StartupWait>(std::move(executor), std::move(zygote), std::move(handler))->start();
}

void wait_until_ready(const std::shared_ptr<Zygote>& zygote) {
    if (zygote->ready) return;
    asio::io_context io;
    std::string failure;
    async_wait_until_ready(io.get_executor(), zygote, [&failure](boost::system::error_code, std::string reason) {
        failure = std::move(reason);
    });
    io.run();
    if (!failure.empty()) throw sandbox_error(failure);
}

}  // namespace e2beval::local
