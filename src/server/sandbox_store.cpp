// The served sandboxes by id; a sandbox whose session ended (killed, timed out, its agent died) is dropped the
// first time anyone looks, so its pipes and memory go with it.
#include "server/sandbox_store.hpp"

#include <algorithm>

namespace e2beval::server {

SessionEvent ServedSandbox::call(const void* caller, boost::json::object request, const SessionEventHandler& on_event) {
    std::lock_guard lane(lane_);
    {
        std::lock_guard lock(current_mutex_);
        current_ = caller;
    }
    struct Clear {
        ServedSandbox& sandbox;
        ~Clear() {
            std::lock_guard lock(sandbox.current_mutex_);
            sandbox.current_ = nullptr;
        }
    } clear{*this};
    // No request timeout of the host's own beyond E2B's rules (Session::call): a run_code without "timeout"
    // runs until its client goes away, as on E2B.
    return session->call(std::move(request), on_event);
}

void ServedSandbox::interrupt(const void* caller) {
    std::lock_guard lock(current_mutex_);
    if (current_ == caller && caller) session->interrupt();
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
