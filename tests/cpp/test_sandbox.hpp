// The sandbox every test uses. ctest runs the suite twice: warm (E2BEVAL_TEST_POOL=1, executions forked
// from pool zygotes) and cold (E2BEVAL_TEST_POOL=0), so each test proves both paths isolate the same.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::testing {

inline bool pool_enabled() {
    const char* setting = std::getenv("E2BEVAL_TEST_POOL");
    return !setting || std::string(setting) != "0";
}

inline LocalSandbox& test_sandbox() {
    static LocalSandbox instance([] {
        LocalSandboxOptions options;
        options.pool.enabled = pool_enabled();
        return options;
    }());
    return instance;
}

// A string no other process's command line holds by chance, to find a test's own processes on the host.
inline std::string unique_token() {
    std::random_device device;
    return "e2beval-test-" + std::to_string(device()) + std::to_string(device());
}

// Host processes whose command line holds `token`.
inline int processes_with(const std::string& token) {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        std::stringstream content;
        content << in.rdbuf();
        if (content.str().find(token) != std::string::npos) ++count;
    }
    return count;
}

// A TCP listener on the host's 127.0.0.1 (an ephemeral port), for tests of what sandboxed code can reach.
class LoopbackListener {
public:
    LoopbackListener() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd_, 4) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            throw std::runtime_error("cannot listen on 127.0.0.1");
        port_ = ntohs(address.sin_port);
    }
    LoopbackListener(const LoopbackListener&) = delete;
    LoopbackListener& operator=(const LoopbackListener&) = delete;
    ~LoopbackListener() { ::close(fd_); }
    std::string port() const { return std::to_string(port_); }

private:
    int fd_;
    unsigned short port_ = 0;
};

}  // namespace e2beval::testing
