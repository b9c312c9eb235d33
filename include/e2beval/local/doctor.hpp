// Doctor: what this host allows the local sandbox to do, the isolation level that will be enforced,
// and for every missing piece the command or setting that enables it.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/core/types.hpp"

namespace e2beval {

struct HostCheck {
    std::string mechanism;  // "user namespaces", "seccomp", "cgroups", ...
    bool ok = false;
    std::string status;     // what was found
    std::string fix;        // how to enable it when !ok (empty when nothing can be done or nothing is needed)
};

struct DoctorReport {
    std::vector<HostCheck> checks;
    std::optional<IsolationLevel> enforced_level;  // nullopt: the sandbox cannot run here at all
    std::string enforced_summary;                  // e.g. "full: namespaces, seccomp (reporting), cgroup v1"
    std::vector<std::string> denied_syscalls;
    std::vector<std::pair<std::string, std::string>> interpreters;  // (language, "path version; mounts: ...")
    // Why the Python the probe runs could not be used (missing, not executable, not a Python); empty when it
    // could. The probe then proves nothing about the host, so enforced_level stays unknown (nullopt).
    std::string python_problem;

    // Sandbox cgroups left by e2beval processes that died without cleaning up (SIGKILL): doctor sweeps them
    // (as the first sandbox of any e2beval process does) and reports what it found.
    struct StaleCgroups {
        std::vector<std::string> parents;                         // where sandbox cgroups live
        std::vector<std::pair<std::string, int>> stale;           // (path, owner pid) whose owner is gone
        std::vector<std::string> removed;                         // of those, removed by this sweep
        std::vector<std::pair<std::string, std::string>> kept;    // of those, left in place, and why
    } cgroups;
};

// Inspects the host and runs one probe program in a real sandbox.
DoctorReport diagnose_host(const LocalSandboxOptions& options = {});

// The report as the CLI's `doctor --json` and the Python module give it.
boost::json::object to_json(const DoctorReport& report);

}  // namespace e2beval
