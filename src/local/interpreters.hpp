// The interpreters on the host and how each language's program starts in the sandbox: which binary, which
// arguments, which host paths it needs mounted, its rlimits and the system calls it may not even try.
#pragma once

#include <string>
#include <vector>

#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/core/types.hpp"
#include "local/spawn_plan.hpp"

namespace e2beval::local {

// What any dynamically linked interpreter needs from the host, read-only. Nothing else of the host's
// filesystem (home directories, /root, /work, /tmp, /etc) is visible inside.
extern const std::vector<std::string> kSystemPaths;

// `path` is `directory` or below it.
bool is_under(const std::string& path, const std::string& directory);

// Runs a trusted host command (an interpreter asked where it lives; never user code) and returns its
// stdout. Throws sandbox_error naming the command, ending with `fix` when it cannot run or fails.
std::string run_host_command(const std::vector<std::string>& command, const std::string& fix);

// The Node.js to use: `configured` (LocalSandboxOptions::node_executable) when set, else $E2BEVAL_NODE,
// else `node` (looked up on PATH).
std::string configured_node(const std::string& configured);

// Asks `node` (a path or a name on PATH) for its real binary and version; read_only_paths holds its
// install prefix when that is outside kSystemPaths. Cached per name. Throws sandbox_error saying how to
// point e2beval at a Node.js when it cannot be run.
InterpreterInfo discover_node(const std::string& node);

// How one execution's program starts: the code is written to `program_path` in the workspace and run as
// `arguments` + program_path by `executable`.
struct ProgramCommand {
    std::string program_path;
    std::string executable;
    std::vector<std::string> arguments;        // argv before the program file
    std::vector<std::string> read_only_paths;  // host paths the interpreter needs besides kSystemPaths
};

// `python` is the sandbox's Python; `node` the result of configured_node() (discovered here, on first use).
// Throws sandbox_error when the language's interpreter is missing on this host.
ProgramCommand program_command(Language language, const std::string& workspace, const InterpreterInfo& python,
                               const std::string& node, const Limits& limits);

// System calls the language's runtime tries at every start although the seccomp filter denies them: they
// fail with ENOSYS, unreported, so they neither fill denied_syscalls nor kill the program in kill mode.
// Node.js: libuv (1.49+) sets up an io_uring for epoll batching whatever UV_USE_IO_URING says, and falls
// back to epoll_ctl when the kernel has none. JavaScript cannot make raw system calls itself.
const std::vector<std::string>& unavailable_syscalls(Language language);

// Adjusts the rlimits of plan_rlimits() for the language's interpreter (V8 reserves far more address
// space than it uses, so Node gets RLIMIT_DATA instead of a tight RLIMIT_AS).
void adapt_rlimits(Language language, const Limits& limits, bool cgroup, std::vector<RlimitSetting>& rlimits);

// A limit a program can run into without a signal or a cgroup event: the interpreter reports the failed
// allocation, fork or write and exits.
enum class LimitKind { memory, processes, file_size };

// True when the end of `stderr_data` holds what `language`'s interpreter prints when `limit` made it fail
// (Python's MemoryError, V8's "JavaScript heap out of memory", bash's "fork: Resource temporarily unavailable").
bool stderr_reports_limit(Language language, LimitKind limit, const std::string& stderr_data);

// Throws input_error naming the smallest workable value when `limits` leave too little memory for any
// interpreter to start (the loader would fail before the code ran).
void check_memory_floor(const Limits& limits);

}  // namespace e2beval::local
