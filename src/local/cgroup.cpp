// cgroup discovery (from /proc/self/cgroup and /proc/self/mountinfo), per-sandbox creation with limits,
// usage read-back and removal. Only ever below the cgroup this process runs in.
#include "local/cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "e2beval/core/error.hpp"
#include "core/read_file.hpp"

namespace e2beval::local {

namespace {

struct CgroupMount {
    std::string mount_point;
    std::string root;  // the hierarchy path mounted there (not always "/" in containers)
    std::vector<std::string> controllers;
    bool v2 = false;
};

// From offset 0 to the end. A cgroup file read again from offset 0 shows its current value.
std::string read_from_start(int fd) {
    std::string text;
    char chunk[4096];
    for (;;) {
        const ssize_t got = ::pread(fd, chunk, sizeof chunk, static_cast<off_t>(text.size()));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return text;
        text.append(chunk, static_cast<std::size_t>(got));
    }
}

bool write_text(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return ok;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream stream(text);
    while (std::getline(stream, part, separator)) parts.push_back(part);
    return parts;
}

bool contains_word(const std::string& text, const std::string& word) {
    std::istringstream stream(text);
    for (std::string token; stream >> token;)
        if (token == word) return true;
    return false;
}

std::vector<CgroupMount> cgroup_mounts() {
    std::vector<CgroupMount> mounts;
    std::istringstream lines(read_text("/proc/self/mountinfo"));
    for (std::string line; std::getline(lines, line);) {
        const auto dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        const auto before = split(line.substr(0, dash), ' ');
        const auto after = split(line.substr(dash + 3), ' ');
        if (before.size() < 5 || after.size() < 3) continue;
        CgroupMount mount;
        mount.root = before[3];
        mount.mount_point = before[4];
        if (after[0] == "cgroup2") {
            mount.v2 = true;
        } else if (after[0] == "cgroup") {
            for (const auto& option : split(after[2], ','))
                if (option == "memory" || option == "pids" || option == "cpuacct" || option == "cpu")
                    mount.controllers.push_back(option);
            if (mount.controllers.empty()) continue;
        } else {
            continue;
        }
        mounts.push_back(mount);
    }
    return mounts;
}

// This process's cgroup path per hierarchy: "" for v2, controller name for v1.
std::map<std::string, std::string> own_cgroups() {
    std::map<std::string, std::string> paths;
    std::istringstream lines(read_text("/proc/self/cgroup"));
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const auto controllers = line.substr(first + 1, second - first - 1);
        const auto path = line.substr(second + 1);
        if (controllers.empty()) paths[""] = path;
        for (const auto& controller : split(controllers, ',')) paths[controller] = path;
    }
    return paths;
}

std::optional<std::string> directory_of(const CgroupMount& mount, const std::string& own_path) {
    if (own_path.rfind(mount.root, 0) != 0) return std::nullopt;  // our cgroup is outside this mount's view
    auto relative = own_path.substr(mount.root == "/" ? 0 : mount.root.size());
    auto directory = mount.mount_point + (relative == "/" ? "" : relative);
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return std::nullopt;
    return directory;
}

// Gives the child cgroups of `directory` the controllers in `wanted` ("memory", "pids", maybe "cpu").
bool enable_v2_controllers(const std::string& directory, const std::vector<std::string>& wanted,
                           std::vector<std::string>& notes) {
    const auto enabled = read_text(directory + "/cgroup.subtree_control");
    std::string request, names;
    for (const auto& controller : wanted) {
        if (contains_word(enabled, controller)) continue;
        request += (request.empty() ? "+" : " +") + controller;
        names += (names.empty() ? "" : " and ") + controller;
    }
    if (request.empty()) return true;
    if (write_text(directory + "/cgroup.subtree_control", request)) return true;
    if (errno != EBUSY) {
        notes.push_back("cannot enable " + names + " for child cgroups of " + directory + ": " + std::strerror(errno));
        return false;
    }
    // "No internal processes": a cgroup with processes cannot give controllers to children. When we are
    // its only process, move into a leaf below it (still below our own cgroup) and try again.
    const auto procs = split(read_text(directory + "/cgroup.procs"), '\n');
    std::size_t count = 0;
    for (const auto& pid : procs) count += pid.empty() ? 0 : 1;
    if (count != 1 || procs.front() != std::to_string(::getpid())) {
        notes.push_back(directory + " holds other processes, so its children cannot get " + names + " limits");
        return false;
    }
    const auto leaf = directory + "/e2beval-supervisor";
    if ((::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) || !write_text(leaf + "/cgroup.procs", "0") ||
        !write_text(directory + "/cgroup.subtree_control", request)) {
        notes.push_back("cannot move e2beval into a leaf of " + directory + " to delegate " + names + ": " + std::strerror(errno));
        return false;
    }
    notes.push_back("moved e2beval into " + leaf + " so that " + directory + " can delegate " + names);
    return true;
}

CgroupSupport detect() {
    CgroupSupport support;
    const auto mounts = cgroup_mounts();
    const auto own = own_cgroups();
    // v2 first: what current distributions use, and the only version with reliable peak memory and kill.
    for (const auto& mount : mounts) {
        if (!mount.v2 || !own.count("")) continue;
        const auto directory = directory_of(mount, own.at(""));
        if (!directory) continue;
        const auto available = read_text(*directory + "/cgroup.controllers");
        if (!contains_word(available, "memory") || !contains_word(available, "pids")) {
            support.notes.push_back("cgroup v2 at " + *directory + " offers no memory/pids controllers (" +
                                    (available.empty() ? std::string("none") : available.substr(0, available.find('\n'))) + ")");
            continue;
        }
        if (::access(directory->c_str(), W_OK) != 0) {
            support.notes.push_back("cgroup v2 at " + *directory + " is not writable by this user (not delegated)");
            continue;
        }
        if (!enable_v2_controllers(*directory, {"memory", "pids"}, support.notes)) continue;
        support.version = CgroupSupport::Version::v2;
        support.v2_parent = *directory;
        // The CPU quota is optional (only a request with Limits::cpus needs it), so its absence is a note.
        if (!contains_word(available, "cpu"))
            support.notes.push_back("cgroup v2 at " + *directory + " offers no cpu controller, so a CPU cap cannot be set");
        else
            support.cpu_quota = enable_v2_controllers(*directory, {"cpu"}, support.notes);
        return support;
    }
    // v1 controllers, each in its own hierarchy.
    for (const std::string controller : {"memory", "pids", "cpuacct", "cpu"}) {
        for (const auto& mount : mounts) {
            if (mount.v2 || std::find(mount.controllers.begin(), mount.controllers.end(), controller) == mount.controllers.end())
                continue;
            if (!own.count(controller)) continue;
            const auto directory = directory_of(mount, own.at(controller));
            if (!directory) continue;
            if (::access(directory->c_str(), W_OK) != 0) {
                support.notes.push_back("cgroup v1 " + controller + " at " + *directory + " is not writable");
                continue;
            }
            support.v1_parents[controller] = *directory;
        }
    }
    if (support.v1_parents.count("memory") && support.v1_parents.count("pids")) {
        support.version = CgroupSupport::Version::v1;
        const auto cpu = support.v1_parents.find("cpu");
        // CFS bandwidth control is a kernel option (CONFIG_CFS_BANDWIDTH): without it there is no quota file.
        support.cpu_quota = cpu != support.v1_parents.end() && ::access((cpu->second + "/cpu.cfs_quota_us").c_str(), W_OK) == 0;
        if (!support.cpu_quota) support.notes.push_back("no writable cgroup v1 cpu hierarchy with CFS quotas, so a CPU cap cannot be set");
        return support;
    }
    support.v1_parents.clear();
    support.notes.push_back("no writable cgroup with memory and pids controllers below this process's cgroup");
    support.fix = ::geteuid() == 0
                      ? "mount the cgroup controllers (memory, pids) or run e2beval in a cgroup that has them"
                      : "run e2beval in a delegated cgroup: systemd-run --user --scope -p Delegate=yes -- e2beval ...";
    return support;
}

std::uint64_t parse_number(const std::string& text, bool& found) {
    found = !text.empty();
    return found ? std::strtoull(text.c_str(), nullptr, 10) : 0;
}

// "key value" lines (memory.events, pids.events, memory.oom_control, cpu.stat).
std::uint64_t parse_key(std::string_view text, std::string_view key) {
    while (!text.empty()) {
        const auto end = std::min(text.find('\n'), text.size());
        const auto line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ')
            return std::strtoull(std::string(line.substr(key.size() + 1)).c_str(), nullptr, 10);
    }
    return 0;
}

}  // namespace

