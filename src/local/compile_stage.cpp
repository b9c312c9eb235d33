// A compiled language's two stages (compile_stage.hpp). The compile runs through the same supervise() as any
// cold run: new namespaces, the seccomp filter (deny mode), rlimits, a cgroup, no network; the toolchain's
// install prefix mounted read-only; the workspace its only writable place. Its artifacts leave the sandbox
// only as fds its init opened beneath the workspace after the compiler ended (contain.cpp, collect_artifacts),
// read by the supervisor once nothing in the sandbox can change them. The run stage is a second cold sandbox
// whose workspace the init fills with those artifacts.
#include "local/compile_stage.hpp"

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/post.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "local/compile_cache.hpp"
#include "local/compile_flights.hpp"
#include "local/interpreters.hpp"
#include "local/mountns.hpp"
#include "local/resident_compiler.hpp"
#include "local/resident_services.hpp"
#include "local/seccomp.hpp"
#include "local/supervisor.hpp"
#include "local/toolchains.hpp"
#include "local/workspace_files.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

namespace {

constexpr const char* kWorkspace = "/tmp";
// Bumped when an entry's meaning changes (flags, layout): older entries are then never found.
constexpr const char* kCacheFormat = "e2beval-compile-1";

using ResultHandler = asio::any_completion_handler<void(ExecResult)>;

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
}

// One stage's argv from its descriptor template.
std::vector<std::string> substitute(std::span<const std::string_view> argv, const std::map<std::string, std::string>& values) {
    std::vector<std::string> out;
    for (const auto part : argv) {
        std::string text(part);
        for (const auto& [name, value] : values) text = replace_all(std::move(text), name, value);
        out.push_back(std::move(text));
    }
    return out;
}

// Java's class path in the sandbox: the program's classes, then the configured jars (Toolchain::class_path).
std::string java_class_path(const Toolchain& toolchain) {
    std::string path = "classes";
    for (const auto& jar : toolchain.class_path) path += ":" + path_inside(jar);
    return path;
}

std::string heap_mib(const Limits& limits) { return std::to_string(std::max<std::uint64_t>(16, limits.memory_bytes / kMiB / 2)); }

std::string compile_seconds_text(std::chrono::milliseconds duration) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
    return text;
}

// What a compiler prints when an allocation failed, at the start of one of its own lines (never in a quoted
// line of the program, which diagnostics indent or number).
bool compiler_ran_out_of_memory(const std::string& output) {
    static const std::string_view kMessages[] = {
        "virtual memory exhausted", "out of memory", "Cannot allocate memory", "cannot allocate memory", "std::bad_alloc",
        "java.lang.OutOfMemoryError", "memory allocation of", "Killed signal terminated program", "JavaScript heap out of memory",
        "failed to map segment from shared object"};
    std::size_t start = 0;
    while (start < output.size()) {
        const auto end = std::min(output.find('\n', start), output.size());
        const std::string_view line(output.data() + start, end - start);
        if (!line.empty() && !std::isspace(static_cast<unsigned char>(line.front())) && !std::isdigit(static_cast<unsigned char>(line.front())))
            for (const auto message : kMessages)
                if (line.find(message) != std::string_view::npos) return true;
        start = end + 1;
    }
    return false;
}

struct CompilePlan {
    const LanguageDescriptor* language = nullptr;
    const Toolchain* toolchain = nullptr;
    std::string source_name;
    std::string main_class;
    Limits limits;
    StageProgram program;
    std::string cache_key;
};

