// e2beval doctor: reads the kernel's switches for user namespaces, seccomp and cgroups, then runs a
// probe in a real sandbox, because only running one proves the whole composition works here.
#include "e2beval/local/doctor.hpp"

#include <boost/json.hpp>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <seccomp.h>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "local/cgroup.hpp"
#include "e2beval/core/language.hpp"
#include "local/interpreters.hpp"
#include "local/toolchains.hpp"
#include "local/seccomp.hpp"

namespace e2beval {

namespace {

std::optional<std::string> read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    return line;
}

HostCheck kernel_check() {
    utsname name{};
    ::uname(&name);
    int major = 0, minor = 0;
    std::sscanf(name.release, "%d.%d", &major, &minor);
    const bool ok = major > 5 || (major == 5 && minor >= 12);  // clone3 + pidfd + mount_setattr
    return {"kernel", ok, std::string(name.sysname) + " " + name.release + " (" + name.machine + ")",
            ok ? "" : "e2beval needs Linux 5.12 or newer (clone3, pidfd, open_tree, mount_setattr)"};
}

HostCheck user_namespace_check() {
    HostCheck check{"user namespaces", true, "", ""};
    const auto maximum = read_first_line("/proc/sys/user/max_user_namespaces");
    check.status = "max_user_namespaces=" + maximum.value_or("?");
    if (maximum && std::atol(maximum->c_str()) == 0) {
        check.ok = false;
        check.fix = "sudo sysctl -w user.max_user_namespaces=15000";
    }
    const bool root = ::geteuid() == 0;
    if (const auto debian = read_first_line("/proc/sys/kernel/unprivileged_userns_clone")) {
        check.status += ", unprivileged_userns_clone=" + *debian;
        if (*debian == "0" && !root) {
            check.ok = false;
            check.fix = "sudo sysctl -w kernel.unprivileged_userns_clone=1";
        }
    }
    if (const auto apparmor = read_first_line("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")) {
        check.status += ", apparmor_restrict_unprivileged_userns=" + *apparmor;
        if (*apparmor == "1" && !root) {
            check.ok = false;
            check.fix = "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or give the e2beval binary "
                        "an AppArmor profile with `userns,`)";
        }
    }
    check.status += root ? "; running as root" : "; running as uid " + std::to_string(::geteuid());
    return check;
}

HostCheck seccomp_check() {
    HostCheck check{"seccomp", false, "", ""};
    std::ifstream status("/proc/self/status");
    std::string line;
    bool present = false;
    while (std::getline(status, line))
        if (line.rfind("Seccomp:", 0) == 0) present = true;
    if (!present) {
        check.status = "not built into this kernel";
        check.fix = "use a kernel with CONFIG_SECCOMP_FILTER=y";
        return check;
    }
    const unsigned api = seccomp_api_get();
    check.ok = true;
    check.status = "filters available (libseccomp API level " + std::to_string(api) + "); denied calls are " +
                   (api >= 5 ? "reported (user notification)" : "refused with EPERM but not reported");
    if (api < 5) check.fix = "Linux 5.0+ and libseccomp 2.5+ report each denied call";
    return check;
}

// The sweep of stale sandbox cgroups (their owner died without removing them), as the report says it.
DoctorReport::StaleCgroups stale_cgroups() {
    // Doctor is often run right after something went wrong: a just-killed owner's sandboxes get a second to die.
    const auto& sweep = local::sweep_stale_cgroups(std::chrono::seconds(1));
    DoctorReport::StaleCgroups report;
    report.parents = sweep.parents;
    for (const auto& stale : sweep.stale) report.stale.emplace_back(stale.path, static_cast<int>(stale.owner_pid));
    report.removed = sweep.removed;
    report.kept = sweep.kept;
    return report;
}

std::string describe(const DoctorReport::StaleCgroups& cgroups) {
    if (cgroups.stale.empty()) return "no stale sandbox cgroups";
    std::string text = std::to_string(cgroups.stale.size()) + " stale sandbox cgroups (their e2beval process died " +
                       "without removing them): removed " + std::to_string(cgroups.removed.size());
    for (const auto& path : cgroups.removed) text += " " + path;
    for (const auto& [path, why] : cgroups.kept) text += "; could not remove " + path + ": " + why;
    return text;
}

// Whether this process's cgroups would go with it however it ended (cgroup_reaper.hpp).
std::string describe_reaper() {
    const auto reaper = local::cgroup_reaper();
    if (reaper.pid > 0)
        return "a cgroup reaper (pid " + std::to_string(reaper.pid) +
               ") removes a process's sandbox cgroups when it ends, however it ends";
    return "no cgroup reaper (" + reaper.why_not + "): a process killed with its sandboxes leaves their cgroups to "
           "the next e2beval start's sweep";
}

HostCheck cgroup_check(const DoctorReport::StaleCgroups& cgroups) {
    const auto& support = local::cgroup_support();
    HostCheck check{"cgroups", support.version != local::CgroupSupport::Version::none, "", support.fix};
    if (support.version == local::CgroupSupport::Version::v2) {
        check.status = "v2, sandboxes get their own cgroup below " + support.v2_parent + " (memory, pids" +
                       (support.cpu_quota ? ", cpu" : "") + ")";
    } else if (support.version == local::CgroupSupport::Version::v1) {
        check.status = "v1 controllers:";
        for (const auto& [controller, directory] : support.v1_parents) check.status += " " + controller + " (" + directory + ")";
    }
    if (support.version != local::CgroupSupport::Version::none)
        check.status += support.cpu_quota ? "; CPU caps (limits.cpus) can be set" : "; CPU caps (limits.cpus) cannot be set"; else {
        check.status = "none usable; limits fall back to rlimits";
    }
    for (const auto& note : support.notes) check.status += "; " + note;
    if (support.version != local::CgroupSupport::Version::none) check.status += "; " + describe(cgroups) + "; " + describe_reaper();
    if (!cgroups.kept.empty() && check.fix.empty())
        check.fix = "remove the stale cgroups named above once their processes are gone (rmdir)";
    return check;
}

// The Node.js JavaScript runs with (E2BEVAL_NODE, else node on PATH), what a sandbox mounts for it, and
// whether a JavaScript program really runs in a sandbox with it.
std::string describe_node(const LocalSandboxOptions& options, LocalSandbox* sandbox) {
    InterpreterInfo node;
    try {
        node = local::discover_node(local::configured_node(options.node_executable));
    } catch (const error& failure) {
        return std::string("cannot run JavaScript: ") + failure.what();
    }
    std::string mounts;
    for (const auto& path : node.read_only_paths) mounts += (mounts.empty() ? "" : ", ") + path;
    std::string text = node.executable + " " + node.version + "; mounts: /usr, /lib* and " +
                       (mounts.empty() ? std::string("nothing else") : mounts);
    if (!sandbox) return text;
    ExecRequest request;
    request.language = Language::javascript;
    request.code = "console.log(process.getuid())\n";
    try {
        const auto result = sandbox->execute(request);
        return text + "; ran JavaScript in a sandbox: " + std::string(to_string(result.outcome)) +
               (result.detail.empty() ? "" : " (" + result.detail + ")") +
               (result.outcome == Outcome::ok ? "" : "; stderr: " + result.stderr_data.substr(0, 300));
    } catch (const error& failure) {
        return text + "; JavaScript did not run in a sandbox: " + failure.what();
    }
}

}  // namespace