std::string_view to_string(CgroupSupport::Version version) noexcept {
    switch (version) {
        case CgroupSupport::Version::v1: return "v1";
        case CgroupSupport::Version::v2: return "v2";
        case CgroupSupport::Version::none: return "none";
    }
    return "none";
}

const CgroupSupport& cgroup_support() {
    static const CgroupSupport support = detect();
    return support;
}

namespace {

// The start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), 0 when it does
// not exist. Together with the pid it names one process for good.
unsigned long long process_start_time(pid_t pid) {
    const auto stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    const auto end_of_name = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (end_of_name == std::string::npos) return 0;
    std::istringstream fields(stat.substr(end_of_name + 2));
    std::string field;
    for (int index = 3; index <= 22 && fields >> field; ++index)
        if (index == 22) return std::strtoull(field.c_str(), nullptr, 10);
    return 0;
}

// "e2beval-<pid>-<start time>-" for this process. Worked out again in a forked child, whose sandboxes are
// its own: named after its parent, they would be its parent's to the parent's reaper and to the sweep.
// Per thread, so no lock is held across a fork.
const std::string& own_cgroup_prefix() {
    thread_local pid_t named_for = 0;
    thread_local std::string prefix;
    const pid_t pid = ::getpid();
    if (named_for != pid) {
        prefix = "e2beval-" + std::to_string(pid) + "-" + std::to_string(process_start_time(pid)) + "-";
        named_for = pid;
    }
    return prefix;
}

// The owner of a sandbox cgroup named e2beval-<pid>-<start>-<n> (or e2beval-<pid>-<n>), with whether it
// is gone; nullopt for names that are not sandbox cgroups.
std::optional<std::pair<pid_t, bool>> owner_of(const std::string& name) {
    if (name.rfind("e2beval-", 0) != 0 || name == "e2beval-supervisor") return std::nullopt;
    const auto parts = split(name.substr(8), '-');
    if (parts.size() != 2 && parts.size() != 3) return std::nullopt;
    for (const auto& part : parts)
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const auto pid = static_cast<pid_t>(std::atol(parts[0].c_str()));
    if (pid <= 0) return std::nullopt;
    const auto started = process_start_time(pid);
    const bool gone = started == 0 || (parts.size() == 3 && std::to_string(started) != parts[1]);
    return std::pair{pid, gone};
}

// Removes `directory` and any (empty) cgroups below it. False while a process is still in one (EBUSY), with
// `why` set for any other failure.
bool remove_cgroup_tree(const std::string& directory, std::string& why) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
        if (entry.is_directory(ec) && !remove_cgroup_tree(entry.path().string(), why)) return false;
    if (::rmdir(directory.c_str()) == 0 || errno == ENOENT) return true;
    why = errno == EBUSY ? "it still holds processes" : describe_syscall_failure("rmdir(" + directory + ")", errno);
    return false;
}

