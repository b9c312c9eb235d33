// The served sandboxes by id; a sandbox whose session ended (killed, timed out, its agent died) is dropped the
// first time anyone looks, so its pipes and memory go with it.
#include "server/sandbox_store.hpp"

#include <algorithm>

namespace e2beval::server {

SessionEvent ServedSandbox::call(const void* caller, boost::json::object request, const SessionEventHandler& on_event) {
    // No request timeout of the host's own beyond E2B's rules (Session::call): a run_code without "timeout"
    // runs until its client goes away, as on E2B.
    if (!caller) return session->call(std::move(request), on_event);
    std::shared_ptr<CallInterrupt> interrupt;
    {
        std::lock_guard lock(interrupts_mutex_);
        auto& slot = interrupts_[caller];
        if (!slot) slot = std::make_shared<CallInterrupt>();
        interrupt = slot;
    }
    struct Forget {
        ServedSandbox& sandbox;
        const void* caller;
        ~Forget() {
            std::lock_guard lock(sandbox.interrupts_mutex_);
            sandbox.interrupts_.erase(caller);
        }
    } forget{*this, caller};
    return session->call(std::move(request), on_event, std::nullopt, interrupt.get());
}

void ServedSandbox::interrupt(const void* caller, CallInterrupt::Mode mode) {
    if (!caller) return;
    std::shared_ptr<CallInterrupt> interrupt;
    {
        std::lock_guard lock(interrupts_mutex_);
        const auto found = interrupts_.find(caller);
        if (found == interrupts_.end()) return;  // not running (ended, or not started: abandoned() stops it)
        interrupt = found->second;
    }
    interrupt->interrupt(mode);
}

void SandboxStore::add(std::shared_ptr<ServedSandbox> sandbox) {
    std::lock_guard lock(mutex_);
    sandboxes_[sandbox->session->id()] = std::move(sandbox);
}

std::shared_ptr<ServedSandbox> SandboxStore::find(const std::string& id) {
    std::lock_guard lock(mutex_);
    const auto found = sandboxes_.find(id);
    if (found == sandboxes_.end()) return nullptr;
    if (!found->second->session->alive()) {
        sandboxes_.erase(found);
        return nullptr;
    }
    return found->second;
}

std::vector<std::shared_ptr<ServedSandbox>> SandboxStore::live() {
    std::lock_guard lock(mutex_);
    std::erase_if(sandboxes_, [](const auto& entry) { return !entry.second->session->alive(); });
    std::vector<std::shared_ptr<ServedSandbox>> sandboxes;
    for (const auto& [id, sandbox] : sandboxes_) sandboxes.push_back(sandbox);
    std::sort(sandboxes.begin(), sandboxes.end(), [](const auto& a, const auto& b) { return a->sequence < b->sequence; });
    return sandboxes;
}

bool SandboxStore::kill(const std::string& id) {
    std::shared_ptr<ServedSandbox> sandbox;
    {
        std::lock_guard lock(mutex_);
        const auto found = sandboxes_.find(id);
        if (found == sandboxes_.end()) return false;
        sandbox = std::move(found->second);
        sandboxes_.erase(found);
    }
    const bool was_alive = sandbox->session->alive();
    sandbox->session->kill();
    return was_alive;
}

void SandboxStore::kill_all() noexcept {
    std::map<std::string, std::shared_ptr<ServedSandbox>> all;
    {
        std::lock_guard lock(mutex_);
        all.swap(sandboxes_);
    }
    for (auto& [id, sandbox] : all) sandbox->session->kill();
}

std::size_t SandboxStore::live_count() { return live().size(); }

}  // namespace e2beval::server
