// One message on a SOCK_SEQPACKET socket with file descriptors attached (SCM_RIGHTS), both ways. Nothing here
// allocates or throws: the sandbox's init, the zygote and its standbys use it after fork/clone, and the
// supervisor too; so the control-message layout is written once.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string_view>

namespace e2beval::local {

// The most fds one message carries: a zygote's settings (its library and two cgroups' v1 tasks files, four
// hierarchies each).
inline constexpr std::size_t kMostPassedFds = 9;

// Sends `bytes` as one message with `fds` attached (none is fine), retrying EINTR; false with errno set.
bool send_with_fds(int socket, std::string_view bytes, std::span<const int> fds) noexcept;
inline bool send_with_fds(int socket, std::string_view bytes, std::initializer_list<int> fds) noexcept {
    return send_with_fds(socket, bytes, std::span<const int>(fds.begin(), fds.size()));
}

struct ReceivedMessage {
    ssize_t bytes = -1;      // recvmsg's result: the message's size, 0 at the end of the channel, -1 with errno
    std::size_t fds = 0;     // how many of the caller's fds were filled (close-on-exec)
    bool truncated = false;  // the message or its fds did not fit: what did not fit is closed, not received
};

// Receives one message into `buffer` (`size` bytes) and up to `fds.size()` fds, retrying EINTR. `flags`: e.g.
// MSG_DONTWAIT.
ReceivedMessage receive_with_fds(int socket, void* buffer, std::size_t size, std::span<int> fds, int flags = 0) noexcept;

}  // namespace e2beval::local
