// Privileges: after set-up the child keeps no capability, cannot gain any (no_new_privs), has no
// controlling terminal (new session) and sees only fds 0/1/2 once it execs.
#pragma once

#include "local/spawn_plan.hpp"

namespace e2beval::local {

// Child side, right before seccomp and exec. Must not allocate.
StepError drop_privileges() noexcept;

}  // namespace e2beval::local