CompilePlan plan_compile(const LocalSandbox::Settings& settings, const ExecRequest& request) {
    CompilePlan plan;
    plan.language = &describe(request.language);
    plan.toolchain = &find_toolchain(request.language, configured_node(settings.options.node_executable));
    const auto& language = *plan.language;
    const auto& toolchain = *plan.toolchain;
    plan.limits = compile_limits_of(request);
    plan.main_class = language.main_class ? language.main_class(request.code) : std::string("Main");
    const bool test_program = language.is_test_program && language.is_test_program(request.code);
    plan.source_name = test_program ? std::string(language.test_source_file)
                                    : replace_all(std::string(language.source_file), "{main}", plan.main_class);
    const std::map<std::string, std::string> values = {
        {"{tool}", path_inside(toolchain.compiler)}, {"{tsc}", path_inside(toolchain.tsc_script)},
        {"{linker}", path_inside(toolchain.linker)},
        {"{source}", plan.source_name},              {"{output}", std::string(language.artifact)},
        {"{main}", plan.main_class},                 {"{heap_mib}", heap_mib(plan.limits)},
        {"{classpath}", java_class_path(toolchain)}};
    auto& program = plan.program;
    program.executable = toolchain.compiler;
    program.arguments = substitute(test_program ? language.test_compile_argv : language.compile_argv, values);
    program.read_only_paths = toolchain.read_only_paths;
    program.environment = toolchain.compile_environment;
    program.program_path = std::string(kWorkspace) + "/" + plan.source_name;
    program.program_source = request.code;
    program.workspace_files = workspace_entries(request.files, kWorkspace);
    if (language.artifact.ends_with('/'))  // the directory the compiler writes into (javac -d)
        program.workspace_files.insert(program.workspace_files.begin(),
                                       {std::string(kWorkspace) + "/" + std::string(language.artifact.substr(0, language.artifact.size() - 1)), {}, 0755, true});
    program.collect = {std::string(language.artifact)};
    if (!toolchain.prepared_go_cache.empty()) {
        // Go's build cache: e2beval's prepared standard library below, this compile's writes in the workspace.
        const auto lower = path_while_assembling(path_inside(toolchain.prepared_go_cache));
        const auto upper = path_while_assembling("/tmp/.cache/go-upper");
        const auto work = path_while_assembling("/tmp/.cache/go-work");
        const auto target = path_while_assembling("/tmp/.cache/go-build");
        using Kind = MountStep::Kind;
        for (const auto& directory : {path_while_assembling("/tmp/.cache"), upper, work, target})
            program.mount_steps.push_back({Kind::directory, {}, directory, {}, 0755});
        program.mount_steps.push_back({Kind::overlay, {}, target, "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work, 0});
    }
    // The key: everything that decides what the compiler makes of the program.
    std::vector<std::string> parts = {kCacheFormat, toolchain.identity};
    parts.insert(parts.end(), program.arguments.begin(), program.arguments.end());
    parts.insert(parts.end(), program.environment.begin(), program.environment.end());
    parts.push_back(plan.source_name);
    parts.push_back(request.code);
    for (const auto& file : request.files) parts.insert(parts.end(), {file.path, std::to_string(file.mode), file.data});
    for (const auto bound : {plan.limits.memory_bytes, plan.limits.file_size_bytes, plan.limits.workspace_bytes,
                             std::uint64_t{plan.limits.max_processes}, std::uint64_t{plan.limits.open_files}})
        parts.push_back(std::to_string(bound));
    plan.cache_key = compile_cache_key(parts);
    return plan;
}

// The compile stage's result from its sandbox's: which of ok / compile_error / compile_timeout /
// compile_memory_limit, and the first error line.
CompileResult compile_result(const ExecResult& ran, const CompilePlan& plan) {
    CompileResult result;
    result.exit_code = ran.exit_code;
    result.signal = ran.signal;
    result.stdout_data = ran.stdout_data;
    result.stderr_data = ran.stderr_data;
    result.stdout_truncated = ran.stdout_truncated;
    result.stderr_truncated = ran.stderr_truncated;
    result.wall_time = ran.wall_time;
    result.cpu_time = ran.cpu_time;
    result.peak_memory_bytes = ran.peak_memory_bytes;
    result.toolchain = plan.toolchain->version;
    const auto memory_text = std::to_string(plan.limits.memory_bytes / kMiB) + " MiB";
    switch (ran.outcome) {
        case Outcome::ok: result.outcome = Outcome::ok; break;
        case Outcome::timeout:
            result.outcome = Outcome::compile_timeout;
            result.detail = "the compiler was killed after the compile stage's " + compile_seconds_text(plan.limits.wall_time) +
                            " wall-clock limit (raise it with --compile-timeout, or compile_limits.wall_time_s)";
            break;
        case Outcome::cpu_limit:
            result.outcome = Outcome::compile_timeout;
            result.detail = "the compiler used more than the compile stage's " + compile_seconds_text(plan.limits.cpu_time) +
                            " cpu-time limit (compile_limits.cpu_time_s)";
            break;
        case Outcome::memory_limit:
            result.outcome = Outcome::compile_memory_limit;
            result.detail = "the compiler ran out of the compile stage's " + memory_text + " of memory (raise it with --compile-memory, "
                            "or compile_limits.memory_mb)";
            break;
        case Outcome::cancelled:
        case Outcome::sandbox_error:
            result.outcome = ran.outcome;
            result.detail = ran.detail;
            break;
        default:
            if (compiler_ran_out_of_memory(ran.stderr_data) || compiler_ran_out_of_memory(ran.stdout_data)) {
                result.outcome = Outcome::compile_memory_limit;
                result.detail = "the compiler ran out of the compile stage's " + memory_text + " of memory (raise it with "
                                "--compile-memory, or compile_limits.memory_mb)";
            } else {
                result.outcome = Outcome::compile_error;
                const auto first = first_compiler_error(ran.stderr_data, ran.stdout_data);
                result.detail = first.empty() ? "the compiler failed: " + ran.detail : first;
                if (ran.outcome == Outcome::output_limit) result.detail = "the compiler's diagnostics exceeded the output limit; " + result.detail;
            }
    }
    return result;
}

// The artifacts the descriptor names, among what the compile collected; empty when any is missing.
std::vector<WorkspaceFile> artifacts_of(const std::vector<WorkspaceFile>& collected, const LanguageDescriptor& language) {
    std::vector<WorkspaceFile> artifacts;
    for (const auto& file : collected) {
        const bool wanted = language.artifact.ends_with('/') ? file.path.starts_with(language.artifact) && file.path.size() > language.artifact.size()
                                                             : file.path == language.artifact;
        if (!wanted) continue;
        artifacts.push_back(file);
        artifacts.back().mode = language.artifact_executable ? 0755 : 0644;
    }
    return artifacts;
}

ExecResult failed_compile(CompileResult compile, const ExecResult* ran) {
    ExecResult result;
    result.outcome = compile.outcome;
    result.detail = compile.outcome == Outcome::compile_error ? "compile error: " + compile.detail : compile.detail;
    if (ran) {
        result.isolation_level = ran->isolation_level;
        result.cgroup_version = ran->cgroup_version;
        result.denied_syscalls = ran->denied_syscalls;
    }
    result.compile = std::move(compile);
    return result;
}

// The run stage: a cold sandbox whose workspace holds the artifacts (`handler` is taken only once it starts); the program is the artifact itself
// (a native binary, 0755: the workspace's tmpfs is mounted without noexec) or the runtime that runs it.
void run_stage(const std::shared_ptr<const LocalSandbox::Settings>& settings, asio::any_io_executor io, const ExecRequest& request,
               const CompilePlan& plan, std::vector<WorkspaceFile> artifacts, CompileResult compile, ResultHandler& handler) {
    const auto& language = *plan.language;
    const auto& toolchain = *plan.toolchain;
    StageProgram program;
    const std::map<std::string, std::string> values = {{"{runtime}", path_inside(toolchain.runtime)},
                                                       {"{output}", std::string(language.artifact)},
                                                       {"{main}", plan.main_class},
                                                       {"{heap_mib}", heap_mib(request.limits)},
                                                       {"{classpath}", java_class_path(toolchain)}};
    program.arguments = substitute(language.run_argv, values);
    if (toolchain.runtime.empty()) {
        program.executable = std::string(kWorkspace) + "/" + std::string(language.artifact);
    } else {
        program.executable = toolchain.runtime;
        program.read_only_paths = toolchain.read_only_paths;
        program.arguments.front() = path_inside(toolchain.runtime);
    }
    for (const auto& [name, value] : request.env) program.environment.push_back(name + "=" + value);
    std::vector<WorkspaceFile> files = request.files;
    files.insert(files.end(), std::make_move_iterator(artifacts.begin()), std::make_move_iterator(artifacts.end()));
    program.workspace_files = workspace_entries(files, kWorkspace);
    program.collect = request.collect;
    program.stdin_data = request.stdin_data;
    auto supervision = stage_request(*settings, request, request.limits, program);
    const auto slot = asio::get_associated_cancellation_slot(handler);
    supervise(std::move(io), std::move(supervision),
              asio::bind_cancellation_slot(slot, [compile = std::move(compile), handler = std::move(handler)](
                                                     boost::system::error_code refused, ExecResult ran) mutable {
                  if (refused) ran.detail = "the run stage could not start: " + ran.detail;  // outcome sandbox_error
                  ran.compile = std::move(compile);
                  std::move(handler)(std::move(ran));
              }));
}

// A cache that cannot be written (a bad E2BEVAL_COMPILE_CACHE_BYTES, a full disk) costs a compile, never a result.
void store_in_cache(const std::string& key, const CachedCompile& entry) noexcept {
    try {
        compile_cache_store(key, entry);
    } catch (...) {
    }
}


// What the compile stage's sandbox gave, as the request's result: the run stage next, or the compile's failure.
// `flight` ends once the cache holds what this compile made (or knows it will not): its waiters look it up then.
void after_compile(const std::shared_ptr<const LocalSandbox::Settings>& settings, const asio::any_io_executor& io, const ExecRequest& request,
                   const CompilePlan& plan, const ExecResult& ran, std::shared_ptr<CompileFlight> flight, ResultHandler& handler) {
    auto compile = compile_result(ran, plan);
    if (compile.outcome != Outcome::ok) {
        // A compile error is the program's own (deterministic): cached. A limit, a cancel or a sandbox
        // failure may not happen again: never cached.
        if (compile.outcome == Outcome::compile_error && ran.outcome == Outcome::exit_nonzero) store_in_cache(plan.cache_key, {compile, {}});
        flight.reset();
        return std::move(handler)(failed_compile(std::move(compile), &ran));
    }
    auto artifacts = artifacts_of(ran.collected, *plan.language);
    if (artifacts.empty()) {
        flight.reset();
        compile.outcome = Outcome::sandbox_error;
        compile.detail = "the compiler exited 0 but left no " + std::string(plan.language->artifact) + " in the workspace (or not as a regular file)";
        return std::move(handler)(failed_compile(std::move(compile), &ran));
    }
    store_in_cache(plan.cache_key, {compile, artifacts});
    flight.reset();
    try {
        run_stage(settings, io, request, plan, std::move(artifacts), compile, handler);
    } catch (const std::exception& failure) {
        // Bad input the run stage refuses (a stdin too large, ...) or a sandbox that could not start.
        auto failed = failed_compile(std::move(compile), &ran);
        failed.outcome = Outcome::sandbox_error;
        failed.detail = std::string("the run stage could not start: ") + failure.what();
        std::move(handler)(std::move(failed));
    }
}

// The compile request's isolation: no network whatever the run may have, and denied calls fail (EPERM) rather
// than kill the compiler, which is not the code under test.
ExecRequest compile_request_of(const ExecRequest& request) {
    ExecRequest compile_request = request;
    compile_request.isolation.network = false;
    compile_request.isolation.seccomp = SeccompMode::deny;
    return compile_request;
}

// The compile stage in a cold sandbox of its own.
void compile_cold(std::shared_ptr<const LocalSandbox::Settings> settings, asio::any_io_executor io, ExecRequest request,
                  std::shared_ptr<const CompilePlan> plan, std::shared_ptr<CompileFlight> flight, ResultHandler handler) {
    auto supervision = stage_request(*settings, compile_request_of(request), plan->limits, plan->program);
    supervision.read_limit_messages = false;
    const auto slot = asio::get_associated_cancellation_slot(handler);
    supervise(io, std::move(supervision),
              asio::bind_cancellation_slot(slot, [settings, io, request = std::move(request), plan, flight = std::move(flight),
                                                  handler = std::move(handler)](boost::system::error_code, ExecResult ran) mutable {
                  // A refused compile stage is a sandbox_error result like any that could not start (never cached).
                  after_compile(settings, io, request, *plan, ran, std::move(flight), handler);
              }));
}

const SeccompProgram& service_seccomp_filter(Language language) {
    static std::mutex mutex;
    static std::map<Language, SeccompProgram> programs;
    std::lock_guard lock(mutex);
    auto found = programs.find(language);
    if (found == programs.end())
        found = programs.emplace(language, compile_seccomp_filter(SeccompMode::deny, false, false, unavailable_syscalls(language))).first;
    return found->second;
}

// Whether `limits` build the same sandbox as the language's default compile limits, which a service is built with:
// everything but the wall-clock and CPU-time limits, which the host enforces per compile (`--compile-timeout`
// keeps the service; `--compile-memory` or any other compile limit takes the cold path).
bool builds_like_default(const Limits& limits, const Limits& defaults) {
    return limits.memory_bytes == defaults.memory_bytes && limits.max_processes == defaults.max_processes &&
           limits.output_bytes == defaults.output_bytes && limits.file_size_bytes == defaults.file_size_bytes &&
           limits.workspace_bytes == defaults.workspace_bytes && limits.open_files == defaults.open_files && limits.cpus == defaults.cpus;
}

// A resident service's job for this compile (resident_compiler.hpp), or nullopt for the cold path: the services
// are off, the language has none, or the compile limits build another sandbox than the language's default ones
// (builds_like_default).
// The service's sandbox is the cold compile's (stage_request with the same request, limits, toolchain paths and
// environment); its program is the service, started with the cold compiler's launcher flags (javac's -J flags,
// node's), and each compile gets the cold compiler's own arguments.
std::optional<ResidentJob> resident_job(const std::shared_ptr<const LocalSandbox::Settings>& settings, const ExecRequest& request,
                                        const CompilePlan& plan) {
    const auto language = request.language;
    if ((language != Language::java && language != Language::typescript) || !builds_like_default(plan.limits, plan.language->compile_limits) ||
        !plan.program.mount_steps.empty() || !resident_compilers_enabled())
        return std::nullopt;
    const auto& toolchain = *plan.toolchain;
    const auto& cold = plan.program.arguments;
    ResidentJob job;
    StageProgram service;
    std::vector<std::string> launcher_flags;
    std::string program_name;
    std::vector<std::string> program_arguments;
    if (language == Language::java) {
        for (std::size_t i = 1; i < cold.size(); ++i)
            (cold[i].starts_with("-J") ? launcher_flags.push_back(cold[i].substr(2)) : job.compiler_arguments.push_back(cold[i]));
        service.executable = toolchain.runtime;
        program_name = "ResidentJavac.java";  // the source-file launcher; the class needs no compile step of ours
        service.program_source = kResidentJavacSource;
    } else {
        const auto script = path_inside(toolchain.tsc_script);
        const auto at = std::find(cold.begin(), cold.end(), script);
        if (at == cold.end()) return std::nullopt;
        launcher_flags.assign(cold.begin() + 1, at);
        job.compiler_arguments.assign(at + 1, cold.end());
        service.executable = toolchain.compiler;
        program_name = "resident_tsc.js";
        service.program_source = kResidentTscSource;
        program_arguments.push_back(path_inside((std::filesystem::path(toolchain.tsc_script).parent_path() / "typescript.js").string()));
    }
    program_arguments.insert(program_arguments.end(), {std::string(plan.language->artifact), std::to_string(plan.limits.output_bytes)});
    service.arguments = {path_inside(service.executable)};
    service.arguments.insert(service.arguments.end(), launcher_flags.begin(), launcher_flags.end());
    service.arguments.push_back(program_name);
    service.arguments.insert(service.arguments.end(), program_arguments.begin(), program_arguments.end());
    service.program_path = std::string(kWorkspace) + "/" + program_name;
    service.read_only_paths = plan.program.read_only_paths;
    service.environment = plan.program.environment;

    job.language = std::string(plan.language->name);
    job.files.push_back({plan.source_name, 0644, request.code});
    for (const auto& file : request.files) job.files.push_back({file.path, file.mode, file.data});
    job.limits = plan.limits;
    job.owner = settings;
    job.service_key = job.language + "\n" + toolchain.identity + "\n" + std::to_string(reinterpret_cast<std::uintptr_t>(settings.get()));
    for (const auto& part : service.arguments) job.service_key += "\n" + part;
    for (const auto& part : service.environment) job.service_key += "\n" + part;
    job.build_service = [settings, compile_request = compile_request_of(request), limits = plan.limits, service = std::move(service)] {
        auto supervision = stage_request(*settings, compile_request, limits, service);
        // The service lives across compiles: no CPU-time rlimit for its lifetime; the host enforces each compile's.
        for (auto& limit : supervision.plan.rlimits)
            if (limit.resource == RLIMIT_CPU) limit.soft = limit.hard = RLIM_INFINITY;
        // The cold compile's filter in the same deny mode, answering EPERM itself: a cold compile's supervisor answers
        // the user-notification listener a reporting filter uses, and a service has nobody reading it (its compiler
        // would wait forever on the first denied call).
        supervision.plan.seccomp_filter = service_seccomp_filter(compile_request.language).instructions;
        supervision.plan.seccomp_reports_denials = false;
        supervision.read_limit_messages = false;
        return supervision;
    };
    return job;
}

}  // namespace

Limits compile_limits_of(const ExecRequest& request) {
    return request.compile_limits ? *request.compile_limits : describe(request.language).compile_limits;
}

std::string first_compiler_error(const std::string& stderr_data, const std::string& stdout_data) {
    for (const auto* output : {&stderr_data, &stdout_data}) {
        std::string fallback;
        std::size_t start = 0;
        while (start < output->size()) {
            const auto end = std::min(output->find('\n', start), output->size());
            std::string line = output->substr(start, end - start);
            start = end + 1;
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
            if (line.empty() || line.front() == '#' || std::isspace(static_cast<unsigned char>(line.front()))) continue;
            std::string lower = line;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (lower.find("error") != std::string::npos) return line.size() > 500 ? line.substr(0, 500) + "..." : line;
            if (fallback.empty() && line.find(':') != std::string::npos) fallback = line;
        }
        if (!fallback.empty()) return fallback.size() > 500 ? fallback.substr(0, 500) + "..." : fallback;
    }
    return {};
}

namespace {

// The compile cache, else the compile (or a wait for the same compile in flight), then the run stage.
void compile_then_run(std::shared_ptr<const LocalSandbox::Settings> settings, asio::any_io_executor io, ExecRequest request,
                      std::shared_ptr<const CompilePlan> plan, ResultHandler handler) {
    if (auto cached = compile_cache_lookup(plan->cache_key)) {
        cached->result.cached = true;
        cached->result.toolchain = plan->toolchain->version;
        if (cached->result.outcome != Outcome::ok) {
            auto result = failed_compile(std::move(cached->result), nullptr);
            asio::post(io, [result = std::move(result), handler = std::move(handler)]() mutable { std::move(handler)(std::move(result)); });
            return;
        }
        return run_stage(settings, std::move(io), request, *plan, std::move(cached->artifacts), std::move(cached->result), handler);
    }
    // The same program compiling now for another judging (pass@k's identical samples, --jobs at a time): wait for
    // that compile, then look the cache up again. A waiter is not cancellable while it waits; the compile it waits
    // for ends within its own compile limit.
    std::shared_ptr<CompileFlight> flight = begin_compile_flight(plan->cache_key, [&]() -> asio::any_completion_handler<void()> {
        return [settings, io, request = std::move(request), plan, handler = std::move(handler)]() mutable {
            asio::post(io, [settings, io, request = std::move(request), plan, handler = std::move(handler)]() mutable {
                compile_then_run(settings, io, std::move(request), plan, std::move(handler));
            });
        };
    });
    if (!flight) return;
    if (auto job = resident_job(settings, request, *plan)) {
        // The handler is move-only and the service completes on its worker thread: both continuations go back to
        // `io` through a shared holder.
        auto held = std::make_shared<ResultHandler>(std::move(handler));
        compile_resident(std::move(*job), [settings, io, request = std::move(request), plan, held, flight](std::optional<ExecResult> ran) mutable {
            asio::post(io, [settings, io, request = std::move(request), plan, held, flight, ran = std::move(ran)]() mutable {
                if (ran) return after_compile(settings, io, request, *plan, *ran, std::move(flight), *held);
                try {  // the service could not answer: the cold compile decides
                    compile_cold(settings, io, std::move(request), plan, std::move(flight), std::move(*held));
                } catch (const std::exception& failure) {
                    if (!*held) return;  // the handler was taken: it completes
                    ExecResult failed;
                    failed.outcome = Outcome::sandbox_error;
                    failed.detail = std::string("the compile stage could not start: ") + failure.what();
                    std::move(*held)(std::move(failed));
                }
            });
        });
        return;
    }
    compile_cold(std::move(settings), std::move(io), std::move(request), plan, std::move(flight), std::move(handler));
}

}  // namespace

void run_compiled(std::shared_ptr<const LocalSandbox::Settings> settings, asio::any_io_executor io, ExecRequest request,
                  ResultHandler handler) {
    if (request.stdin_data.size() > (1u << 20))  // refused before anything runs, as a cold run refuses it
        throw sandbox_error("stdin for the sandbox is larger than 1 MiB; pass the data as a file instead", errc::invalid_input);
    auto plan = std::make_shared<const CompilePlan>(plan_compile(*settings, request));  // throws: toolchain missing
    compile_then_run(std::move(settings), std::move(io), std::move(request), std::move(plan), std::move(handler));
}

}  // namespace e2beval::local
