// LocalSandbox: turns an ExecRequest into a SpawnPlan (root filesystem, identity, limits, environment,
// interpreter command line) and hands it to the supervisor.
#include "e2beval/local/local_sandbox.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <optional>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <fstream>
#include <iterator>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "local/cgroup.hpp"
#include "local/compile_stage.hpp"
#include "local/workspace_files.hpp"
#include "local/fd.hpp"
#include "local/interpreters.hpp"
#include "local/local_settings.hpp"
#include "local/session_pool.hpp"
#include "local/mountns.hpp"
#include "local/rlimit.hpp"
#include "local/seccomp.hpp"
#include "local/python_zygote.hpp"
#include "local/supervisor.hpp"
#include "local/template_environment.hpp"
#include "local/warm_pool.hpp"
#include "local/zygote_startup.hpp"

extern char** environ;

namespace e2beval {

namespace {

using local::is_under;
using local::kSystemPaths;

// With the network opted in, name resolution needs these too.
const std::vector<std::string> kNetworkPaths = {"/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/ssl", "/etc/ca-certificates"};

constexpr const char* kWorkspace = "/tmp";

// Compiled once per (mode, network, language): libseccomp's compilation is the slow part.
const local::SeccompProgram& seccomp_program(SeccompMode mode, bool network, Language language) {
    static std::mutex mutex;
    static std::map<std::tuple<SeccompMode, bool, Language>, local::SeccompProgram> programs;
    std::lock_guard lock(mutex);
    const auto key = std::tuple{mode, network, language};
    auto found = programs.find(key);
    if (found == programs.end())
        found = programs.emplace(key, local::compile_seccomp_filter(mode, network, true, local::unavailable_syscalls(language))).first;
    return found->second;
}

constexpr const char* kDiscoveryScript =
    "import sys, os\n"
    "print(os.path.realpath(sys.executable))\n"
    "print('%d.%d.%d' % sys.version_info[:3])\n"
    "for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,"
    " os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}:\n"
    "    print(os.path.realpath(p))\n";

std::vector<std::string> base_environment() {
    return {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
            "USER=user", "HOSTNAME=sandbox"};
}

// arg_start, arg_end, env_start, env_end of this process (fields 48-51 of /proc/self/stat).
std::array<std::uintptr_t, 4> host_string_areas() {
    static const std::array<std::uintptr_t, 4> areas = [] {
        std::array<std::uintptr_t, 4> found{};
        std::ifstream in("/proc/self/stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto after_name = text.rfind(')');
        if (after_name == std::string::npos) return found;
        std::istringstream fields(text.substr(after_name + 2));  // field 3 onwards
        std::string field;
        for (int number = 3; fields >> field; ++number)
            if (number >= 48 && number <= 51) found[static_cast<std::size_t>(number - 48)] = std::stoull(field);
        return found;
    }();
    return areas;
}

void validate_request(const ExecRequest& request) {
    local::check_limits_and_environment(request.limits, request.env);
    if (request.compile_limits) local::check_limits_and_environment(*request.compile_limits, {});
    local::check_workspace_files(request);
    if (request.code.find('\0') != std::string::npos)
        throw input_error("the code holds a NUL byte; source code cannot contain one");
}

}  // namespace

namespace {

// A CPU cap is enforced by the cgroup's CPU quota or not at all: a host that cannot set one refuses the request
// rather than run it uncapped (never a silent downgrade).
void check_cpu_cap(const Limits& limits) {
    std::ostringstream cpus;
    cpus << limits.cpus;
    if (!(limits.cpus >= 0) || limits.cpus > 4096)
        throw input_error("limit 'cpus' must be between 0 (no cap) and 4096, got " + cpus.str());
    if (limits.cpus > 0 && limits.cpus < 0.01)
        throw input_error("limit 'cpus' must be at least 0.01 (the kernel's smallest CPU quota is 1 ms per 100 ms), or 0 for no cap");
    if (limits.cpus == 0 || local::cgroup_support().cpu_quota) return;
    std::string why;
    for (const auto& note : local::cgroup_support().notes) why += (why.empty() ? "" : "; ") + note;
    throw sandbox_error("a CPU cap (limits.cpus " + cpus.str() +
                            ") needs the cgroup cpu controller, which this host does not give e2beval (" + why +
                            "); leave cpus unset (0) to run without one, or run e2beval in a cgroup with the cpu "
                            "controller delegated (systemd-run --scope -p Delegate=yes ...)",
                        errc::unsupported);
}

}  // namespace

void local::check_limits_and_environment(const Limits& limits, const std::map<std::string, std::string>& env) {
    check_memory_floor(limits);
    check_cpu_cap(limits);
    for (const auto& [name, value] : env) {
        if (name.empty() || name.find_first_of("=\0", 0, 2) != std::string::npos)
            throw input_error("invalid environment variable name '" + name + "': names must be non-empty and hold no '=' or NUL");
        if (value.find('\0') != std::string::npos) throw input_error("environment variable " + name + " holds a NUL byte");
    }
}

std::string_view python_discovery_script() noexcept { return kDiscoveryScript; }

InterpreterInfo interpreter_from_discovery(std::string_view report) {
    std::istringstream lines{std::string(report)};
    InterpreterInfo info;
    std::getline(lines, info.executable);
    std::getline(lines, info.version);
    for (std::string prefix; std::getline(lines, prefix);) {
        bool covered = false;
        for (const auto& system_path : kSystemPaths) covered = covered || is_under(prefix, system_path);
        if (!prefix.empty() && prefix != "/" && !covered) info.read_only_paths.push_back(prefix);
    }
    return info;
}

InterpreterInfo discover_python(const std::string& python) {
    static std::mutex mutex;
    static std::map<std::string, InterpreterInfo> cache;
    std::lock_guard lock(mutex);
    if (auto found = cache.find(python); found != cache.end()) return found->second;

    auto info = interpreter_from_discovery(
        local::run_host_command({python, "-I", "-c", kDiscoveryScript}, "set E2BEVAL_PYTHON to a working Python 3 interpreter"));
    if (info.executable.empty() || info.executable[0] != '/')
        throw sandbox_error("could not find the real path of `" + python + "`; set E2BEVAL_PYTHON to its full path");
    cache.emplace(python, info);
    return info;
}

namespace {
std::unique_ptr<local::Zygote> start_zygote(const LocalSandbox::Settings& settings, const local::WarmPoolKey& key);
}  // namespace

LocalSandbox::LocalSandbox(LocalSandboxOptions options, executor_type executor) : Sandbox(std::move(executor)) {
    auto settings = std::make_shared<Settings>();
    settings->options = std::move(options);
    auto& configured = settings->options;
    sessions_ = configured.sessions ? configured.sessions : std::make_shared<SessionRegistry>();
    if (configured.python_info) {
        settings->python = *configured.python_info;
    } else {
        std::string python = configured.python_executable;
        if (python.empty()) {
            const char* from_env = std::getenv("E2BEVAL_PYTHON");
            python = from_env && *from_env ? from_env : "python3";
        }
        settings->python = discover_python(python);
    }
    settings_ = std::move(settings);
    if (settings_->options.pool.enabled)
        // The starter holds the settings, not `this`: zygotes may be launched for executions that outlive it.
        pool_ = std::make_shared<local::WarmPool>(settings_->options.pool.max_zygotes, settings_->options.pool.max_uses,
                                                  [settings = settings_](const local::WarmPoolKey& key) {
                                                      return start_zygote(*settings, key);
                                                  });
    session_pool_ = std::make_shared<local::SessionPool>(
        local::configured_session_pool_size(settings_->options.ready_sessions),
        [settings = settings_](const SessionOptions& session_options) { return local::start_session(*settings, session_options); });
}

const InterpreterInfo& LocalSandbox::python() const noexcept { return settings_->python; }


namespace {

// The one plan builder of every cold sandbox: a one-program execution (base_request), a compile stage or a run
// stage (stage_request). `program` says what runs and what it needs, `executable` is its program as the sandbox
// sees it (a host path through path_inside, or an artifact in the workspace); `environment` is its whole environment;
// the root filesystem (unless `with_filesystem` is false: a warm child inherits its zygote's), the identity, the
// rlimits of `limits` and the seccomp filter of `request`'s isolation and language are the same for all.
local::SupervisionRequest plan_supervision(const LocalSandbox::Settings& settings, const ExecRequest& request, const Limits& limits,
                                           const local::StageProgram& program, std::string executable, std::vector<std::string> environment,
                                           bool with_filesystem, const local::FilesystemAdditions& additions) {
    const auto ids = local::choose_id_mapping();
    local::SupervisionRequest supervision;
    auto& plan = supervision.plan;
    if (with_filesystem) {
        local::RootFilesystemSpec filesystem;
        filesystem.read_only_paths = kSystemPaths;
        for (const auto* paths : {&program.read_only_paths, &settings.options.extra_read_only_paths, &additions.read_only_paths})
            filesystem.read_only_paths.insert(filesystem.read_only_paths.end(), paths->begin(), paths->end());
        if (request.isolation.network)
            filesystem.read_only_paths.insert(filesystem.read_only_paths.end(), kNetworkPaths.begin(), kNetworkPaths.end());
        filesystem.workspace_bytes = limits.workspace_bytes;
        filesystem.home_directory = additions.home_directory;
        filesystem.login_shell = additions.login_shell;
        filesystem.inside_uid = ids.inside_uid;
        filesystem.inside_gid = ids.inside_gid;
        plan.mount_steps = local::plan_root_filesystem(filesystem);
        if (!program.mount_steps.empty()) local::insert_before_entering_root(plan.mount_steps, program.mount_steps);
    }
    plan.inside_uid = ids.inside_uid;
    plan.inside_gid = ids.inside_gid;
    plan.clear_supplementary_groups = ids.allow_setgroups;
    plan.working_directory = kWorkspace;
    const auto areas = host_string_areas();
    plan.host_args_begin = areas[0];
    plan.host_args_end = areas[1];
    plan.host_env_begin = areas[2];
    plan.host_env_end = areas[3];
    plan.program_path = program.program_path;
    plan.program_source = program.program_source;
    plan.workspace_files = program.workspace_files;
    plan.collect = program.collect;
    plan.executable = std::move(executable);
    plan.arguments = program.arguments;
    plan.environment = std::move(environment);
    const bool cgroup = local::cgroup_support().version != local::CgroupSupport::Version::none;
    plan.rlimits = local::plan_rlimits(limits, cgroup);
    local::adapt_rlimits(request.language, limits, cgroup, plan.rlimits);
    const auto& seccomp = seccomp_program(request.isolation.seccomp, request.isolation.network, request.language);
    plan.seccomp_filter = seccomp.instructions;
    plan.seccomp_reports_denials = seccomp.reports_denials;
    plan.finalize();

    supervision.ids = ids;
    supervision.limits = limits;
    supervision.isolation = request.isolation;
    supervision.language = request.language;
    supervision.stdin_data = program.stdin_data;
    return supervision;
}

}  // namespace

local::SupervisionRequest local::base_request(const LocalSandbox::Settings& settings, const ExecRequest& request,
                                              bool with_filesystem, const FilesystemAdditions& additions) {
    // The language's interpreter runs the request's code, written to the workspace.
    const auto python = local::sandbox_python(settings.python, request.template_name);
    const auto command = local::program_command(request.language, kWorkspace, python.info, local::configured_node(settings.options.node_executable),
                                                request.limits);
    StageProgram program;
    program.executable = command.executable;
    program.arguments = command.arguments;
    const auto executable = local::path_inside(command.executable);
    program.arguments.front() = executable;
    program.arguments.push_back(command.program_path);
    program.read_only_paths = command.read_only_paths;
    program.program_path = command.program_path;
    program.program_source = request.code;
    program.workspace_files = local::workspace_entries(request.files, kWorkspace);
    program.collect = request.collect;
    program.stdin_data = request.stdin_data;
    // The environment: the base one, the template's variables in place of the same names, then the request's.
    auto environment = base_environment();
    for (const auto& variable : local::template_environment(python, "/usr/local/bin:/usr/bin:/bin")) {
        const auto name = variable.substr(0, variable.find('=') + 1);
        auto same = std::find_if(environment.begin(), environment.end(),
                                 [&](const std::string& existing) { return existing.rfind(name, 0) == 0; });
        if (same != environment.end()) *same = variable;
        else environment.push_back(variable);
    }
    for (const auto& [name, value] : request.env) environment.push_back(name + "=" + value);
    return plan_supervision(settings, request, request.limits, program, executable, std::move(environment), with_filesystem, additions);
}

local::SupervisionRequest local::stage_request(const LocalSandbox::Settings& settings, const ExecRequest& request,
                                               const Limits& limits, const StageProgram& program) {
    auto environment = base_environment();
    environment.insert(environment.end(), program.environment.begin(), program.environment.end());
    // A stage's program may be an artifact in the workspace (a compiled binary); anything else is a host path.
    auto executable = program.executable.starts_with(kWorkspace) ? program.executable : local::path_inside(program.executable);
    return plan_supervision(settings, request, limits, program, std::move(executable), std::move(environment), true, {});
}

namespace {

std::unique_ptr<local::Zygote> start_zygote(const LocalSandbox::Settings& settings, const local::WarmPoolKey& key) {
    const auto& isolation = key.isolation;
    ExecRequest zygote;
    zygote.code = local::kPythonZygoteSource;
    zygote.isolation = isolation;
    zygote.template_name = key.template_name;
    zygote.limits.workspace_bytes = 1 * kMiB;
    auto request = local::base_request(settings, zygote, true);
    request.plan.zygote = true;
    request.plan.program_path = "/tmp/zygote.py";
    request.plan.arguments = {request.plan.executable, "-I", "-B", "-u", request.plan.program_path};
    // The zygote itself runs no untrusted code: the per-execution limits are set in each child.
    request.plan.rlimits = {{RLIMIT_CORE, 0, 0, "RLIMIT_CORE"}};
    request.plan.finalize();
    const auto& seccomp = seccomp_program(isolation.seccomp, isolation.network, Language::python);
    local::WarmSettings zygote_settings;
    zygote_settings.seccomp_filter = seccomp.instructions;
    zygote_settings.seccomp_reports_denials = seccomp.reports_denials;
    return local::launch_zygote(std::move(request), zygote_settings);
}

}  // namespace

void LocalSandbox::initiate_execute(executor_type io, ExecRequest request, ExecHandler& handler) {
    validate_request(request);  // a refusal throws here, while `handler` is still the caller's
    local::sandbox_python(settings_->python, request.template_name);  // an unknown template, too
    // From here on the handler is ours: whatever fails completes it with the error (exactly once).
    const auto slot = boost::asio::get_associated_cancellation_slot(handler);
    auto taken = std::make_shared<std::optional<ExecHandler>>(std::move(handler));
    const auto complete = [taken](boost::system::error_code ec, ExecResult result) {
        if (!*taken) return;
        auto owned = std::move(**taken);
        taken->reset();
        std::move(owned)(ec, std::move(result));
    };
    // The caller's cancellation slot goes with the execution: the supervisor kills a cancelled sandbox.
    local::SupervisionHandler inner(boost::asio::bind_cancellation_slot(slot, [complete](boost::system::error_code ec, ExecResult result) {
        if (!ec && result.outcome == Outcome::cancelled) ec = boost::asio::error::operation_aborted;
        complete(ec, std::move(result));
    }));
    try {
        run(io, std::move(request), inner);
    } catch (const std::exception& failure) {
        boost::asio::post(io, [complete, failed = failure_completion(failure)]() mutable {
            complete(failed.first, std::move(failed.second));
        });
    }
}

namespace {

using ResultHandler = local::SupervisionHandler;

local::WarmPoolKey warm_key(const LocalSandbox::Settings& settings, const ExecRequest& request) {
    return {request.isolation, request.template_name, local::sandbox_python(settings.python, request.template_name).key};
}

// Runs `request` in a new sandbox; completes `handler` exactly once, whatever fails.
void run_cold(const std::shared_ptr<const LocalSandbox::Settings>& settings, LocalSandbox::executor_type io,
              const ExecRequest& request, ResultHandler handler) noexcept {
    std::optional<local::SupervisionRequest> cold;
    try {
        cold = local::base_request(*settings, request, true);
    } catch (const std::exception& failure) {
        boost::asio::post(io, [handler = std::move(handler), failed = failure_completion(failure)]() mutable {
            std::move(handler)(failed.first, std::move(failed.second));
        });
        return;
    }
    local::supervise(std::move(io), std::move(*cold), std::move(handler));
}

// Runs `request` in `zygote` (ready); false, leaving `handler` untouched and the zygote released as broken,
// when the zygote cannot take it.
bool run_warm(const std::shared_ptr<const LocalSandbox::Settings>& settings, const std::shared_ptr<local::WarmPool>& pool,
              const std::shared_ptr<local::Zygote>& zygote, const local::WarmPoolKey& key, LocalSandbox::executor_type io,
              const ExecRequest& request, ResultHandler& handler) {
    local::WarmHooks hooks;
    hooks.release = [pool, zygote, key](bool healthy) { pool->release(key, zygote, healthy); };
    hooks.kill_zygote = [zygote] { zygote->kill(); };
    hooks.prepare_standby = [zygote](local::UniqueFd standby_pidfd) { zygote->prepare_standby(std::move(standby_pidfd)); };
    hooks.zygote_pidfd = ::fcntl(zygote->init_pidfd(), F_DUPFD_CLOEXEC, 0);
    // Holds the settings, not the LocalSandbox: it may be gone when the cold run starts.
    hooks.run_cold = [settings, io, request](ResultHandler cold) { run_cold(settings, io, request, std::move(cold)); };
    const bool started = local::supervise_warm(io, *zygote, local::base_request(*settings, request, false), hooks, handler);
    if (!started) hooks.release(false);  // the zygote died: the caller runs the request cold, just as isolated
    return started;
}

}  // namespace

void LocalSandbox::run(executor_type io, ExecRequest request, ResultHandler& handler) {
    const auto& settings = settings_;
    if (describe(request.language).compiled()) {
        const auto slot = boost::asio::get_associated_cancellation_slot(handler);
        return local::run_compiled(settings, std::move(io), std::move(request),
                                   boost::asio::bind_cancellation_slot(slot, [handler = std::move(handler)](ExecResult result) mutable {
                                       std::move(handler)(boost::system::error_code(), std::move(result));
                                   }));
    }
    // Files to write or collect: the cold path (the warm pool's zygote writes only the program).
    if (pool_ && request.language == Language::python && request.files.empty() && request.collect.empty()) {
        // Resolved once: the template may be removed while this execution waits, and its zygote goes back under
        // the key it was taken with.
        const auto key = warm_key(*settings, request);
        std::shared_ptr<local::Zygote> zygote;
        try {
            zygote = pool_->acquire(key);
        } catch (const error&) {
            zygote = nullptr;  // the pool cannot start here: this execution runs cold, just as isolated
        }
        if (zygote && zygote->ready) {
            if (run_warm(settings, pool_, zygote, key, io, request, handler)) return;
        } else if (zygote) {
            // A new zygote: wait for its start on the event loop (never blocking it), then run warm, or
            // cold if it could not start. Cancelling the execution cancels the wait.
            const auto slot = boost::asio::get_associated_cancellation_slot(handler);
            local::async_wait_until_ready(io, zygote, boost::asio::bind_cancellation_slot(slot,
                [settings, pool = pool_, zygote, key, io, request = std::move(request), handler = std::move(handler)](
                    boost::system::error_code ec, const std::string& failure) mutable {
                    if (ec == boost::asio::error::operation_aborted) {
                        pool->release(key, zygote, false);
                        ExecResult cancelled;
                        cancelled.outcome = Outcome::cancelled;
                        cancelled.detail = "cancelled: the caller cancelled the execution before it started";
                        return std::move(handler)(boost::system::error_code(), std::move(cancelled));
                    }
                    try {
                        if (failure.empty() && run_warm(settings, pool, zygote, key, io, request, handler)) return;
                        if (!failure.empty()) pool->release(key, zygote, false);
                        run_cold(settings, io, request, std::move(handler));
                    } catch (const std::exception& thrown) {
                        auto [code, failed] = failure_completion(thrown);
                        std::move(handler)(code, std::move(failed));
                    }
                }));
            return;
        }
    }
    run_cold(settings, std::move(io), request, std::move(handler));
}

void LocalSandbox::warm_up(std::size_t count, const IsolationProfile& isolation) {
    if (pool_) pool_->warm_up(local::WarmPoolKey{isolation, "", ""}, count);
}

void LocalSandbox::prepare_executions(const ExecRequest& like, std::size_t concurrency) {
    if (!pool_ || like.language != Language::python) return;
    try {
        pool_->launch_ahead(warm_key(*settings_, like), concurrency);
    } catch (const error&) {
        // An unknown template, or a pool that cannot start here: each execution meets the same and says so
        // (or runs cold, as run() does).
    }
}

std::vector<int> LocalSandbox::zygote_pids() const {
    std::vector<int> pids;
    if (pool_)
        for (const auto pid : pool_->zygote_init_pids()) pids.push_back(pid);
    return pids;
}

LocalSandbox::~LocalSandbox() = default;


}  // namespace e2beval