// Where sandbox cgroups are made: the v2 parent, or one directory per v1 hierarchy.
std::vector<std::string> sandbox_cgroup_parents(const CgroupSupport& support) {
    std::vector<std::string> parents;
    if (support.version == CgroupSupport::Version::v2) parents.push_back(support.v2_parent);
    for (const auto& [controller, parent] : support.v1_parents)  // controllers mounted together share one parent
        if (std::find(parents.begin(), parents.end(), parent) == parents.end()) parents.push_back(parent);
    return parents;
}

CgroupSweep sweep(const CgroupSupport& support, std::chrono::milliseconds wait_for_dying) {
    CgroupSweep result;
    result.parents = sandbox_cgroup_parents(support);
    for (const auto& parent : result.parents) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
            const auto owner = owner_of(entry.path().filename().string());
            if (owner && owner->second && entry.is_directory(ec)) result.stale.push_back({entry.path().string(), owner->first});
        }
    }
    // A sandbox whose owner was just killed dies a moment later (PR_SET_PDEATHSIG, then its pid namespace):
    // its processes may get `wait_for_dying` to leave. Processes that stay are left alone, and so is their
    // cgroup.
    std::vector<std::string> pending;
    for (const auto& stale : result.stale) pending.push_back(stale.path);
    const auto give_up = std::chrono::steady_clock::now() + wait_for_dying;
    std::map<std::string, std::string> why;
    while (!pending.empty()) {
        std::erase_if(pending, [&](const std::string& path) {
            if (!remove_cgroup_tree(path, why[path])) return false;
            result.removed.push_back(path);
            return true;
        });
        if (pending.empty() || std::chrono::steady_clock::now() >= give_up) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (const auto& path : pending) result.kept.emplace_back(path, why[path]);
    return result;
}

}  // namespace

