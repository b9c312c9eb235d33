// E2bSandbox: the same Sandbox interface, run in E2B's cloud (or any server speaking E2B's API, such as
// `e2beval serve`): one-shot executions in reused remote sandboxes, sessions mapped to remote sandboxes.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "e2beval/sandbox.hpp"

namespace e2beval {

// Where E2B is and how to use it. from_environment() reads what the official SDKs read.
struct E2bSettings {
    std::string api_key;              // E2B_API_KEY; never logged, printed or put into an error
    std::string domain = "e2b.app";   // E2B_DOMAIN
    std::string api_url;              // E2B_API_URL; empty: https://api.<domain>
    std::string sandbox_url;          // E2B_SANDBOX_URL; empty: E2B's sandbox hosts for `domain`
    std::string template_id = "code-interpreter-v1";
    std::string ca_file;              // E2BEVAL_E2B_CA_FILE: a CA trusted besides the system's store
    std::size_t max_sandboxes = 20;   // alive at once (E2B's Hobby tier allows 20 concurrent sandboxes)
    unsigned uses_per_sandbox = 100;  // one-shot executions per remote sandbox before it is replaced
    double creation_rate = 1.0;       // creations per second at most (E2B's Hobby tier: 1/s)
    // A remote sandbox is created with this lifetime and extended while in use, so one left behind by a
    // crash ends soon on its own.
    std::chrono::seconds lease{60};
    std::chrono::milliseconds request_timeout{60'000};

    // The environment's E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL, E2BEVAL_E2B_CA_FILE,
    // E2BEVAL_E2B_MAX_SANDBOXES, E2BEVAL_E2B_USES_PER_SANDBOX, E2BEVAL_E2B_CREATION_RATE over the defaults.
    static E2bSettings from_environment();
};

// What the backend's client did so far (the bench's "requests per sample").
struct E2bCounters {
    std::uint64_t requests = 0;
    std::uint64_t retries = 0;
    std::uint64_t connections = 0;
    std::uint64_t sandboxes_created = 0;
    std::uint64_t sandboxes_killed = 0;
};

// The settings make_sandbox() uses for backend "e2b": the environment's, with `config`'s non-empty fields over them.
E2bSettings e2b_settings(const BackendConfig& config);

class E2bSandbox : public Sandbox {
public:
    // Throws input_error when there is no API key or a URL is malformed. Nothing is created until used.
    explicit E2bSandbox(E2bSettings settings, executor_type executor = {});
    // Kills every remote sandbox it created (waits up to a few seconds for the answers).
    ~E2bSandbox() override;

    std::string_view backend() const noexcept override { return "e2b"; }
    std::shared_ptr<Session> create_session(const SessionOptions& options = {}) override;
    std::vector<SessionInfo> list_sessions() override;
    std::shared_ptr<Session> find_session(const std::string& id) override;

    E2bCounters counters() const;
    // Kills the remote sandboxes kept for reuse now (the destructor does it too).
    void shutdown();

    struct Engine;  // the I/O thread and everything on it (src/e2b/engine.hpp)

protected:
    void initiate_execute(executor_type io, ExecRequest request, ExecHandler& handler) override;

private:
    std::shared_ptr<Engine> engine_;
    std::shared_ptr<SessionRegistry> sessions_;
};

}  // namespace e2beval
