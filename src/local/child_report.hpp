// Sending (and receiving) ChildReport messages: how the sandbox's init (cold) and the zygote (warm) tell the supervisor
// about a failed step, the program's start and its end. Both use these functions, so the message is
// written in one place. They run in a child after fork/clone: no allocation, no exceptions.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include "local/spawn_plan.hpp"

namespace e2beval::local {

// The report for a failed step (kind setup_failed, errno, the call and path as text).
ChildReport failure_report(const StepError& step) noexcept;

// The report of the program's end (kind program_ended): its wait status, and its CPU time and peak RSS
// from the rusage of the wait that reaped it.
ChildReport program_ended_report(int wait_status, const struct rusage& usage) noexcept;

// Sends one report as one message on the SOCK_SEQPACKET channel `fd`; best effort (the supervisor may
// be gone, and then there is nobody to tell).
void send_child_report(int fd, const ChildReport& report) noexcept;

// Sends one report carrying `passed_fd` (SCM_RIGHTS), e.g. a seccomp listener or a program's pidfd.
StepError send_child_report_with_fd(int fd, const ChildReport& report, int passed_fd) noexcept;

// Parent side: receives one report without blocking (MSG_DONTWAIT) into `report`, and the fd it carries, if
// any, into `passed_fd` (close-on-exec; -1 when none). Returns recvmsg's result: the bytes, 0 at the end of
// the channel, -1 with errno (EAGAIN: nothing yet).
ssize_t receive_child_report(int fd, ChildReport& report, int& passed_fd) noexcept;

}  // namespace e2beval::local
