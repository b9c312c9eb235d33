// The warm pool: zygotes kept per isolation profile (network, seccomp mode, minimum level), each serving
// one execution at a time, recycled after a number of uses or on any anomaly, replaced when they die.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "local/supervisor.hpp"

namespace e2beval::local {

class WarmPool {
public:
    WarmPool(std::size_t max_zygotes, unsigned max_uses) : max_zygotes_(max_zygotes), max_uses_(max_uses) {}

    using Starter = std::function<std::unique_ptr<Zygote>()>;

    // An idle zygote for `key`, or one just launched with `start` when none is idle and the pool has room
    // (not ready yet: the caller waits for it, zygote_startup.hpp); nullptr when every zygote is busy and
    // the pool is full (the caller then runs cold).
    std::shared_ptr<Zygote> acquire(const IsolationProfile& key, const Starter& start);
    // Gives a zygote back; an unhealthy or worn-out one is killed instead.
    void release(const IsolationProfile& key, std::shared_ptr<Zygote> zygote, bool healthy);
    // Starts zygotes until `count` are idle for `key` (or the pool is full), waiting until they are ready.
    void warm_up(const IsolationProfile& key, std::size_t count, const Starter& start);
    // Host pids of the live zygotes' init processes.
    std::vector<pid_t> zygote_init_pids();

private:
    std::mutex mutex_;
    std::size_t max_zygotes_;
    unsigned max_uses_;
    std::size_t live_ = 0;
    std::map<IsolationProfile, std::vector<std::shared_ptr<Zygote>>> idle_;
    std::vector<std::weak_ptr<Zygote>> all_;
};

}  // namespace e2beval::local
