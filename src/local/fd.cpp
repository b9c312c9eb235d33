// fd helpers of the local backend (see fd.hpp); errors name the syscall.
#include "local/fd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "e2beval/core/error.hpp"

namespace e2beval::local {

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw sandbox_error(describe_syscall_failure("pipe2(O_CLOEXEC)", errno));
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

UniqueFd sealed_memfd(const char* name, std::string_view bytes) {
    UniqueFd memory(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!memory) throw sandbox_error(describe_syscall_failure("memfd_create", errno));
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(memory.get(), bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure("write(memfd)", errno));
        written += static_cast<std::size_t>(n);
    }
    if (::fcntl(memory.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0)
        throw sandbox_error(describe_syscall_failure("fcntl(F_ADD_SEALS)", errno));
    ::lseek(memory.get(), 0, SEEK_SET);
    return memory;
}

bool send_with_fds(int socket, std::string_view bytes, std::span<const int> fds) noexcept {
    iovec payload{const_cast<char*>(bytes.data()), bytes.size()};
    constexpr std::size_t kMostFds = 9;  // a zygote's settings: its library and 2 x 4 cgroup tasks files
    alignas(cmsghdr) char control[CMSG_SPACE(kMostFds * sizeof(int))] = {};
    if (fds.size() > kMostFds) {
        errno = EINVAL;
        return false;
    }
    msghdr message{};
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
    std::memcpy(CMSG_DATA(header), fds.data(), fds.size() * sizeof(int));
    while (::sendmsg(socket, &message, MSG_NOSIGNAL) < 0)
        if (errno != EINTR) return false;
    return true;
}

}  // namespace e2beval::local
