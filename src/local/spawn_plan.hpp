// SpawnPlan: everything the sandboxed child needs, computed in the parent before clone.
// After clone the child runs in a copy of a possibly multi-threaded process, so it must not allocate,
// lock or throw: it only walks this plan and makes syscalls.
#pragma once

#include <linux/filter.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace e2beval::local {

struct MountStep {
    enum class Kind {
        make_private,    // stop mount events propagating back to the host
        tmpfs,           // mount a tmpfs on `target` with options `data`
        directory,       // mkdir `target` (existing is fine)
        file,            // create `target` holding `data` (also used as an empty bind mount point)
        bind_read_only,  // attach a read-only, nosuid, nodev copy of host path `source` at `target`
        bind_device,     // attach the host device node `source` at `target` (nosuid, noexec, not nodev)
        proc,            // fresh procfs of the sandbox's pid namespace at `target`
        symlink,         // `target` -> `data`
        exact_directory, // mkdir `target` with exactly `mode` (the umask aside: /tmp's 01777)
        bind_inside,     // bind `source`, a path already in the new root, at `target` (same flags as its mount)
        overlay,         // an overlayfs at `target`: `data` is its options (lowerdir=,upperdir=,workdir=)
        cover_existing,  // after enter_root: bind the file `source` over `target` if that is a regular file
        detach,          // lazily unmount `target` and remove the directory it was mounted on
        enter_root,      // pivot into `target`, detach the host's root, remount the new root read-only
    };
    Kind kind;
    std::string source;
    std::string target;
    std::string data;
    mode_t mode = 0755;
    int tree = -1;  // bind steps: index of the host tree cloned for it before the ids change
};

struct RlimitSetting {
    int resource;
    rlim_t soft;
    rlim_t hard;
    const char* name;  // "RLIMIT_CPU", for error messages
};

struct SpawnPlan {
    std::vector<MountStep> mount_steps;

    uid_t inside_uid = 1000;
    gid_t inside_gid = 1000;
    bool clear_supplementary_groups = false;  // possible only when the parent may write "allow" to setgroups
    // Where this (host) process keeps its command line and environment strings: the sandbox's init is
    // a copy of it, and wipes them so /proc/1/cmdline and /proc/1/environ show nothing of the host.
    std::uintptr_t host_args_begin = 0, host_args_end = 0, host_env_begin = 0, host_env_end = 0;
    std::string hostname = "sandbox";
    std::string working_directory = "/tmp";

    std::string program_path;    // inside the sandbox; empty: no program file (the program is an artifact)
    std::string program_source;  // written to program_path before the code runs

    // More files written into the workspace before the program runs (directories first), and the workspace
    // paths the init opens and passes to the supervisor after the program ends (collect_artifacts in contain.cpp).
    struct WorkspaceEntry {
        std::string path;  // inside the sandbox, absolute
        std::string data;
        mode_t mode = 0644;
        bool directory = false;
    };
    std::vector<WorkspaceEntry> workspace_files;
    std::vector<std::string> collect;  // relative to working_directory; a trailing '/': a directory's regular files

    std::string executable;  // inside the sandbox
    std::vector<std::string> arguments;
    std::vector<std::string> environment;  // NAME=value, the whole environment the code sees
    std::vector<RlimitSetting> rlimits;
    // The seccomp filter, installed last before exec; with `seccomp_reports_denials` the program's
    // process sends the filter's listener fd to the supervisor before it execs.
    std::vector<sock_filter> seccomp_filter;
    bool seccomp_reports_denials = false;
    // Warm pool: the program is the zygote. It keeps CAP_SYS_ADMIN and CAP_SETPCAP (ambient, inside the
    // user namespace only) to build each execution's namespaces and mounts, and fd 3 as its control
    // channel; rlimits, no_new_privs, seccomp and dropping every capability happen per execution.
    bool zygote = false;

    // Pointers into `arguments` and `environment`, built by finalize() in the parent.
    std::vector<char*> argv;
    std::vector<char*> envp;
    void finalize();
};

// What the child tells the parent through the report pipe: a setup failure or the program's end.
// The warm pool's zygote (src/local/python_zygote.py) packs the same layout with struct '=iiqq160s256s'.
struct ChildReport {
    enum Kind : std::int32_t {
        setup_failed = 1,      // value: errno; call/path: what failed
        program_ended = 2,     // value: wait status; peak_rss_kib/cpu_us: the program's usage; namespace_empty
                               // (cold init): nothing but the init is left in the sandbox's pid namespace
        seccomp_listener = 3,  // carries the seccomp listener fd
        program_started = 4,   // warm pool: carries the program's pidfd
        zygote_ready = 5,      // warm pool: the zygote has started; carries its first standby's pidfd
        standby_ready = 6,     // warm pool: carries the pidfd of the next execution's process (the standby)
        artifact = 7,          // cold init, after the program ended: one collected workspace file (path: its path
                               // relative to the workspace) carried as an fd; value: 0, or the errno that kept it
    };
    std::int32_t kind = 0;
    std::int32_t value = 0;
    std::int32_t namespace_empty = 0;
    std::int32_t reserved = 0;
    std::int64_t peak_rss_kib = -1;
    std::int64_t cpu_us = -1;
    char call[160] = {};
    char path[256] = {};
};
static_assert(sizeof(ChildReport) == 448, "one fixed-size message (child_report.hpp)");

// The most files one execution collects (a directory's regular files count one each).
inline constexpr int kMaxCollectedFiles = 512;

}  // namespace e2beval::local

namespace e2beval::local {

// A failed child-side step: the syscall as it would be written, the path it acted on, and errno.
// Plain pointers to static strings or to the plan's strings: building it must not allocate.
struct StepError {
    const char* call = nullptr;
    const char* path = nullptr;
    int error = 0;
    explicit operator bool() const noexcept { return call != nullptr; }
};

}  // namespace e2beval::local
