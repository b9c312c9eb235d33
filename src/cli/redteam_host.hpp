// The host side of `e2beval redteam`: traps whose state shows, from outside the sandbox, whether an attack
// succeeded. A secret file and API-key canaries the code must never print, listeners it must never reach, a
// sentinel process it must never kill, host paths it must never create. Everything is undone on destruction.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "cli/redteam_attack.hpp"
#include "e2beval/core/types.hpp"

namespace e2beval::cli {

class RedteamHost {
public:
    // Creates the traps. Call before any thread starts: it forks the sentinel and sets canary values in
    // this process's environment (which the sandbox must not pass on).
    RedteamHost();
    ~RedteamHost();
    RedteamHost(const RedteamHost&) = delete;
    RedteamHost& operator=(const RedteamHost&) = delete;

    // {{CANARY_FILE}}, {{CANARY_DIR}}, {{HOST_PORT}}, {{HOST_UDP_PORT}}, {{HOST_ABSTRACT}}, {{SENTINEL_PID}}, {{TOKEN}}.
    const std::map<std::string, std::string>& placeholders() const noexcept { return placeholders_; }

    // Forgets what earlier attacks left behind (connections, datagrams), so evidence belongs to the next one.
    void reset();

    // What the last run achieved on the host, one sentence each; empty when nothing. Removes host files it
    // finds (their names hold the run's random token) and restarts a killed sentinel.
    std::vector<std::string> evidence(const ExecResult& result, const std::vector<std::string>& host_files);

    // `text` with every secret the runner knows replaced by "[host secret: what]", for printing.
    std::string redact(std::string text) const;

private:
    struct Secret {
        std::string value;
        std::string label;  // "the project's .env canary", "E2B_API_KEY canary", "a line of /etc/shadow"
    };
    void start_sentinel();
    std::size_t drain_stream_listener(int fd) const;
    std::size_t drain_datagrams() const;

    std::string token_;
    std::string canary_dir_, canary_file_;
    std::vector<Secret> secrets_;
    int tcp_listener_ = -1, udp_socket_ = -1, abstract_listener_ = -1;
    pid_t sentinel_ = -1;
    std::map<std::string, std::string> placeholders_;
};

}  // namespace e2beval::cli
