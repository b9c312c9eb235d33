// The cgroup reaper: a small program that outlives one e2beval process (its owner) and removes the owner's
// sandbox cgroups as soon as the owner has ended, however it ended (exit, _exit, a crash, SIGKILL). Built on
// its own and embedded into the library (cmake/embed_binary.cmake); cgroup_reaper.cpp starts it.
//
//   e2beval-cgroup-reaper <prefix> <v1|v2> <parent directory>...
//   fd 3: a pidfd of the owner; fd 1: where the reaper's pid is written once it runs on its own.
//
// It removes only directories named <prefix><n> directly below the parents (the owner's sandbox cgroups,
// e2beval-<owner pid>-<owner start time>-<n>: no other process's), and only once the owner has ended. The
// sandboxes' processes die with their owner (each sandbox init has PR_SET_PDEATHSIG, and its pid namespace
// goes with it), and a cgroup cannot be removed while a process is still in it, so the reaper waits for them;
// one still there after a grace period is killed. It ends when the cgroups are gone, or after a deadline
// (what is left then is for the next e2beval start's sweep).
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>

namespace {

constexpr int kOwnerPidfd = 3;
constexpr int kOwnProgramFd = 4;  // the memfd this program was executed from

// How long the sandboxes get to die on their own (PDEATHSIG), then to leave their cgroups once killed.
constexpr long kGraceBeforeKillMilliseconds = 300;
constexpr long kGiveUpMilliseconds = 10'000;

long milliseconds_now() {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000 + now.tv_nsec / 1'000'000;
}

void sleep_milliseconds(long milliseconds) {
    timespec wait{milliseconds / 1000, (milliseconds % 1000) * 1'000'000};
    while (::nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
}

// A fixed-size path: the reaper allocates nothing it could run out of after its owner is gone.
struct Path {
    char text[4096];
    bool set(const char* directory, const char* name) {
        const int length = std::snprintf(text, sizeof text, "%s/%s", directory, name);
        return length > 0 && static_cast<size_t>(length) < sizeof text;
    }
};

bool is_sandbox_cgroup_of_owner(const char* name, const char* prefix) {
    const size_t prefix_length = std::strlen(prefix);
    if (std::strncmp(name, prefix, prefix_length) != 0 || name[prefix_length] == '\0') return false;
    for (const char* c = name + prefix_length; *c; ++c)
        if (*c < '0' || *c > '9') return false;
    return true;
}

bool read_file(const char* path, char* buffer, size_t size) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t used = 0;
    for (ssize_t got; used + 1 < size && (got = ::read(fd, buffer + used, size - 1 - used)) != 0;) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        used += static_cast<size_t>(got);
    }
    buffer[used] = '\0';
    ::close(fd);
    return true;
}

bool lists_pid(const char* procs, long pid) {
    for (const char* at = procs; *at;) {
        char* end = nullptr;
        const long listed = std::strtol(at, &end, 10);
        if (end == at) break;
        if (listed == pid) return true;
        at = end;
        while (*at == '\n') ++at;
    }
    return false;
}

// Kills what is still in the cgroup `directory` (not below it). v2 has cgroup.kill (Linux 5.14+). Otherwise
// each pid of cgroup.procs is pinned with a pidfd and killed only if it is still listed there afterwards: a
// pid that was freed and reused by another process between the two reads is never signalled.
void kill_members(const char* directory, bool v2) {
    Path file;
    if (v2 && file.set(directory, "cgroup.kill")) {
        const int fd = ::open(file.text, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            const bool killed = ::write(fd, "1", 1) == 1;
            ::close(fd);
            if (killed) return;
        }
    }
    if (!file.set(directory, "cgroup.procs")) return;
    static char procs[65536], again[65536];
    if (!read_file(file.text, procs, sizeof procs)) return;
    for (const char* at = procs; *at;) {
        char* end = nullptr;
        const long pid = std::strtol(at, &end, 10);
        if (end == at) break;
        at = end;
        while (*at == '\n') ++at;
        const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
        if (pidfd < 0) continue;
        if (read_file(file.text, again, sizeof again) && lists_pid(again, pid))
            ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
        ::close(pidfd);
    }
}

