// Zygote bookkeeping for the warm pool. Launching a zygote happens outside the lock.
#include "local/warm_pool.hpp"

#include <algorithm>

#include "e2beval/core/error.hpp"
#include "local/zygote_startup.hpp"

namespace e2beval::local {

std::shared_ptr<Zygote> WarmPool::launch(const WarmPoolKey& key) {
    try {
        std::shared_ptr<Zygote> zygote = start_(key);
        std::lock_guard lock(mutex_);
        all_.push_back(zygote);
        return zygote;
    } catch (...) {
        std::lock_guard lock(mutex_);
        --live_;
        throw;
    }
}

std::shared_ptr<Zygote> WarmPool::acquire(const WarmPoolKey& key) {
    {
        std::lock_guard lock(mutex_);
        auto& idle = idle_[key];
        idle.erase(std::remove_if(idle.begin(), idle.end(),
                                  [this](const std::shared_ptr<Zygote>& zygote) {
                                      if (zygote->alive()) return false;
                                      --live_;  // it died while idle: its destructor reaps it
                                      return true;
                                  }),
                   idle.end());
        // A ready zygote first (the most recently used: its pages are warm); a spare still starting only
        // when no ready one is idle.
        auto chosen = std::find_if(idle.rbegin(), idle.rend(), [](const auto& zygote) { return zygote->ready; });
        if (chosen == idle.rend() && !idle.empty()) chosen = idle.rbegin();
        if (chosen != idle.rend()) {
            auto zygote = std::move(*chosen);
            idle.erase(std::next(chosen).base());
            return zygote;
        }
        if (live_ >= max_zygotes_) return nullptr;
        ++live_;
    }
    return launch(key);
}

void WarmPool::release(const WarmPoolKey& key, std::shared_ptr<Zygote> zygote, bool healthy) {
    bool launch_spare = false;
    {
        std::lock_guard lock(mutex_);
        if (healthy && zygote->alive() && zygote->uses < max_uses_) {
            if (max_uses_ > kSpareLead && zygote->uses == max_uses_ - kSpareLead && live_ < max_zygotes_) {
                ++live_;
                launch_spare = true;
            }
            idle_[key].push_back(std::move(zygote));
        } else {
            --live_;
            zygote->kill();
        }
    }
    if (!launch_spare) return;
    try {
        auto spare = launch(key);
        std::lock_guard lock(mutex_);
        auto& idle = idle_[key];
        idle.insert(idle.begin(), std::move(spare));  // used once the ready ones are busy or gone
    } catch (const error&) {
        // No spare (launch() gave its place back): the zygote is replaced on demand when it is recycled.
    }
}

void WarmPool::warm_up(const WarmPoolKey& key, std::size_t count) {
    // Launched together (each interpreter starts on its own core), then waited for. Not launch_ahead plus
    // a wait: the zygotes are taken out of idle_ while they start, because waiting reads a zygote's
    // start-up report and sets `ready`, and an execution that took one from idle_ would wait on it too.
    std::vector<std::shared_ptr<Zygote>> started;
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (idle_[key].size() + started.size() >= count || live_ >= max_zygotes_) break;
        }
        auto zygote = acquire(key);
        if (!zygote) break;
        started.push_back(std::move(zygote));
    }
    std::size_t waited = 0;
    try {
        for (; waited < started.size(); ++waited) wait_until_ready(started[waited]);
    } catch (...) {
        release(key, std::move(started[waited]), false);
        for (std::size_t i = 0; i < started.size(); ++i)
            if (i != waited) release(key, std::move(started[i]), true);  // the others are fine, or still starting
        throw;
    }
    for (auto& zygote : started) release(key, std::move(zygote), true);
}

void WarmPool::launch_ahead(const WarmPoolKey& key, std::size_t count) {
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (idle_[key].size() >= count || live_ >= max_zygotes_) return;
            ++live_;
        }
        auto zygote = launch(key);  // on failure it gives its place back and throws
        std::lock_guard lock(mutex_);
        idle_[key].push_back(std::move(zygote));
    }
}

WarmPool::~WarmPool() {
    std::lock_guard lock(mutex_);
    for (const auto& weak : all_)
        if (auto zygote = weak.lock()) zygote->signal_kill();
    // idle_ goes next (members are destroyed after this body): each Zygote's destructor reaps its own.
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