const CgroupSweep& sweep_stale_cgroups(std::chrono::milliseconds wait_for_dying) {
    static const CgroupSweep result = sweep(cgroup_support(), wait_for_dying);
    return result;
}

CgroupReaperState cgroup_reaper() {
    const auto& support = cgroup_support();
    if (support.version == CgroupSupport::Version::none) return {0, "this host gives e2beval no cgroups"};
    return ensure_cgroup_reaper([&support] {
        return CgroupReaperPlan{own_cgroup_prefix(), support.version == CgroupSupport::Version::v2,
                                sandbox_cgroup_parents(support)};
    });
}

std::optional<SandboxCgroup> SandboxCgroup::create(const Limits& limits) {
    const auto& support = cgroup_support();
    if (support.version == CgroupSupport::Version::none) return std::nullopt;
    sweep_stale_cgroups(std::chrono::milliseconds(0));  // what is still dying is for the next start
    cgroup_reaper();  // before the first cgroup of this process exists; without one, the sweep is what is left
    static std::atomic<unsigned> counter{0};
    const auto name = own_cgroup_prefix() + std::to_string(counter++);
    SandboxCgroup cgroup;
    cgroup.version_ = support.version;
    const auto make = [&](const std::string& parent, std::vector<std::string> controllers) {
        const auto directory = parent + "/" + name;
        if (::mkdir(directory.c_str(), 0755) != 0)
            throw sandbox_error(describe_syscall_failure("mkdir(" + directory + ")", errno));
        cgroup.directories_.push_back({directory, std::move(controllers)});
        return directory;
    };
    if (support.version == CgroupSupport::Version::v2) {
        const auto directory = make(support.v2_parent, {});
        write_text(directory + "/memory.swap.max", "0");  // absent without swap accounting: fine
        cgroup.directory_fd_ = ::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cgroup.directory_fd_ < 0) throw sandbox_error(describe_syscall_failure("open(" + directory + ", O_PATH)", errno));
    } else {
        // One directory per hierarchy: controllers mounted together ("cpu,cpuacct") share it.
        std::map<std::string, std::vector<std::string>> hierarchies;
        for (const auto& [controller, parent] : support.v1_parents) hierarchies[parent].push_back(controller);
        for (auto& [parent, controllers] : hierarchies) {
            const bool memory = std::find(controllers.begin(), controllers.end(), "memory") != controllers.end();
            const auto directory = make(parent, std::move(controllers));
            if (memory) write_text(directory + "/memory.swappiness", "0");
        }
    }
    cgroup.apply_limits(limits);
    return cgroup;
}

namespace {

void set_limit(const std::string& file, const std::string& value) {
    if (!write_text(file, value)) throw sandbox_error(describe_syscall_failure("write(" + file + ", " + value + ")", errno));
}

void set_limit(const std::string& file, std::uint64_t value) { set_limit(file, std::to_string(value)); }

// The CFS period the quota is a share of: the kernel's default, so only the quota is ever written.
constexpr std::uint64_t kCpuPeriodMicroseconds = 100'000;
// The kernel refuses a quota below 1 ms per period.
constexpr std::uint64_t kCpuQuotaFloorMicroseconds = 1'000;

std::uint64_t cpu_quota_microseconds(double cpus) {
    if (cpus <= 0) return UINT64_MAX;
    return std::max(kCpuQuotaFloorMicroseconds, static_cast<std::uint64_t>(std::llround(cpus * kCpuPeriodMicroseconds)));
}

}  // namespace

bool SandboxCgroup::Directory::has(std::string_view controller) const noexcept {
    return std::find(controllers.begin(), controllers.end(), controller) != controllers.end();
}

