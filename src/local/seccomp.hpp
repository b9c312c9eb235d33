// seccomp: the system calls sandboxed code never needs are denied. The filter is compiled with libseccomp
// in the parent (it allocates) and installed by the program's process as its last step before exec.
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

#include "e2beval/types.hpp"
#include "local/spawn_plan.hpp"

namespace e2beval::local {

struct SeccompProgram {
    std::vector<sock_filter> instructions;
    bool reports_denials = false;  // denied calls go to a user-notification listener the supervisor reads
};

// Parent side. Denied calls are sent to the supervisor when the kernel supports user notification
// (it answers EPERM or kills, per `mode`); otherwise they fail with EPERM unreported.
SeccompProgram compile_seccomp_filter(SeccompMode mode, bool allow_network);

// The names of the calls the filter denies, for `e2beval doctor` and docs.
const std::vector<std::string>& denied_syscall_names();

// Child side, last step before exec: no_new_privs must already be set. Sets the listener fd (or -1
// when denials are not reported). Must not allocate.
StepError install_seccomp_filter(const sock_fprog& filter, bool reports_denials, int& listener_fd) noexcept;

// "ptrace" for a (audit arch, number) pair from a notification.
std::string syscall_name(std::uint32_t arch, int number);

}  // namespace e2beval::local
