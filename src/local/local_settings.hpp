// What every execution and session of a LocalSandbox is built from, shared by the one-shot path
// (local_sandbox.cpp) and sessions (session.cpp). Held by shared_ptr: an execution in flight keeps it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "e2beval/local/local_sandbox.hpp"
#include "local/supervisor.hpp"

namespace e2beval {

struct LocalSandbox::Settings {
    LocalSandboxOptions options;
    InterpreterInfo python;
};

namespace local {

// Throws input_error for limits no interpreter starts in and for environment variables the kernel cannot pass
// (a name that is empty or holds '=' or NUL, a value with NUL): one-shot executions and sessions alike.
void check_limits_and_environment(const Limits& limits, const std::map<std::string, std::string>& env);

// What a session's root filesystem has beyond a one-shot execution's (session.cpp).
struct FilesystemAdditions {
    std::vector<std::string> read_only_paths;  // host paths to mount besides the language's own (a session's Node.js)
    std::string home_directory;                // a home beside /tmp (mountns.hpp); empty: /tmp is the home
    std::string login_shell = "/bin/sh";       // the sandbox user's shell in /etc/passwd
};

// The sandbox for `request`: its root filesystem (unless `with_filesystem` is false: a warm child inherits its
// zygote's), identity, program, environment, rlimits and seccomp filter.
SupervisionRequest base_request(const LocalSandbox::Settings& settings, const ExecRequest& request, bool with_filesystem,
                                const FilesystemAdditions& additions = {});

// One stage of a compiled language (compile_stage.cpp): a program that is not the language's interpreter, with the
// files, mounts and environment it needs.
struct StageProgram {
    std::string executable;                    // host path of the program (the sandbox sees it at path_inside)
    std::vector<std::string> arguments;        // argv; argv[0] as given
    std::vector<std::string> read_only_paths;  // host paths to mount besides kSystemPaths
    std::vector<std::string> environment;      // NAME=value, after the base environment
    std::string program_path;                  // the source file (inside), or empty
    std::string program_source;
    std::vector<SpawnPlan::WorkspaceEntry> workspace_files;
    std::vector<std::string> collect;
    std::vector<MountStep> mount_steps;        // applied just before the sandbox enters its root
    std::string stdin_data;
};

// The sandbox for one stage of `request` (its language, isolation and template) under `limits`: the same root
// filesystem, identity, rlimits and seccomp filter as base_request builds, with `program` instead of the
// language's interpreter.
SupervisionRequest stage_request(const LocalSandbox::Settings& settings, const ExecRequest& request, const Limits& limits,
                                 const StageProgram& program);

class PoolableSession;

// Starts a session's sandbox (session.cpp) and returns at once: the caller waits until its agent is ready
// (PoolableSession::wait_until_ready). Its lifetime has not begun: the caller hands it out
// (PoolableSession::hand_out) or keeps it in the pool.
std::shared_ptr<PoolableSession> start_session(const LocalSandbox::Settings& settings, const SessionOptions& options);

}  // namespace local
}  // namespace e2beval
