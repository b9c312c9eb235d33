// The fair queue of SandboxFusion's runs: a slot count, a wait list per client address, and a round-robin turn.
#include "server/sandbox_fusion/fair_queue.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include "server/sandbox_fusion/run_code.hpp"

namespace e2beval::server::sandbox_fusion {

namespace asio = boost::asio;

asio::awaitable<FairQueue::Slot> FairQueue::acquire(std::string client) {
    if (running_ < slots_ && waiting_ == 0) {
        ++running_;
        co_return Slot(this);
    }
    if (waiting_ >= max_waiting_ && !make_room_for(client))
        throw QueueFull("the run queue is full (" + std::to_string(waiting_) + " requests waiting, " +
                        std::to_string(running_) + " running): retry later, or raise e2beval serve --sandbox-fusion-queue "
                        "(or --sandbox-fusion-jobs)");
    auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor);
    auto& list = waiters_[client];
    if (list.empty()) turns_.push_back(client);
    list.push_back(waiter);
    ++waiting_;
    // Woken by release() (granted: the slot passed to this waiter) or by the coroutine's cancellation.
    const auto [ec] = co_await waiter->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    if (waiter->granted) co_return Slot(this);
    if (waiter->evicted)
        throw QueueFull("the run queue is full and this client had the most requests waiting (" + std::to_string(max_waiting_) +
                        " places): its newest one gave its place to another client's; retry later, or raise e2beval serve "
                        "--sandbox-fusion-queue");
    forget(client, waiter);
    throw boost::system::system_error(ec ? ec : asio::error::operation_aborted, "the client went away while it waited");
}

void FairQueue::release() {
    // The next client in turn gives its oldest waiter the slot, and goes to the back of the turn.
    while (!turns_.empty()) {
        const std::string client = turns_.front();
        turns_.pop_front();
        auto found = waiters_.find(client);
        if (found == waiters_.end() || found->second.empty()) {
            if (found != waiters_.end()) waiters_.erase(found);
            continue;
        }
        auto waiter = found->second.front();
        found->second.pop_front();
        if (found->second.empty()) waiters_.erase(found);
        else turns_.push_back(client);
        --waiting_;
        waiter->granted = true;
        waiter->wake.cancel();
        return;  // the slot passes on: running_ is unchanged
    }
    --running_;
}

bool FairQueue::make_room_for(const std::string& client) {
    const auto mine = waiters_.find(client);
    const std::size_t own = mine == waiters_.end() ? 0 : mine->second.size();
    auto biggest = waiters_.end();
    for (auto at = waiters_.begin(); at != waiters_.end(); ++at)
        if (biggest == waiters_.end() || at->second.size() > biggest->second.size()) biggest = at;
    if (biggest == waiters_.end() || biggest->second.size() < own + 2) return false;
    auto evicted = biggest->second.back();
    biggest->second.pop_back();
    --waiting_;
    if (biggest->second.empty()) {
        turns_.remove(biggest->first);
        waiters_.erase(biggest);
    }
    evicted->evicted = true;
    evicted->wake.cancel();
    return true;
}

void FairQueue::forget(const std::string& client, const std::shared_ptr<Waiter>& waiter) {
    auto found = waiters_.find(client);
    if (found == waiters_.end()) return;
    auto& list = found->second;
    const auto at = std::find(list.begin(), list.end(), waiter);
    if (at == list.end()) return;
    list.erase(at);
    --waiting_;
    if (list.empty()) {
        waiters_.erase(found);
        turns_.remove(client);
    }
}

}  // namespace e2beval::server::sandbox_fusion
