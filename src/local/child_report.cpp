// See child_report.hpp.
#include "local/child_report.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace e2beval::local {

namespace {

void copy_text(char* destination, std::size_t capacity, const char* source) noexcept {
    if (source == nullptr) source = "";
    std::size_t i = 0;
    for (; i + 1 < capacity && source[i] != '\0'; ++i) destination[i] = source[i];
    destination[i] = '\0';
}

// One report as one message, with room for one fd in its control part (`control` must outlive `message`).
msghdr report_message(iovec& payload, char (&control)[CMSG_SPACE(sizeof(int))]) noexcept {
    msghdr message{};
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    return message;
}

}  // namespace

ChildReport failure_report(const StepError& step) noexcept {
    ChildReport report;
    report.kind = ChildReport::setup_failed;
    report.value = step.error;
    copy_text(report.call, sizeof report.call, step.call);
    copy_text(report.path, sizeof report.path, step.path);
    return report;
}

void send_child_report(int fd, const ChildReport& report) noexcept {
    // SOCK_SEQPACKET: one report, one message, never half of one.
    while (::send(fd, &report, sizeof report, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

StepError send_child_report_with_fd(int fd, const ChildReport& report, int passed_fd) noexcept {
    iovec payload{const_cast<ChildReport*>(&report), sizeof report};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message = report_message(payload, control);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &passed_fd, sizeof(int));
    while (::sendmsg(fd, &message, MSG_NOSIGNAL) < 0)
        if (errno != EINTR) return {"sendmsg(SCM_RIGHTS)", "", errno};
    return {};
}

ssize_t receive_child_report(int fd, ChildReport& report, int& passed_fd) noexcept {
    passed_fd = -1;
    iovec payload{&report, sizeof report};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message = report_message(payload, control);
    const ssize_t n = ::recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n <= 0) return n;
    if (const cmsghdr* header = CMSG_FIRSTHDR(&message); header && header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS)
        std::memcpy(&passed_fd, CMSG_DATA(header), sizeof passed_fd);
    return n;
}

}  // namespace e2beval::local
