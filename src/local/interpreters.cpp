// The interpreters on the host (Python is found by discover_python in local_sandbox.cpp, Node.js here, bash
// at /bin/bash) and the command line, mounts, environment and rlimits each language's program gets.
#include "local/interpreters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>

#include "core/host_command.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"


namespace e2beval::local {

const std::vector<std::string> kSystemPaths = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache", "/etc/localtime",
    // Debian links awk, cc, java and others through it (a bash answer calling awk found nothing): links only.
    "/etc/alternatives",
};

namespace {

constexpr const char* kBash = "/bin/bash";

// Node without a cgroup: the V8 heap gets half the memory limit, so a program that fills it ends with V8's
// "JavaScript heap out of memory" before RLIMIT_DATA makes V8 fail less legibly; RLIMIT_DATA (private
// writable memory: the heap, Buffers, malloc) is the limit plus what Node itself uses before running any
// code (about 50 MiB). V8 and WebAssembly reserve gigabytes of address space they never touch, so
// RLIMIT_AS only stops runaway reservations.
constexpr std::uint64_t kNodeRuntimeBytes = 64 * kMiB;
constexpr std::uint64_t kNodeReservationBytes = 16 * 1024 * kMiB;

std::uint64_t node_heap_mib(const Limits& limits) { return std::max<std::uint64_t>(16, limits.memory_bytes / kMiB / 2); }

}  // namespace

bool is_under(const std::string& path, const std::string& directory) {
    return path == directory || (path.size() > directory.size() && path.compare(0, directory.size(), directory) == 0 &&
                                 path[directory.size()] == '/');
}

std::string run_host_command(const std::vector<std::string>& command, const std::string& fix) {
    HostCommandResult result;
    try {
        result = run_on_host(command);
    } catch (const io_error& failure) {
        throw sandbox_error(std::string(failure.what()) + "; " + fix);
    }
    if (result.exit_status != 0) {
        // The command's own last words say why (a missing module, a compile error in Go's standard library).
        std::string_view said = result.errors;
        while (!said.empty() && (said.back() == '\n' || said.back() == '\r' || said.back() == ' ')) said.remove_suffix(1);
        const auto line_start = said.find_last_of('\n');
        const auto last_line = std::string(said.substr(line_start == std::string_view::npos ? 0 : line_start + 1));
        throw sandbox_error("`" + command[0] + "` did not run (" +
                            (result.exit_status < 0 ? std::string("killed by a signal") : "exit status " + std::to_string(result.exit_status)) +
                            (last_line.empty() ? std::string() : ": " + last_line) + "); " + fix);
    }
    return std::move(result.output);
}

std::string configured_node(const std::string& configured) {
    if (!configured.empty()) return configured;
    const char* from_env = std::getenv("E2BEVAL_NODE");
    return from_env && *from_env ? from_env : "node";
}

InterpreterInfo discover_node(const std::string& node) {
    static std::mutex mutex;
    static std::map<std::string, InterpreterInfo> cache;
    std::lock_guard lock(mutex);
    if (auto found = cache.find(node); found != cache.end()) return found->second;

    const std::string fix = "JavaScript runs with Node.js: install it, or set E2BEVAL_NODE to the path of a node binary";
    // Ask node itself: a version manager's shim or wrapper script resolves to the real binary.
    std::istringstream lines(run_host_command(
        {node, "-e", "console.log(require('fs').realpathSync(process.execPath)); console.log(process.versions.node)"}, fix));
    InterpreterInfo info;
    std::getline(lines, info.executable);
    std::getline(lines, info.version);
    if (info.executable.empty() || info.executable[0] != '/')
        throw sandbox_error("could not find the real path of `" + node + "`; " + fix);
    // The install prefix (PREFIX/bin/node) holds what a node build may load besides the system's libraries.
    const std::filesystem::path binary(info.executable);
    const bool in_bin = binary.parent_path().filename() == "bin";
    const std::string needed = in_bin ? binary.parent_path().parent_path().string() : info.executable;
    const bool covered = std::any_of(kSystemPaths.begin(), kSystemPaths.end(),
                                     [&](const std::string& system_path) { return is_under(needed, system_path); });
    if (!covered && needed != "/") info.read_only_paths.push_back(needed);
    cache.emplace(node, info);
    return info;
}

ProgramCommand program_command(Language language, const std::string& workspace, const InterpreterInfo& python,
                               const std::string& node, const Limits& limits) {
    ProgramCommand command;
    switch (language) {
        case Language::python:
            command.program_path = workspace + "/main.py";
            command.executable = python.executable;
            // -I: ignore PYTHON* variables and user site-packages; -B: no .pyc writes; -u: output reaches us
            // even when the program is killed at its timeout.
            command.arguments = {python.executable, "-I", "-B", "-u"};
            command.read_only_paths = python.read_only_paths;
            break;
        case Language::javascript: {
            const auto info = discover_node(node);
            // A file, not --eval: stack traces then name main.js and its lines.
            command.program_path = workspace + "/main.js";
            command.executable = info.executable;
            command.arguments = {info.executable, "--max-old-space-size=" + std::to_string(node_heap_mib(limits))};
            command.read_only_paths = info.read_only_paths;
            break;
        }
        case Language::bash:
            if (::access(kBash, X_OK) != 0)
                throw sandbox_error(std::string("bash programs run with ") + kBash + ", which this host does not have; install bash");
            command.program_path = workspace + "/main.sh";
            command.executable = kBash;
            command.arguments = {kBash};  // not a login shell: no profile files are read
            break;
        case Language::c:
        case Language::cpp:
        case Language::go:
        case Language::rust:
        case Language::java:
        case Language::typescript:
            throw sandbox_error(std::string(describe(language).display_name) +
                                    " programs need a compile stage, which the local backend does not have yet",
                                errc::unsupported);
    }
    return command;
}