// Removes `directory` and the cgroups below it, deepest first; false while one still holds a process.
bool remove_tree(const char* directory, bool kill, bool v2, int depth = 0) {
    if (kill) kill_members(directory, v2);
    if (DIR* listing = depth < 16 ? ::opendir(directory) : nullptr) {
        while (const dirent* entry = ::readdir(listing)) {
            if (entry->d_type != DT_DIR || std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
            Path child;
            if (child.set(directory, entry->d_name)) remove_tree(child.text, kill, v2, depth + 1);
        }
        ::closedir(listing);
    }
    return ::rmdir(directory) == 0 || errno == ENOENT;
}

// One pass over the parents: removes every sandbox cgroup of the owner it can. Returns how many are left.
int remove_owner_cgroups(const char* prefix, bool v2, char** parents, int parent_count, bool kill) {
    int left = 0;
    for (int index = 0; index < parent_count; ++index) {
        DIR* listing = ::opendir(parents[index]);
        if (!listing) continue;
        while (const dirent* entry = ::readdir(listing)) {
            if (entry->d_type != DT_DIR || !is_sandbox_cgroup_of_owner(entry->d_name, prefix)) continue;
            Path cgroup;
            if (cgroup.set(parents[index], entry->d_name) && !remove_tree(cgroup.text, kill, v2)) ++left;
        }
        ::closedir(listing);
    }
    return left;
}

// The pid the pidfd on fd 3 refers to (its fdinfo), 0 when unknown.
long pid_of_owner_pidfd() {
    char info[1024];
    if (!read_file("/proc/self/fdinfo/3", info, sizeof info)) return 0;
    const char* line = std::strstr(info, "Pid:");
    return line ? std::strtol(line + 4, nullptr, 10) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) return 2;
    const char* prefix = argv[1];  // "e2beval-<pid>-<start>-"
    const bool v2 = std::strcmp(argv[2], "v2") == 0;
    ::close(kOwnProgramFd);
    ::syscall(SYS_close_range, kOwnProgramFd + 1, ~0U, 0);  // anything else the owner let through

    // The pidfd must be the owner the prefix names: the cgroups removed are that process's, no other's.
    char expected[32];
    std::snprintf(expected, sizeof expected, "e2beval-%ld-", pid_of_owner_pidfd());
    if (std::strncmp(prefix, expected, std::strlen(expected)) != 0) return 3;

    // Detach: the owner reaps this first process at once, and the reaper goes on as nobody's child of the
    // owner (reparented to init or the nearest subreaper), in its own session (started with setsid), so a
    // signal to the owner's process group or terminal does not reach it.
    const pid_t reaper = ::fork();
    if (reaper < 0) return 4;
    if (reaper > 0) {
        char text[32];
        const int length = std::snprintf(text, sizeof text, "%d\n", static_cast<int>(reaper));
        return ::write(1, text, static_cast<size_t>(length)) == length ? 0 : 5;
    }
    ::dup2(0, 1);  // stdin is /dev/null: the owner's pipe closes, so it reads the pid and goes on
    ::prctl(PR_SET_NAME, "e2beval-reaper", 0, 0, 0);
    if (::chdir("/") != 0) return 6;  // holds no directory of the owner's
    for (const int ignored : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) ::signal(ignored, SIG_IGN);

    pollfd owner{kOwnerPidfd, POLLIN, 0};
    while (::poll(&owner, 1, -1) < 0 && errno == EINTR) {
    }
    // The owner has ended (every thread of it): its sandboxes' inits have been sent SIGKILL.
    const long ended = milliseconds_now();
    for (long pause = 1;; pause = pause < 32 ? pause * 2 : pause) {
        const bool kill = milliseconds_now() - ended >= kGraceBeforeKillMilliseconds;
        if (remove_owner_cgroups(prefix, v2, argv + 3, argc - 3, kill) == 0) return 0;
        if (milliseconds_now() - ended >= kGiveUpMilliseconds) return 1;
        sleep_milliseconds(pause);
    }
}
