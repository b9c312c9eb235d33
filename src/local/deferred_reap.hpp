// After a cold execution's result is known, the last of its sandbox goes in the background: the sandbox's
// init, which reported the program's end with nothing else left in its pid namespace, exits on its own;
// tearing down its namespaces and its copy of the host process's memory takes ~0.8 ms, and removing the
// cgroup after it ~0.3 ms. One thread per process (started by the first reap, joined at exit) waits for
// that and removes the cgroup, so the result does not wait for it. Nothing of the program is left by then
// (the init checked), so nothing it ran is counted or limited after the result: the deferral moves only the
// init's own exit.
#pragma once

#include <sys/types.h>

#include <memory>

namespace e2beval::local {

class SandboxCgroup;

// Takes over `init_pid` (a child of this process that nobody else waits for) and `cgroup` (nullptr
// without one): kills and reaps the init, then removes the cgroup.
void reap_after_result(pid_t init_pid, std::shared_ptr<SandboxCgroup> cgroup);

// Returns once every reap handed over so far is done. The process's exit does it too (an atexit handler
// joins the thread once the queue is drained), so nothing outlives an e2beval process that exits normally.
void finish_deferred_reaps();

}  // namespace e2beval::local
