// setrlimit planning and application for the sandboxed program.
#include "local/rlimit.hpp"

#include <cerrno>

namespace e2beval::local {

std::vector<RlimitSetting> plan_rlimits(const Limits& limits, bool cgroup) {
    using std::chrono::duration_cast;
    using std::chrono::seconds;
    // RLIMIT_CPU counts whole seconds: round up, and leave one more second before SIGKILL so the
    // program first gets SIGXCPU (reported as cpu_limit).
    const auto cpu_ms = static_cast<rlim_t>(limits.cpu_time.count());
    const rlim_t cpu_seconds = cpu_ms == 0 ? 1 : (cpu_ms + 999) / 1000;
    // Address space counts reservations that never become memory (thread stacks, allocator arenas):
    // when a cgroup limits real memory, allow 4x for them; otherwise it is the only memory limit.
    const rlim_t address_space = cgroup ? 4 * limits.memory_bytes : limits.memory_bytes;
    const rlim_t processes = (cgroup ? 2 * rlim_t{limits.max_processes} : rlim_t{limits.max_processes}) + 1;
    const auto setting = [](int resource, rlim_t soft, rlim_t hard) { return RlimitSetting{resource, soft, hard, rlimit_name(resource)}; };
    return {
        setting(RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
        setting(RLIMIT_AS, address_space, address_space),
        setting(RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
        // +1: the sandbox's init process runs as the same id and counts too. With a pids cgroup the
        // cgroup enforces (and counts the hits); the rlimit is only a backstop then.
        setting(RLIMIT_NPROC, processes, processes),
        setting(RLIMIT_NOFILE, limits.open_files, limits.open_files),
        setting(RLIMIT_CORE, 0, 0),
        setting(RLIMIT_MEMLOCK, 0, 0),
    };
}

const char* rlimit_name(int resource) noexcept {
    switch (resource) {
        case RLIMIT_CPU: return "RLIMIT_CPU";
        case RLIMIT_AS: return "RLIMIT_AS";
        case RLIMIT_FSIZE: return "RLIMIT_FSIZE";
        case RLIMIT_NPROC: return "RLIMIT_NPROC";
        case RLIMIT_NOFILE: return "RLIMIT_NOFILE";
        case RLIMIT_CORE: return "RLIMIT_CORE";
        case RLIMIT_MEMLOCK: return "RLIMIT_MEMLOCK";
        case RLIMIT_DATA: return "RLIMIT_DATA";
        default: return "setrlimit";
    }
}

StepError apply_rlimits(const std::vector<RlimitSetting>& settings) noexcept {
    for (const auto& setting : settings) {
        const struct rlimit value {setting.soft, setting.hard};
        if (::setrlimit(setting.resource, &value) != 0) return {"setrlimit", setting.name, errno};
    }
    return {};
}

}  // namespace e2beval::local
