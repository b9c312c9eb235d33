// At most N SandboxFusion runs at once; the rest wait in a bounded queue served round-robin by client address, so
// that one client flooding the server delays its own requests, not another client's. Past the bound: QueueFull
// (the route answers 503 with Retry-After), except that a client with fewer waiters than the biggest holder of
// the queue takes that holder's newest place (which gets the 503 instead): one client alone may fill the whole
// queue (verl's hundreds of requests in flight), yet cannot keep another client from entering it.
// Only the server's single I/O thread touches it (no locks).
#pragma once

#include <cstddef>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

namespace e2beval::server::sandbox_fusion {

class FairQueue {
public:
    FairQueue(std::size_t slots, std::size_t max_waiting) : slots_(slots), max_waiting_(max_waiting) {}
    FairQueue(const FairQueue&) = delete;
    FairQueue& operator=(const FairQueue&) = delete;

    // A run's right to go; given back when destroyed (to the next waiter, round-robin).
    class Slot {
    public:
        explicit Slot(FairQueue* queue) : queue_(queue) {}
        Slot(Slot&& other) noexcept : queue_(std::exchange(other.queue_, nullptr)) {}
        Slot& operator=(Slot&&) = delete;
        ~Slot() {
            if (queue_) queue_->release();
        }

    private:
        FairQueue* queue_;
    };

    // Waits for a slot under `client`. Throws QueueFull when `max_waiting` requests wait already, and
    // boost::system::system_error (operation_aborted) when the awaiting coroutine is cancelled (its client went
    // away): it then leaves the queue.
    boost::asio::awaitable<Slot> acquire(std::string client);

    std::size_t running() const noexcept { return running_; }
    std::size_t waiting() const noexcept { return waiting_; }
    std::size_t slots() const noexcept { return slots_; }
    std::size_t max_waiting() const noexcept { return max_waiting_; }

private:
    struct Waiter {
        explicit Waiter(boost::asio::any_io_executor io) : wake(io, boost::asio::steady_timer::time_point::max()) {}
        boost::asio::steady_timer wake;
        bool granted = false;
        bool evicted = false;  // its place went to a client with fewer waiters
    };
    void release();
    // Makes room for `client` when the queue is full: evicts the newest waiter of the client holding the most
    // places, if that client holds at least two more than `client`. Returns whether there is room now.
    bool make_room_for(const std::string& client);
    void forget(const std::string& client, const std::shared_ptr<Waiter>& waiter);

    std::size_t slots_;
    std::size_t max_waiting_;
    std::size_t running_ = 0;
    std::size_t waiting_ = 0;
    // Each client with waiters, its waiters in arrival order; `turns` is the round-robin order of those clients.
    std::map<std::string, std::deque<std::shared_ptr<Waiter>>> waiters_;
    std::list<std::string> turns_;
};

}  // namespace e2beval::server::sandbox_fusion
