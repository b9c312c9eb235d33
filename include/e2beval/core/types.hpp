// The vocabulary every component shares: languages, limits, execution requests and results.
// Plain value types only; nothing here owns a resource or talks to the OS.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace e2beval {

// Every language has a descriptor (e2beval/core/language.hpp): its names, files, toolchain and stages.
enum class Language { python, javascript, bash, c, cpp, go, rust, java, typescript };

std::string_view to_string(Language language) noexcept;
// Accepts the tags models write on fences: "python", "py", "python3", "js", "node", "sh", "c++", "golang", ...
std::optional<Language> language_from_tag(std::string_view tag) noexcept;
// The language a file's name says by its extension: .py; .js, .mjs, .cjs; .sh, .bash; .c; .cpp, .cc, .cxx; .go;
// .rs; .java; .ts, .mts (any case). nullopt for another extension or none. The names of every language live in
// its descriptor (src/core/languages/<name>.cpp).
std::optional<Language> language_from_file_name(std::string_view path) noexcept;
// The extensions language_from_file_name reads as `language`, for messages: ".js, .mjs, .cjs".
std::string file_extensions_text(Language language);
// Every language's canonical name, for messages: "python, javascript, bash, c, cpp, ...".
std::string language_names_text();

inline constexpr std::uint64_t kMiB = 1024ull * 1024ull;

