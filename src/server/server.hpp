// `e2beval serve`: E2B's API (control plane, code interpreter, envd) on one HTTP/1.1 listener, over the
// sessions of a Sandbox backend, so that the official E2B SDKs run unchanged against this machine. Sandbox
// traffic is told apart from the control plane by the E2b-Sandbox-Id / E2b-Sandbox-Port headers the SDKs
// send when E2B_SANDBOX_URL is set. docs/serve.md describes what is served.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "e2beval/sandbox.hpp"
#include "e2beval/session.hpp"
#include "server/admission.hpp"

namespace e2beval::server {

struct ServerOptions {
    std::string host = "127.0.0.1";
    std::uint16_t port = 3000;  // 0: any free port (see Server::port())
    std::vector<std::string> api_keys;  // at least one
    AdmissionLimits admission;
    // The backend whose sessions are the sandboxes; it registers them in the registry it is handed, which the
    // server owns.
    std::function<std::unique_ptr<Sandbox>(std::shared_ptr<SessionRegistry>)> make_backend;
    SessionOptions session_defaults;  // limits and isolation of every sandbox (and the template kept ready)
    // E2B's code-interpreter template names (the SDKs' default "code-interpreter-v1") get the bare default
    // environment instead of the built-in template with E2B's packages (`--bare-code-interpreter`).
    bool bare_code_interpreter = false;
    std::chrono::seconds default_timeout{300};  // when a create request names none: the SDKs' documented default
    std::chrono::seconds max_timeout{24 * 3600};
    std::size_t max_body_bytes = 100u << 20;  // larger requests get 413
    // Slow or abusive clients (docs/serve.md, "Security"). A request's line and headers must arrive within
    // header_timeout of its first byte (of the connection's opening, for its first request), its body within
    // body_timeout of the headers; a kept-alive connection may wait idle_timeout for its next request. Answers
    // are not bound by these: /execute and Start stream for as long as the code runs.
    std::chrono::seconds header_timeout{10};
    std::chrono::seconds body_timeout{120};
    std::chrono::seconds idle_timeout{330};  // longer than the SDKs keep pooled connections (300 s)
    std::size_t max_connections = 256;  // more are answered 503 and closed at once
    // No one client address may hold more than this many of them, so that a flood from one address leaves
    // room for others. Loopback counts like any address: a local flood is a flood too (a reverse proxy on this
    // machine, whose clients all arrive from one address, needs it raised to max_connections).
    std::size_t max_connections_per_address = 128;
    // Both set: HTTPS only (TLS 1.2+), with this PEM certificate chain and its PEM private key.
    std::string tls_certificate_file;
    std::string tls_private_key_file;
    // SandboxFusion's API on the same listener (src/server/sandbox_fusion/, docs/sandbox-fusion.md).
    struct SandboxFusion {
        // `--dataset NAME=FILE`: the datasets its dataset API serves by name.
        std::vector<std::pair<std::string, std::filesystem::path>> datasets;
        // Runs at once (each a sandbox) and requests waiting their turn beyond them; past that, 503.
        std::size_t jobs = 4;
        std::size_t queue = 256;
        // The most a request may ask: a compile_timeout or run_timeout (seconds) and memory_limit_MB.
        double max_timeout_seconds = 300;
        std::uint64_t max_memory_bytes = 8192ull << 20;
        // The memory of a run whose memory_limit_MB is -1 (SandboxFusion's "no limit"), 0 or null.
        std::uint64_t default_memory_bytes = 1024ull << 20;
        // fetch_files: the largest file sent back, and all of one response's together.
        std::uint64_t fetch_file_bytes = 16ull << 20;
        std::uint64_t fetch_total_bytes = 64ull << 20;
        // Set: every client must send `Authorization: Bearer <token>` (loopback too). Empty: loopback clients only.
        std::string token;
    } sandbox_fusion;
};

class Server {
public:
    // Binds the listener (throws sandbox_error naming the address when it cannot) and builds the backend.
    explicit Server(ServerOptions options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    std::uint16_t port() const noexcept;

    // Serves until SIGINT or SIGTERM (or stop()), then kills every sandbox and waits for the calls in flight.
    void run();
    void stop();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace e2beval::server