DoctorReport diagnose_host(const LocalSandboxOptions& options) {
    DoctorReport report;
    report.cgroups = stale_cgroups();
    report.checks = {kernel_check(), user_namespace_check(), seccomp_check(), cgroup_check(report.cgroups)};
    report.denied_syscalls = local::denied_syscall_names();

    HostCheck probe{"sandbox probe", false, "", ""};
    std::string javascript;
    LocalSandboxOptions probe_options = options;
    probe_options.pool.enabled = false;  // the probe checks the cold path, which every execution can fall back to
    std::optional<LocalSandbox> probe_sandbox;
    try {
        probe_sandbox.emplace(probe_options);  // finds the Python; builds no sandbox yet
    } catch (const error& failure) {
        report.python_problem = failure.what();
        probe.status = "not run: the Python interpreter it runs cannot be used: " + report.python_problem;
        probe.fix = "give a Python 3 interpreter with --python PATH or E2BEVAL_PYTHON=PATH (the checks above do not "
                    "depend on it)";
        report.interpreters.emplace_back("python", "cannot be used: " + report.python_problem);
    }
    if (probe_sandbox) {
        try {
            auto& sandbox = *probe_sandbox;
            const auto& python = sandbox.python();
            std::string mounts;
            for (const auto& path : python.read_only_paths) mounts += (mounts.empty() ? "" : ", ") + path;
            report.interpreters.emplace_back("python", python.executable + " " + python.version + "; mounts: /usr, /lib* and " +
                                                           (mounts.empty() ? std::string("nothing else") : mounts));
            ExecRequest request;
            request.code = "import os\nprint(os.getuid(), open('/proc/self/status').read().count('Seccomp:\\t2'))\n";
            const auto result = sandbox.execute(request);
            probe.ok = result.outcome == Outcome::ok && result.stdout_data == "1000 1\n";
            probe.status = "ran Python in a sandbox: " + std::string(to_string(result.outcome)) +
                           (result.detail.empty() ? "" : " (" + result.detail + ")") + ", " +
                           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(result.wall_time).count()) + " ms";
            if (!probe.ok) probe.fix = "see the failing mechanism above; stderr: " + result.stderr_data.substr(0, 300);
            javascript = describe_node(options, probe.ok ? &sandbox : nullptr);
        } catch (const error& failure) {
            probe.status = failure.what();
            probe.fix = "fix the failing mechanism above";
        }
    }
    report.interpreters.emplace_back("javascript", javascript.empty() ? describe_node(options, nullptr) : javascript);
    for (const auto* language : all_languages()) {
        if (!language->compiled()) continue;
        const auto status = local::probe_toolchain(language->language, local::configured_node(options.node_executable));
        if (!status.toolchain) {
            report.interpreters.emplace_back(std::string(language->name), "not available: " + status.problem);
            continue;
        }
        const auto& toolchain = *status.toolchain;
        std::string mounts;
        for (const auto& path : toolchain.read_only_paths) mounts += (mounts.empty() ? "" : ", ") + path;
        report.interpreters.emplace_back(std::string(language->name),
                                         "available: " + toolchain.version + "; compiler " + toolchain.compiler +
                                             (toolchain.runtime.empty() ? "" : ", runtime " + toolchain.runtime) +
                                             "; mounts: /usr, /lib* and " + (mounts.empty() ? std::string("nothing else") : mounts));
    }
    report.interpreters.emplace_back("bash", ::access("/bin/bash", X_OK) == 0 ? "/bin/bash; mounts: nothing else"
                                                                               : "cannot run bash programs: /bin/bash is missing");
    report.checks.push_back(probe);

    const auto& support = local::cgroup_support();
    if (!report.python_problem.empty()) {
        report.enforced_summary = "unknown: the sandbox probe needs a working Python interpreter (see above); the "
                                  "host checks above show what this host allows";
    } else if (probe.ok) {
        const bool full = support.version != local::CgroupSupport::Version::none;
        report.enforced_level = full ? IsolationLevel::full : IsolationLevel::standard;
        report.enforced_summary = std::string(full ? "full" : "standard") +
                                  ": user, pid, mount, net, ipc, uts and cgroup namespaces; minimal read-only root; "
                                  "seccomp; rlimits" +
                                  (full ? "; cgroup " + std::string(local::to_string(support.version)) + " memory, pids and CPU time" +
                                          (support.cpu_quota ? " (and CPU caps when asked)" : "")
                                        : "");
    } else {
        report.enforced_summary = "none: the sandbox cannot run on this host, so e2beval refuses to execute code";
    }
    return report;
}

