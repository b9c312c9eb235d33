// The warm pool: zygotes kept per isolation profile (network, seccomp mode, minimum level) and template, each serving
// one execution at a time, recycled after a number of uses or on any anomaly, replaced when they die.
// A zygote near the end of its uses has its replacement launched ahead of need (a spare), so no request
// waits for an interpreter to start when a zygote is recycled.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "local/supervisor.hpp"

namespace e2beval::local {

// Zygotes are kept per isolation profile and per template: each zygote runs one template's interpreter.
struct WarmPoolKey {
    IsolationProfile isolation;
    std::string template_name;  // as asked for (the starter resolves it)
    std::string template_key;   // NAME@BUILD_ID, "" for the default environment (template_environment.hpp)
    friend auto operator<=>(const WarmPoolKey&, const WarmPoolKey&) = default;
};

class WarmPool {
public:
    // Launches a zygote for a profile (it is not ready yet; zygote_startup.hpp waits for that).
    using Starter = std::function<std::unique_ptr<Zygote>(const WarmPoolKey&)>;

    WarmPool(std::size_t max_zygotes, unsigned max_uses, Starter start)
        : max_zygotes_(max_zygotes), max_uses_(max_uses), start_(std::move(start)) {}
    WarmPool(const WarmPool&) = delete;
    WarmPool& operator=(const WarmPool&) = delete;
    // Signals every zygote first, then reaps them: they die in parallel, not one after another (~2 ms each).
    ~WarmPool();

    // An idle zygote for `key` (a ready one first), or one just launched when none is idle and the pool has
    // room (not ready yet: the caller waits for it); nullptr when every zygote is busy and the pool is full
    // (the caller then runs cold).
    std::shared_ptr<Zygote> acquire(const WarmPoolKey& key);
    // Gives a zygote back; an unhealthy or worn-out one is killed instead. A zygote that has `spare_lead`
    // uses left gets its replacement launched now, while it still serves.
    void release(const WarmPoolKey& key, std::shared_ptr<Zygote> zygote, bool healthy);
    // Starts zygotes until `count` are idle for `key` (or the pool is full), all at once, then waits until
    // they are ready.
    void warm_up(const WarmPoolKey& key, std::size_t count);
    // Launches zygotes until `count` are idle for `key` (ready or starting) or the pool is full, and returns
    // while they start: an execution that takes one before it is ready waits for it (local_sandbox.cpp).
    void launch_ahead(const WarmPoolKey& key, std::size_t count);
    // Host pids of the live zygotes' init processes.
    std::vector<pid_t> zygote_init_pids();

    // How many uses before the end a zygote's replacement is launched: a zygote starts in ~100 ms, and a
    // warm execution takes a few, so the spare is ready when the old one is recycled.
    static constexpr unsigned kSpareLead = 64;

private:
    std::shared_ptr<Zygote> launch(const WarmPoolKey& key);  // counted in live_ by the caller

    std::mutex mutex_;
    std::size_t max_zygotes_;
    unsigned max_uses_;
    Starter start_;
    std::size_t live_ = 0;
    std::map<WarmPoolKey, std::vector<std::shared_ptr<Zygote>>> idle_;
    std::vector<std::weak_ptr<Zygote>> all_;
};

}  // namespace e2beval::local
