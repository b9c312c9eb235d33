// cgroups: one cgroup per sandbox, created below the cgroup e2beval already runs in, for memory (no swap),
// pids and CPU-quota limits and memory, pids and CPU-time accounting. cgroup v2 where it is delegated to us, else the v1 controllers,
// else none (rlimits remain). Removed when the sandbox ends. A warm-pool zygote keeps two and reuses them
// for its executions, in turn (zygote.hpp), so no cgroup is made or moved into on a request's path.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "e2beval/core/types.hpp"
#include "local/cgroup_reaper.hpp"
#include "local/fd.hpp"

namespace e2beval::local {

// What this host offers, found once per process.
struct CgroupSupport {
    enum class Version { none, v1, v2 };
    Version version = Version::none;
    std::string v2_parent;                        // v2: the directory sandbox cgroups are created in
    std::map<std::string, std::string> v1_parents;  // v1: controller -> directory ("memory", "pids", "cpuacct", "cpu")
    // Whether a CPU quota (Limits::cpus) can be set: v2 with the cpu controller delegated, v1 with a writable
    // cpu hierarchy. Optional: without it, only requests that ask for a CPU cap are refused.
    bool cpu_quota = false;
    std::vector<std::string> notes;               // what was found and why something is unusable
    std::string fix;                              // how to get cgroup limits where they are missing
};

std::string_view to_string(CgroupSupport::Version version) noexcept;

const CgroupSupport& cgroup_support();

// Sandbox cgroups are named e2beval-<owner pid>-<owner start time>-<n>. The owner's cgroup reaper
// (cgroup_reaper.hpp) removes them when the owner ends, however it ends. A cgroup whose owner process is gone
// (a reused pid has another start time) and that is still there is stale: its sandboxes died with the owner
// (PR_SET_PDEATHSIG) and the reaper could not run or was killed. Older builds named them e2beval-<pid>-<n>.
struct StaleCgroup {
    std::string path;
    pid_t owner_pid = 0;
};
struct CgroupSweep {
    std::vector<std::string> parents;  // where sandbox cgroups are created (one per v1 controller)
    std::vector<StaleCgroup> stale;    // found with their owner gone
    std::vector<std::string> removed;  // of those, removed
    std::vector<std::pair<std::string, std::string>> kept;  // of those, left in place, and why
};

// Finds and removes the stale sandbox cgroups directly below this process's own cgroup (never anywhere
// else, and never one that still holds a process after `wait_for_dying`). Runs once per process, when it
// first creates a sandbox cgroup or when `e2beval doctor` asks; later calls return the first sweep's result.
const CgroupSweep& sweep_stale_cgroups(std::chrono::milliseconds wait_for_dying);

// This process's cgroup reaper, started if it has none yet (the first sandbox cgroup does that too).
CgroupReaperState cgroup_reaper();

struct CgroupUsage {
    std::optional<std::uint64_t> peak_memory_bytes;  // nullopt where unknown, or not this execution's own
    std::optional<std::chrono::nanoseconds> cpu_time;
    std::uint64_t oom_kills = 0;
    std::uint64_t pids_limit_hits = 0;
};

// One sandbox's cgroup. RAII: the destructor kills what is left in it and removes it.
// What a cgroup is charged for memory now (not a peak): v2 memory.current, v1 memory.usage_in_bytes (tmpfs files
// included), and of that the page cache (memory.stat "file", v1 "cache"). For a session's metrics; nullopt where
// the cgroup has no memory controller.
struct CgroupMemoryNow {
    std::optional<std::uint64_t> used_bytes;
    std::optional<std::uint64_t> cache_bytes;
};

class SandboxCgroup {
public:
    // Nullopt when the host has no usable cgroups; throws sandbox_error when creating one fails.
    static std::optional<SandboxCgroup> create(const Limits& limits);

    SandboxCgroup(SandboxCgroup&& other) noexcept;
    SandboxCgroup& operator=(SandboxCgroup&&) = delete;
    SandboxCgroup(const SandboxCgroup&) = delete;
    ~SandboxCgroup();

    // v2: an O_PATH fd of the cgroup for clone3(CLONE_INTO_CGROUP); -1 for v1.
    int directory_fd() const noexcept { return directory_fd_; }
    // Moves `pid` into this cgroup (every v1 controller's, or the v2 one) before it runs anything. This write
    // can block: the kernel takes cgroup_threadgroup_rwsem for writing, which waits for an RCU grace period
    // (about 15 ms here) unless another move happened a moment before. Keep it off a request's path.
    void add_process(pid_t pid) const;
    // v1: each hierarchy's `tasks` file, opened for writing, for a child of this process to move itself
    // into this cgroup (contain.cpp, join_cgroup), which costs no RCU grace period; empty for v2.
    std::vector<UniqueFd> open_task_files() const;

    // For a cgroup reused by many executions: writes the memory (no swap), task and CPU-quota limits of
    // `limits` where they differ from the ones it has, so executions asking for the same limits write nothing.
    // Throws sandbox_error (unsupported) for a CPU cap on a host without the cpu controller.
    void apply_limits(const Limits& limits);
    // Starts one execution in a reused cgroup: resets the peak memory where the kernel allows it (v1) and
    // returns the counters as they are, for usage_since.
    CgroupUsage begin_execution();

    CgroupUsage usage() const;
    // Kept apart from usage(), which an execution's end reads on a hot path.
    CgroupMemoryNow memory_now() const;
    // Usage since `start` (begin_execution's result; a default CgroupUsage for a cgroup made for one
    // execution): CPU time and the counters as differences; peak memory only where it was reset.
    CgroupUsage usage_since(const CgroupUsage& start) const;
    CgroupSupport::Version version() const noexcept { return version_; }

private:
    SandboxCgroup() = default;
    void remove() noexcept;

    CgroupSupport::Version version_ = CgroupSupport::Version::none;
    // v2: one, no controllers named; v1: one per hierarchy, with the controllers it holds ("memory", "pids",
    // "cpuacct", "cpu"; "cpu,cpuacct" is often one hierarchy), known from creation so that an execution's reads
    // and writes go straight to that controller's files.
    struct Directory {
        std::string path;
        std::vector<std::string> controllers;
        bool has(std::string_view controller) const noexcept;
    };
    std::vector<Directory> directories_;
    int directory_fd_ = -1;
    // As written, so apply_limits writes only changes; a new cgroup has none ("max").
    std::uint64_t memory_limit_ = UINT64_MAX;
    std::uint64_t task_limit_ = UINT64_MAX;
    std::uint64_t cpu_quota_us_ = UINT64_MAX;  // per kCpuPeriodMicroseconds; UINT64_MAX: no quota
    bool peak_is_per_execution_ = true;  // false once begin_execution could not reset it
    // A reused cgroup (begin_execution was called) keeps open the files each execution reads and writes:
    // opening one is a path walk through the cgroup filesystem, and an execution's start and end touch
    // about ten. A cgroup of one execution or of a session opens them per read, so they hold no fds.
    std::string read_file(const std::string& path) const;
    bool write_file(const std::string& path, const std::string& text) const;
    int kept_file(const std::string& path, int flags) const;  // under files_mutex_
    std::atomic<bool> keep_files_open_{false};
    mutable std::mutex files_mutex_;
    mutable std::map<std::pair<std::string, bool>, int> kept_files_;  // (path, opened for writing) -> fd
};

}  // namespace e2beval::local
