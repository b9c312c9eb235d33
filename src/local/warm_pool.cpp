// Zygote bookkeeping for the warm pool. Launching a zygote happens outside the lock.
#include "local/warm_pool.hpp"

#include <algorithm>

#include "local/zygote_startup.hpp"

namespace e2beval::local {

std::shared_ptr<Zygote> WarmPool::acquire(const IsolationProfile& key, const Starter& start) {
    {
        std::lock_guard lock(mutex_);
        auto& idle = idle_[key];
        while (!idle.empty()) {
            auto zygote = std::move(idle.back());
            idle.pop_back();
            if (zygote->alive()) return zygote;
            --live_;  // it died while idle: its destructor reaps it
        }
        if (live_ >= max_zygotes_) return nullptr;
        ++live_;
    }
    try {
        std::shared_ptr<Zygote> zygote = start();
        std::lock_guard lock(mutex_);
        all_.push_back(zygote);
        return zygote;
    } catch (...) {
        std::lock_guard lock(mutex_);
        --live_;
        throw;
    }
}

void WarmPool::release(const IsolationProfile& key, std::shared_ptr<Zygote> zygote, bool healthy) {
    std::lock_guard lock(mutex_);
    if (healthy && zygote->alive() && zygote->uses < max_uses_) {
        idle_[key].push_back(std::move(zygote));
        return;
    }
    --live_;
    zygote->kill();
}

void WarmPool::warm_up(const IsolationProfile& key, std::size_t count, const Starter& start) {
    std::vector<std::shared_ptr<Zygote>> started;
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (idle_[key].size() + started.size() >= count || live_ >= max_zygotes_) break;
        }
        auto zygote = acquire(key, start);
        if (!zygote) break;
        try {
            wait_until_ready(zygote);
        } catch (...) {
            release(key, std::move(zygote), false);
            for (auto& ready : started) release(key, std::move(ready), true);
            throw;
        }
        started.push_back(std::move(zygote));
    }
    for (auto& zygote : started) release(key, std::move(zygote), true);
}

std::vector<pid_t> WarmPool::zygote_init_pids() {
    std::lock_guard lock(mutex_);
    std::vector<pid_t> pids;
    all_.erase(std::remove_if(all_.begin(), all_.end(), [](const auto& weak) { return weak.expired(); }), all_.end());
    for (const auto& weak : all_)
        if (auto zygote = weak.lock(); zygote && zygote->alive()) pids.push_back(zygote->init_pid());
    return pids;
}

}  // namespace e2beval::local
