// The sandbox every test uses. ctest runs the suite twice: warm (E2BEVAL_TEST_POOL=1, executions forked
// from pool zygotes) and cold (E2BEVAL_TEST_POOL=0), so each test proves both paths isolate the same.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
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
