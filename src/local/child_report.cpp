// See child_report.hpp.
#include "local/child_report.hpp"

#include <sys/socket.h>

#include <cerrno>

#include "local/fd_message.hpp"

namespace e2beval::local {

namespace {

void copy_text(char* destination, std::size_t capacity, const char* source) noexcept {
    if (source == nullptr) source = "";
    std::size_t i = 0;
    for (; i + 1 < capacity && source[i] != '\0'; ++i) destination[i] = source[i];
    destination[i] = '\0';
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

ChildReport program_ended_report(int wait_status, const struct rusage& usage) noexcept {
    ChildReport report;
    report.kind = ChildReport::program_ended;
    report.value = wait_status;
    report.peak_rss_kib = usage.ru_maxrss;
    report.cpu_us = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL + usage.ru_utime.tv_usec +
                    usage.ru_stime.tv_usec;
    return report;
}

void send_child_report(int fd, const ChildReport& report) noexcept {
    // SOCK_SEQPACKET: one report, one message, never half of one.
    while (::send(fd, &report, sizeof report, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

StepError send_child_report_with_fd(int fd, const ChildReport& report, int passed_fd) noexcept {
    if (!send_with_fds(fd, std::string_view(reinterpret_cast<const char*>(&report), sizeof report), {passed_fd}))
        return {"sendmsg(SCM_RIGHTS)", "", errno};
    return {};
}

ssize_t receive_child_report(int fd, ChildReport& report, int& passed_fd) noexcept {
    passed_fd = -1;
    const auto received = receive_with_fds(fd, &report, sizeof report, std::span<int>(&passed_fd, 1), MSG_DONTWAIT);
    return received.bytes;
}

}  // namespace e2beval::local