void SandboxCgroup::apply_limits(const Limits& limits) {
    const std::uint64_t memory = limits.memory_bytes;
    const std::uint64_t tasks = limits.max_processes + 1;  // + the sandbox's init
    const std::uint64_t cpu_quota = cpu_quota_microseconds(limits.cpus);
    if (cpu_quota != cpu_quota_us_ && !cgroup_support().cpu_quota)
        throw sandbox_error("a CPU cap (limits.cpus) needs the cgroup cpu controller, which this host does not give "
                            "e2beval; see `e2beval doctor`, or leave cpus unset",
                            errc::unsupported);
    const auto quota_text = cpu_quota == UINT64_MAX ? std::string("max") : std::to_string(cpu_quota);
    for (const auto& directory_info : directories_) {
        const auto& directory = directory_info.path;
        if (version_ == CgroupSupport::Version::v2) {
            if (memory != memory_limit_) set_limit(directory + "/memory.max", memory);
            if (tasks != task_limit_) set_limit(directory + "/pids.max", tasks);
            if (cpu_quota != cpu_quota_us_)
                set_limit(directory + "/cpu.max", quota_text + " " + std::to_string(kCpuPeriodMicroseconds));
            continue;
        }
        if (cpu_quota != cpu_quota_us_ && directory_info.has("cpu"))
            set_limit(directory + "/cpu.cfs_quota_us", cpu_quota == UINT64_MAX ? std::string("-1") : quota_text);
        if (memory != memory_limit_ && directory_info.has("memory")) {
            // v1 keeps limit_in_bytes <= memsw.limit_in_bytes (memory + swap) at every step: raise the
            // second first, lower the first first. memsw is absent without swap accounting: fine.
            const auto memsw = directory + "/memory.memsw.limit_in_bytes";
            if (memory > memory_limit_) write_text(memsw, std::to_string(memory));
            set_limit(directory + "/memory.limit_in_bytes", memory);
            if (memory < memory_limit_) write_text(memsw, std::to_string(memory));
        }
        if (tasks != task_limit_ && directory_info.has("pids")) set_limit(directory + "/pids.max", tasks);
    }
    memory_limit_ = memory;
    task_limit_ = tasks;
    cpu_quota_us_ = cpu_quota;
}

CgroupUsage SandboxCgroup::begin_execution() {
    // v1 resets the peak to the current usage when 0 is written to it. v2's memory.peak resets only for
    // the file descriptor that wrote it (Linux 6.12+), so a reused v2 cgroup reports no peak of its own.
    keep_files_open_ = true;
    peak_is_per_execution_ = false;
    for (const auto& directory : directories_)
        if (directory.has("memory")) peak_is_per_execution_ = write_file(directory.path + "/memory.max_usage_in_bytes", "0");
    return usage();
}

int SandboxCgroup::kept_file(const std::string& path, int flags) const {
    const std::pair<std::string, bool> key{path, (flags & O_ACCMODE) == O_WRONLY};
    if (auto found = kept_files_.find(key); found != kept_files_.end()) return found->second;
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd >= 0) kept_files_.emplace(key, fd);  // a file this kernel lacks is asked for again: rare, harmless
    return fd;
}

std::string SandboxCgroup::read_file(const std::string& path) const {
    if (!keep_files_open_) return read_text(path);
    std::lock_guard lock(files_mutex_);
    const int fd = kept_file(path, O_RDONLY);
    return fd < 0 ? std::string() : read_from_start(fd);
}

