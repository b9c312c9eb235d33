// See fd_message.hpp.
#include "local/fd_message.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace e2beval::local {

bool send_with_fds(int socket, std::string_view bytes, std::span<const int> fds) noexcept {
    if (fds.size() > kMostPassedFds) {
        errno = EINVAL;
        return false;
    }
    iovec payload{const_cast<char*>(bytes.data()), bytes.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(kMostPassedFds * sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    if (!fds.empty()) {
        message.msg_control = control;
        message.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
        std::memcpy(CMSG_DATA(header), fds.data(), fds.size() * sizeof(int));
    }
    while (::sendmsg(socket, &message, MSG_NOSIGNAL) < 0)
        if (errno != EINTR) return false;
    return true;
}

ReceivedMessage receive_with_fds(int socket, void* buffer, std::size_t size, std::span<int> fds, int flags) noexcept {
    ReceivedMessage received;
    iovec payload{buffer, size};
    alignas(cmsghdr) char control[CMSG_SPACE(kMostPassedFds * sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    while ((received.bytes = ::recvmsg(socket, &message, flags | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    if (received.bytes < 0) return received;
    received.truncated = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int passed = -1;
            std::memcpy(&passed, CMSG_DATA(header) + i * sizeof(int), sizeof passed);
            if (received.fds < fds.size()) {
                fds[received.fds++] = passed;
            } else {
                ::close(passed);
                received.truncated = true;
            }
        }
    }
    return received;
}

}  // namespace e2beval::local
