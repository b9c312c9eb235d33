#include "local/compile_flights.hpp"

#include <map>
#include <mutex>
#include <vector>

namespace e2beval::local {

namespace {

struct Flights {
    std::mutex mutex;
    std::map<std::string, std::vector<boost::asio::any_completion_handler<void()>>> waiting;  // key -> its waiters
};

Flights& flights() {
    static Flights* const instance = new Flights;  // never destroyed: compiles may end during static destruction
    return *instance;
}

}  // namespace

CompileFlight::~CompileFlight() {
    std::vector<boost::asio::any_completion_handler<void()>> waiters;
    {
        auto& all = flights();
        std::lock_guard lock(all.mutex);
        const auto found = all.waiting.find(key_);
        if (found == all.waiting.end()) return;
        waiters = std::move(found->second);
        all.waiting.erase(found);
    }
    for (auto& resume : waiters) std::move(resume)();
}

std::unique_ptr<CompileFlight> begin_compile_flight(const std::string& key,
                                                    const std::function<boost::asio::any_completion_handler<void()>()>& make_resume) {
    auto& all = flights();
    std::lock_guard lock(all.mutex);
    const auto [found, first] = all.waiting.try_emplace(key);
    if (first) return std::make_unique<CompileFlight>(key);
    found->second.push_back(make_resume());
    return nullptr;
}

}  // namespace e2beval::local