bool SandboxCgroup::write_file(const std::string& path, const std::string& text) const {
    if (!keep_files_open_) return write_text(path, text);
    std::lock_guard lock(files_mutex_);
    const int fd = kept_file(path, O_WRONLY);
    return fd >= 0 && ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

SandboxCgroup::SandboxCgroup(SandboxCgroup&& other) noexcept
    : version_(other.version_),
      directories_(std::move(other.directories_)),
      directory_fd_(std::exchange(other.directory_fd_, -1)),
      memory_limit_(other.memory_limit_),
      task_limit_(other.task_limit_),
      cpu_quota_us_(other.cpu_quota_us_),
      peak_is_per_execution_(other.peak_is_per_execution_),
      keep_files_open_(other.keep_files_open_.load()) {
    std::lock_guard lock(other.files_mutex_);
    kept_files_ = std::exchange(other.kept_files_, {});
    other.directories_.clear();
}

SandboxCgroup::~SandboxCgroup() { remove(); }

void SandboxCgroup::add_process(pid_t pid) const {
    for (const auto& [directory, controllers] : directories_)
        if (!write_file(directory + "/cgroup.procs", std::to_string(pid)))
            throw sandbox_error(describe_syscall_failure("write(" + directory + "/cgroup.procs)", errno));
}

std::vector<UniqueFd> SandboxCgroup::open_task_files() const {
    std::vector<UniqueFd> files;
    if (version_ != CgroupSupport::Version::v1) return files;
    for (const auto& [directory, controllers] : directories_) {
        const auto path = directory + "/tasks";
        UniqueFd file(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
        if (!file) throw sandbox_error(describe_syscall_failure("open(" + path + ")", errno));
        files.push_back(std::move(file));
    }
    return files;
}

CgroupUsage SandboxCgroup::usage() const {
    CgroupUsage usage;
    bool found = false;
    for (const auto& directory_info : directories_) {
        const auto& directory = directory_info.path;
        if (version_ == CgroupSupport::Version::v2) {
            const auto peak = parse_number(read_file(directory + "/memory.peak"), found);
            if (found) usage.peak_memory_bytes = peak;
            usage.cpu_time = std::chrono::microseconds(parse_key(read_file(directory + "/cpu.stat"), "usage_usec"));
            usage.oom_kills = parse_key(read_file(directory + "/memory.events"), "oom_kill");
            usage.pids_limit_hits = parse_key(read_file(directory + "/pids.events"), "max");
            continue;
        }
        if (directory_info.has("memory")) {
            usage.peak_memory_bytes = parse_number(read_file(directory + "/memory.max_usage_in_bytes"), found);
            const auto oom_control = read_file(directory + "/memory.oom_control");
            usage.oom_kills = parse_key(oom_control, "oom_kill");
            if (usage.oom_kills == 0 && parse_key(oom_control, "under_oom") > 0 &&
                parse_number(read_file(directory + "/memory.failcnt"), found) > 0)
                usage.oom_kills = 1;
        }
        if (directory_info.has("pids")) usage.pids_limit_hits = parse_key(read_file(directory + "/pids.events"), "max");
        if (directory_info.has("cpuacct")) {
            const auto nanoseconds = parse_number(read_file(directory + "/cpuacct.usage"), found);
            if (found) usage.cpu_time = std::chrono::nanoseconds(nanoseconds);
        }
    }
    return usage;
}

CgroupMemoryNow SandboxCgroup::memory_now() const {
    CgroupMemoryNow memory;
    bool found = false;
    for (const auto& [directory, controllers] : directories_) {
        const bool v2 = version_ == CgroupSupport::Version::v2;
        if (!v2 && std::find(controllers.begin(), controllers.end(), "memory") == controllers.end()) continue;
        const auto used = parse_number(read_text(directory + (v2 ? "/memory.current" : "/memory.usage_in_bytes")), found);
        if (!found) continue;
        memory.used_bytes = used;
        memory.cache_bytes = parse_key(read_text(directory + "/memory.stat"), v2 ? "file" : "cache");
    }
    return memory;
}

CgroupUsage SandboxCgroup::usage_since(const CgroupUsage& start) const {
    auto usage = this->usage();
    if (usage.cpu_time && start.cpu_time) usage.cpu_time = *usage.cpu_time - *start.cpu_time;
    usage.oom_kills -= std::min(usage.oom_kills, start.oom_kills);
    usage.pids_limit_hits -= std::min(usage.pids_limit_hits, start.pids_limit_hits);
    if (!peak_is_per_execution_) usage.peak_memory_bytes.reset();
    return usage;
}

void SandboxCgroup::remove() noexcept {
    if (directory_fd_ >= 0) ::close(std::exchange(directory_fd_, -1));
    {
        std::lock_guard lock(files_mutex_);
        for (const auto& [path, fd] : kept_files_) ::close(fd);
        kept_files_.clear();
    }
    for (const auto& [directory, controllers] : directories_) {
        // The pid namespace is gone by now, so this is normally empty; anything left is killed first.
        if (!write_text(directory + "/cgroup.kill", "1")) {
            std::istringstream pids(read_text(directory + "/cgroup.procs"));
            for (pid_t pid; pids >> pid;) ::kill(pid, SIGKILL);
        }
        // Dying tasks leave the cgroup asynchronously: retry briefly.
        for (int attempt = 0; attempt < 200; ++attempt) {
            if (::rmdir(directory.c_str()) == 0 || errno == ENOENT) break;
            if (errno != EBUSY) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    directories_.clear();
}

}  // namespace e2beval::local
