// Session usage from the host: the cgroup's counters and a statvfs of the sandbox's workspace.
#include "local/session_usage.hpp"

#include <sched.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>

#include "local/cgroup.hpp"

namespace e2beval::local {

namespace {

// The CPUs the sandbox's processes may run on: its init's affinity (inherited by all of them), else the host's.
unsigned cpu_count_of(pid_t pid) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (pid > 0 && ::sched_getaffinity(pid, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

std::uint64_t host_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

}  // namespace

SessionUsage measure_session_usage(const InteractiveSandbox& sandbox, const Limits& limits) {
    SessionUsage usage;
    usage.measured_at = std::chrono::system_clock::now();
    usage.measured_at_steady = std::chrono::steady_clock::now();
    usage.cpu_count = cpu_count_of(sandbox.pid());
    // A CPU quota of 0.5 or 1.5 CPUs lets it use up to 1 or 2 CPUs' worth: what the quota allows, rounded up.
    if (limits.cpus > 0) usage.cpu_count = std::min(usage.cpu_count, static_cast<unsigned>(std::ceil(limits.cpus)));
    usage.memory_total_bytes = limits.memory_bytes > 0 ? limits.memory_bytes : host_memory_bytes();
    if (sandbox.cgroup) {
        usage.cpu_time = sandbox.cgroup->usage().cpu_time;
        const auto memory = sandbox.cgroup->memory_now();
        usage.memory_used_bytes = memory.used_bytes;
        usage.memory_cache_bytes = memory.cache_bytes;
    }
    // The workspace is a tmpfs in the sandbox's own mount namespace, so the host reaches it through the root
    // of the sandbox's init (the host owns the sandbox's user namespace, which grants that access). Its size
    // is the session's workspace limit; /tmp and /home/user are two directories of it, so either gives both.
    struct statvfs workspace {};
    if (sandbox.pid() > 0 && ::statvfs(("/proc/" + std::to_string(sandbox.pid()) + "/root/tmp").c_str(), &workspace) == 0) {
        const std::uint64_t block = workspace.f_frsize ? workspace.f_frsize : workspace.f_bsize;
        usage.disk_total_bytes = workspace.f_blocks * block;
        usage.disk_used_bytes = (workspace.f_blocks - workspace.f_bfree) * block;
    }
    return usage;
}

}  // namespace e2beval::local
