// A local session's usage as the host sees it (Session::usage): CPU time and memory from its cgroup, the disk of
// its workspace from the sandbox's own mount of /tmp, reached through /proc/<init>/root.
#pragma once

#include "e2beval/core/types.hpp"
#include "e2beval/session.hpp"
#include "local/supervisor.hpp"

namespace e2beval::local {

// `limits`: the session's (its memory limit is memory_total_bytes). Reads files only; never waits on the sandbox.
SessionUsage measure_session_usage(const InteractiveSandbox& sandbox, const Limits& limits);

}  // namespace e2beval::local