// Hard limits for one execution. Defaults are documented in docs/sandbox.md.
struct Limits {
    std::chrono::milliseconds wall_time{10'000};
    std::chrono::milliseconds cpu_time{5'000};
    std::uint64_t memory_bytes = 256 * kMiB;
    std::uint32_t max_processes = 64;
    std::uint64_t output_bytes = 1 * kMiB;  // per stream (stdout, stderr)
    std::uint64_t file_size_bytes = 16 * kMiB;
    std::uint64_t workspace_bytes = 64 * kMiB;
    std::uint32_t open_files = 256;
    // CPUs' worth of run time the whole tree may use at once (the cgroup's CPU quota: 0.5 is half of one CPU,
    // 2 is two CPUs); 0 is no cap. A cap needs the cgroup cpu controller: without it the request is refused.
    double cpus = 0;
};

// How an execution ended, in the order a grader would explain it (isolate's TO, SG, RE, XX, plus memory).
enum class Outcome {
    ok,
    exit_nonzero,
    signaled,
    timeout,
    cpu_limit,
    memory_limit,
    output_limit,
    file_limit,
    pids_limit,
    seccomp_violation,
    sandbox_error,
    cancelled,  // the caller cancelled the execution (Asio per-operation cancellation): killed, nothing judged
    // A compiled language's compile stage failed, so the program never ran (ExecResult::compile says why):
    compile_error,         // the compiler rejected the program (its first error is in the detail)
    compile_timeout,       // the compiler ran out of its wall-clock or CPU time
    compile_memory_limit,  // the compiler ran out of memory
};

std::string_view to_string(Outcome outcome) noexcept;
std::optional<Outcome> outcome_from_string(std::string_view name) noexcept;

// ExecResult::detail of an output_limit outcome, the same from every backend: what was written, and the two names
// of the limit a user can raise (`--output-limit` on the command line, `limits.output_bytes` everywhere else).
std::string output_limit_detail(std::uint64_t limit_bytes, std::string_view stream);

// What happens when sandboxed code makes a system call the seccomp filter denies. Either way the call
// is reported in ExecResult::denied_syscalls.
enum class SeccompMode {
    deny,  // the call fails with EPERM and the program goes on
    kill,  // the sandbox is killed at the first denied call (outcome seccomp_violation)
};

// How strongly the local sandbox must isolate. The backend refuses to run below the requested minimum
// (never a silent downgrade); `e2beval doctor` shows what this host allows.
enum class IsolationLevel {
    standard,  // user, pid, mount, net, ipc, uts and cgroup namespaces; seccomp; rlimits
    full,      // standard plus a cgroup for memory, pids and cpu limits and accounting
};

std::string_view to_string(SeccompMode mode) noexcept;
std::string_view to_string(IsolationLevel level) noexcept;
std::optional<SeccompMode> seccomp_mode_from_string(std::string_view name) noexcept;
std::optional<IsolationLevel> isolation_level_from_string(std::string_view name) noexcept;

// The isolation knobs a caller may turn. Defaults are the safe choice; see docs/sandbox.md.
struct IsolationProfile {
    bool network = false;  // opt-in: true shares the host's network namespace (the code can reach the network)
    SeccompMode seccomp = SeccompMode::deny;
    IsolationLevel minimum_level = IsolationLevel::standard;

    // Ordered, so a warm pool can keep zygotes per whole profile (each knob changes what a zygote enforces).
    friend auto operator<=>(const IsolationProfile&, const IsolationProfile&) = default;
};

// A file in the sandbox's workspace: written there before the program runs (ExecRequest::files), or brought back
// after it ends (ExecResult::collected). `path` is relative to the workspace, without "..".
struct WorkspaceFile {
    std::string path;
    std::string data;
    std::uint32_t mode = 0644;
};

struct ExecRequest {
    Language language = Language::python;
    std::string code;
    std::string stdin_data;
    // Variables the caller wants the code to see; nothing from the host's environment is passed otherwise.
    std::map<std::string, std::string> env;
    Limits limits;
    IsolationProfile isolation;
    // The template (docs/templates.md) whose environment runs the code; empty: the default environment.
    std::string template_name;
    // A compiled language's compile stage: its limits (nullopt: the language's defaults, docs/languages.md).
    std::optional<Limits> compile_limits;
    // Local backend: files written into the workspace before the program starts, and workspace paths brought
    // back after it ends (each a regular file, capped; a path ending in '/' is a directory's regular files).
    std::vector<WorkspaceFile> files;
    std::vector<std::string> collect;
};

// The compile stage of a compiled language: the compiler's own result, beside the program's.
struct CompileResult {
    Outcome outcome = Outcome::sandbox_error;  // ok, compile_error, compile_timeout, compile_memory_limit, sandbox_error, cancelled
    int exit_code = -1;
    int signal = 0;
    std::string stdout_data;  // the compiler's output, capped at the compile limits' output_bytes
    std::string stderr_data;
    bool stdout_truncated = false;
    bool stderr_truncated = false;
    std::chrono::nanoseconds wall_time{0};
    std::chrono::nanoseconds cpu_time{0};
    std::optional<std::uint64_t> peak_memory_bytes;
    bool cached = false;    // taken from the compile cache: no compiler ran
    std::string toolchain;  // "g++ (Debian 12.2.0-14) 12.2.0"
    std::string detail;     // the first error line, or which limit ended it
};

struct ExecResult {
    Outcome outcome = Outcome::sandbox_error;
    int exit_code = -1;  // valid when the program exited
    int signal = 0;      // valid when it was killed by a signal
    std::string stdout_data;
    std::string stderr_data;
    bool stdout_truncated = false;
    bool stderr_truncated = false;
    std::chrono::nanoseconds wall_time{0};
    std::chrono::nanoseconds cpu_time{0};
    std::optional<std::uint64_t> peak_memory_bytes;
    // System calls the seccomp filter denied, by name, in the order first seen (each once).
    std::vector<std::string> denied_syscalls;
    // The isolation that was in force: "full" or "standard", and the cgroup mechanism ("v1", "v2", "none").
    std::string isolation_level;
    std::string cgroup_version;
    bool warm = false;  // run by a warm-pool zygote (same isolation, no interpreter start-up)
    std::string backend;  // which backend ran it: "local" or "e2b"
    // One sentence a user can act on, e.g. "killed after the 10 s wall-clock limit".
    std::string detail;
    // A compiled language's compile stage (absent for an interpreted one). When it failed, `outcome` is its
    // compile_* outcome and the program never ran.
    std::optional<CompileResult> compile;
    // What ExecRequest::collect brought back, in the order found.
    std::vector<WorkspaceFile> collected;

    bool succeeded() const noexcept { return outcome == Outcome::ok; }
};

}  // namespace e2beval
