// How a session's sandbox is built: exactly like a one-shot execution's (base_request), with the differences a
// long-lived sandbox whose program is the session agent needs (docs/sessions.md, "Trust boundary").
#include "local/session_sandbox.hpp"

#include <sys/resource.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "local/cgroup.hpp"
#include "local/interpreters.hpp"
#include "local/local_settings.hpp"
#include "local/mountns.hpp"
#include "local/rlimit.hpp"
#include "local/seccomp.hpp"
#include "local/sudo_shim.hpp"
#include "local/template_environment.hpp"
#include "local/warm_protocol.hpp"
#include "local/warm_steps_library.hpp"

namespace e2beval::local {

namespace {

// The agent's own files, in /tmp (never in the user's home); it deletes both before it serves a request.
constexpr const char* kAgentPath = "/tmp/.e2beval-agent.py";
constexpr const char* kAgentStepsPath = "/tmp/.e2beval-agent-steps.so";  // the compiled steps the agent loads
constexpr std::string_view kHome = kSessionHome;  // E2B's home and working directory

// The seccomp filter of sessions: denied calls fail with EPERM (or kill) without a user-notification
// listener, because nobody answers notifications while a session idles between requests.
const SeccompProgram& session_seccomp(SeccompMode mode, bool network) {
    static std::mutex mutex;
    static std::map<std::pair<SeccompMode, bool>, SeccompProgram> programs;
    std::lock_guard lock(mutex);
    auto found = programs.find({mode, network});
    if (found == programs.end())
        found = programs
                    .emplace(std::pair{mode, network},
                             compile_seccomp_filter(mode, network, false, unavailable_syscalls(Language::javascript)))
                    .first;
    return found->second;
}

}  // namespace

SupervisionRequest session_sandbox_request(const LocalSandbox::Settings& settings, const SessionOptions& options,
                                          const std::string& agent_source) {
    ExecRequest base;
    base.language = Language::python;
    base.limits = options.limits;
    base.isolation = options.isolation;
    base.env = options.env;
    base.template_name = options.template_name;
    // JavaScript contexts need Node.js inside too: its install prefix when it is outside the system paths.
    std::optional<InterpreterInfo> node;
    try {
        node = discover_node(configured_node(settings.options.node_executable));
    } catch (const error&) {
        node.reset();  // no Node.js here: JavaScript contexts answer that it is unavailable, and why
    }
    // E2B's layout: /home/user is the home and the working directory, /tmp a directory of its own; both are
    // on the workspace's one size-limited tmpfs (mountns.hpp), the only writable places besides /dev/shm.
    FilesystemAdditions filesystem;
    if (node) filesystem.read_only_paths = node->read_only_paths;
    filesystem.home_directory = kHome;
    filesystem.login_shell = "/bin/bash";
    auto request = base_request(settings, base, true, filesystem);
    auto& plan = request.plan;

    // The agent is the program; it deletes its file once started.
    plan.working_directory = kHome;
    plan.program_path = kAgentPath;
    plan.program_source = agent_source;
    plan.arguments = {plan.executable, "-I", "-B", "-u", plan.program_path};  // the template's Python, if any
    // What E2B's envd gives every command: HOME, USER and LOGNAME of its user (the agent passes them on).
    // The sudo that grants nothing comes last on PATH; sudo_shim_steps covers any other sudo.
    bool path_extended = false;
    std::vector<std::string> program_directories;
    for (auto& variable : plan.environment) {
        if (variable.rfind("HOME=", 0) == 0) variable = "HOME=" + std::string(kHome);
        if (variable.rfind("PATH=", 0) == 0) {
            if (!path_extended) variable += ":" + std::string(kSudoShimDirectory);
            path_extended = true;
            const auto directories = path_directories(std::string_view(variable).substr(5));
            program_directories.insert(program_directories.end(), directories.begin(), directories.end());
        }
    }
    plan.environment.push_back("LOGNAME=user");
    plan.environment.push_back("E2BEVAL_AGENT_HOME=" + std::string(kHome));
    const auto sudo = sudo_shim_steps(program_directories);
    insert_before_entering_root(plan.mount_steps, sudo.before_entering_root);
    plan.mount_steps.insert(plan.mount_steps.end(), sudo.after_entering_root.begin(), sudo.after_entering_root.end());
    // Every session starts its default Python context before it reports ready, so its first cell pays only for
    // itself; a pooled session is then fully warm when handed out, and pooled and fresh sessions look alike.
    plan.environment.push_back("E2BEVAL_AGENT_DEFAULT_CONTEXT=python");
    if (node) plan.environment.push_back("E2BEVAL_NODE=" + path_inside(node->executable));
    // Python cells run in IPython's shell only in a template that has IPython (code-interpreter-v1 does); the
    // default environment is the host's own interpreter, whose packages vary from host to host, so it always
    // gets the plain kernel and a session behaves the same everywhere (docs/sessions.md, "IPython").
    if (!sandbox_python(settings.python, options.template_name).key.empty())
        plan.environment.push_back("E2BEVAL_AGENT_KERNEL=ipython");

    // A session lives for minutes: no CPU-time cap (its lifetime is the timeout) and, when a cgroup limits
    // the memory of the whole tree, no address-space cap either (Node reserves far more than it uses).
    const bool cgroup = cgroup_support().version != CgroupSupport::Version::none;
    for (auto& limit : plan.rlimits) {
        if (limit.resource == RLIMIT_CPU) limit.soft = limit.hard = RLIM_INFINITY;
        if (limit.resource == RLIMIT_AS && cgroup) limit.soft = limit.hard = RLIM_INFINITY;
    }
    // The privilege boundary inside the session (docs/sessions.md, "Trust boundary"): the agent is started
    // like the warm pool's zygote — CAP_SYS_ADMIN and CAP_SETPCAP inside the sandbox's user namespace only,
    // no seccomp filter — and runs no user code itself. Every kernel and command it starts is pid 1 of a new
    // pid namespace with its own /proc, and applies these rlimits and this seccomp filter (dropping every
    // capability, no_new_privs) with the compiled steps before it execs; the agent takes the rlimits too.
    // The steps library is written into the workspace for the agent to load; it deletes it (and its own
    // file) at once.
    const auto& seccomp = session_seccomp(options.isolation.seccomp, options.isolation.network);
    const auto hex = [](std::string_view bytes) {
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string text;
        for (const unsigned char byte : bytes) text += {kDigits[byte >> 4], kDigits[byte & 15]};
        return text;
    };
    plan.zygote = true;
    WarmSettings child_settings;
    child_settings.seccomp_filter = seccomp.instructions;
    WarmSteps child_limits;
    child_limits.rlimits = plan.rlimits;
    plan.environment.push_back("E2BEVAL_AGENT_SECCOMP=" + hex(encode_warm_settings(child_settings)));
    plan.environment.push_back("E2BEVAL_AGENT_LIMITS=" + hex(encode_warm_steps(child_limits)));
    plan.environment.push_back(std::string("E2BEVAL_AGENT_STEPS=") + kAgentStepsPath);
    insert_before_entering_root(
        plan.mount_steps, {MountStep{MountStep::Kind::file, {}, path_while_assembling(kAgentStepsPath),
                                            std::string(warm_steps_library()), 0600}});
    plan.seccomp_filter.clear();
    plan.seccomp_reports_denials = false;
    plan.finalize();
    request.limits.cpu_time = std::chrono::milliseconds(0);
    return request;
}

}  // namespace e2beval::local