const std::vector<std::string>& unavailable_syscalls(Language language) {
    static const std::vector<std::string> kNone;
    static const std::vector<std::string> kNode = {"io_uring_setup"};
    return language == Language::javascript || language == Language::typescript ? kNode : kNone;
}

void adapt_rlimits(Language language, const Limits& limits, bool cgroup, std::vector<RlimitSetting>& rlimits) {
    // V8, the JVM and Go's runtime reserve address space they never touch (the JVM: its heap, code cache and
    // class space; Go: its heap arenas), as node does.
    if (!describe(language).reserves_address_space) return;
    // With a cgroup, it limits the memory of the whole tree; an address-space cap would only stop V8 from
    // starting (it reserves ~1 GiB before running anything).
    const rlim_t address_space = cgroup ? RLIM_INFINITY : limits.memory_bytes + kNodeReservationBytes;
    for (auto& setting : rlimits)
        if (setting.resource == RLIMIT_AS) setting.soft = setting.hard = address_space;
    if (!cgroup && language == Language::javascript) {
        const rlim_t data = limits.memory_bytes + kNodeRuntimeBytes;
        rlimits.push_back({RLIMIT_DATA, data, data, "RLIMIT_DATA"});
    }
}

// Below this no interpreter starts: Python needs about 16 MiB of address space before it runs a line
// (measured: 12 MiB fails, 16 MiB runs `import json, re`), and a limit that only makes the loader fail
// ("failed to map segment") tells the user nothing about their code. Refused up front instead.
constexpr std::uint64_t kMinimumMemoryBytes = 16 * kMiB;

void check_memory_floor(const Limits& limits) {
    if (limits.memory_bytes >= kMinimumMemoryBytes) return;
    char given[32];
    std::snprintf(given, sizeof given, "%.3g", static_cast<double>(limits.memory_bytes) / static_cast<double>(kMiB));
    throw input_error(std::string("a memory limit of ") + given + " MiB is too small for an interpreter to start; the smallest is " +
                      std::to_string(kMinimumMemoryBytes / kMiB) + " MiB (--memory " + std::to_string(kMinimumMemoryBytes / kMiB) +
                      ", limits.memory_mb: " + std::to_string(kMinimumMemoryBytes / kMiB) + ")");
}

bool stderr_reports_limit(Language language, LimitKind limit, const std::string& stderr_data) {
    using Messages = std::vector<std::string_view>;
    // What each interpreter prints when an allocation, a fork or a write fails for a limit.
    static const std::map<std::pair<Language, LimitKind>, Messages> kMessages = {
        {{Language::python, LimitKind::memory}, {"MemoryError"}},
        {{Language::python, LimitKind::processes}, {"BlockingIOError: [Errno 11]"}},
        {{Language::python, LimitKind::file_size}, {"File too large"}},
        {{Language::javascript, LimitKind::memory},
         {"JavaScript heap out of memory", "Array buffer allocation failed", "Fatal process out of memory", "std::bad_alloc"}},
        {{Language::javascript, LimitKind::processes}, {" EAGAIN"}},  // Error: spawnSync /bin/sh EAGAIN
        {{Language::javascript, LimitKind::file_size}, {"EFBIG"}},
        {{Language::bash, LimitKind::memory}, {"xmalloc: cannot allocate", "xrealloc: cannot allocate", "Cannot allocate memory"}},
        {{Language::bash, LimitKind::processes}, {"Resource temporarily unavailable"}},  // fork: retry: ...
        {{Language::bash, LimitKind::file_size}, {"File too large"}},
        // The compiled languages' run stages (never their compile stages: SupervisionRequest::read_limit_messages).
        {{Language::typescript, LimitKind::memory},
         {"JavaScript heap out of memory", "Array buffer allocation failed", "Fatal process out of memory", "std::bad_alloc"}},
        {{Language::typescript, LimitKind::processes}, {" EAGAIN"}},
        {{Language::cpp, LimitKind::memory}, {"std::bad_alloc"}},
        {{Language::java, LimitKind::memory}, {"java.lang.OutOfMemoryError", "Cannot reserve enough memory", "Could not reserve enough space"}},
        {{Language::java, LimitKind::processes}, {"unable to create native thread"}},
        {{Language::go, LimitKind::memory}, {"fatal error: runtime: out of memory"}},
        {{Language::go, LimitKind::processes}, {"failed to create new OS thread"}},
        {{Language::rust, LimitKind::memory}, {"memory allocation of"}},
    };
    // The dynamic loader's words when the interpreter cannot even be mapped into memory, whatever the language.
    static const Messages kLoaderOutOfMemory = {"failed to map segment from shared object", "cannot allocate memory in static TLS block"};
    const auto found = kMessages.find({language, limit});
    if (found == kMessages.end()) return false;
    // Only the end (V8 follows its message with a native stack trace): the program's own output earlier
    // on may mention anything.
    constexpr std::size_t kTail = 16 * 1024;
    const auto tail = std::string_view(stderr_data).substr(stderr_data.size() > kTail ? stderr_data.size() - kTail : 0);
    const auto mentions = [&](std::string_view message) { return tail.find(message) != std::string_view::npos; };
    if (limit == LimitKind::memory && std::any_of(kLoaderOutOfMemory.begin(), kLoaderOutOfMemory.end(), mentions)) return true;
    return std::any_of(found->second.begin(), found->second.end(), mentions);
}

}  // namespace e2beval::local
