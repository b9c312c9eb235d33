// seccomp: the system calls sandboxed code never needs are denied. The filter is compiled with libseccomp
// in the parent (it allocates) and installed by the program's process as its last step before exec.
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

#include "e2beval/core/types.hpp"
#include "local/spawn_plan.hpp"

namespace e2beval::local {

struct SeccompProgram {
    std::vector<sock_filter> instructions;
    bool reports_denials = false;  // denied calls go to a user-notification listener the supervisor reads
};

// Parent side. Denied calls are sent to the supervisor when the kernel supports user notification
// (it answers EPERM or kills, per `mode`); otherwise they fail with EPERM unreported.
// `allow_reports` false: denied calls always fail with EPERM (or kill), unreported — for sandboxes
// whose owner does not serve a listener (sessions), where an unanswered notification would hang the call.
// `unavailable`: calls that fail with ENOSYS, unreported, in either mode, as if this kernel lacked them
// (for runtimes that probe them at every start, e.g. libuv's io_uring_setup in Node.js).
SeccompProgram compile_seccomp_filter(SeccompMode mode, bool allow_network, bool allow_reports = true,
                                      const std::vector<std::string>& unavailable = {});

// The names of the calls the filter denies, for `e2beval doctor` and docs.
const std::vector<std::string>& denied_syscall_names();

// Child side, last step before exec: no_new_privs must already be set. Sets the listener fd (or -1
// when denials are not reported). Must not allocate.
StepError install_seccomp_filter(const sock_fprog& filter, bool reports_denials, int& listener_fd) noexcept;

// "ptrace" for a (audit arch, number) pair from a notification.
std::string syscall_name(std::uint32_t arch, int number);

}  // namespace e2beval::local