namespace {

boost::json::object cgroups_json(const DoctorReport::StaleCgroups& cgroups) {
    boost::json::array parents, stale, removed, kept;
    for (const auto& parent : cgroups.parents) parents.emplace_back(parent);
    for (const auto& [path, owner] : cgroups.stale) stale.push_back(boost::json::object{{"path", path}, {"owner_pid", owner}});
    for (const auto& path : cgroups.removed) removed.emplace_back(path);
    for (const auto& [path, why] : cgroups.kept) kept.push_back(boost::json::object{{"path", path}, {"why", why}});
    return {{"parents", std::move(parents)}, {"stale", std::move(stale)}, {"removed", std::move(removed)}, {"kept", std::move(kept)}};
}

}  // namespace

boost::json::object to_json(const DoctorReport& report) {
    boost::json::array checks;
    for (const auto& check : report.checks)
        checks.push_back(boost::json::object{{"mechanism", check.mechanism}, {"ok", check.ok}, {"status", check.status}, {"fix", check.fix}});
    boost::json::object interpreters;
    for (const auto& [language, description] : report.interpreters) interpreters[language] = description;
    boost::json::array denied;
    for (const auto& name : report.denied_syscalls) denied.push_back(boost::json::value(name));
    return {{"checks", std::move(checks)},
            {"enforced_level", report.enforced_level ? boost::json::value(to_string(*report.enforced_level)) : boost::json::value(nullptr)},
            {"enforced", report.enforced_summary},
            {"interpreters", std::move(interpreters)},
            {"seccomp_denies", std::move(denied)},
            {"python_problem", report.python_problem.empty() ? boost::json::value(nullptr) : boost::json::value(report.python_problem)},
            {"cgroups", cgroups_json(report.cgroups)}};
}

}  // namespace e2beval
