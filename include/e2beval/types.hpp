// The vocabulary every component shares: languages, limits, execution requests and results.
// Plain value types only; nothing here owns a resource or talks to the OS.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace e2beval {

enum class Language { python, javascript, bash };

std::string_view to_string(Language language) noexcept;
// Accepts the tags models write on fences: "python", "py", "python3", "js", "node", "sh", ...
std::optional<Language> language_from_tag(std::string_view tag) noexcept;

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
};

std::string_view to_string(Outcome outcome) noexcept;
std::optional<Outcome> outcome_from_string(std::string_view name) noexcept;

struct ExecRequest {
    Language language = Language::python;
    std::string code;
    std::string stdin_data;
    // Variables the caller wants the code to see; nothing from the host's environment is passed otherwise.
    std::map<std::string, std::string> env;
    Limits limits;
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
    // One sentence a user can act on, e.g. "killed after the 10 s wall-clock limit".
    std::string detail;

    bool succeeded() const noexcept { return outcome == Outcome::ok; }
};

}  // namespace e2beval
