// Resident compile services (docs/sandbox.md, "Resident compilers"): for Java and TypeScript, whose compilers
// spend most of a cold compile starting up (the JVM loading and JIT-compiling javac; node loading TypeScript
// and parsing and checking its standard library), a compile sandbox that stays up and compiles one program
// after another, compile-only (ResidentJavac.java, resident_tsc.js). Its sandbox is built exactly as a cold
// compile's (compile_stage.cpp hands over the SupervisionRequest), except that its CPU-time rlimit is lifted:
// it lives across compiles, and the host enforces each compile's wall-clock and CPU-time limits instead.
//
// Ownership and lifetime: a process-wide registry of pools, one per (sandbox owner, language, toolchain,
// arguments). Each service is owned by one worker thread, which takes the pool's queued compiles one at a
// time; its sandbox is spawned on the session keeper's thread, so its init lives as long as the process
// (PR_SET_PDEATHSIG fires when the spawning thread ends, session_keeper.hpp). A service ends when its compile
// runs out of time, when it fails or runs out of memory, after kCompilesPerService compiles, when idle for
// kIdleLifetime, when its owner (the LocalSandbox's settings) is gone, and at process exit.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "e2beval/core/types.hpp"
#include "local/supervisor.hpp"

namespace e2beval::local {

// Compiles per service before it is replaced (bounded state inside it, bounded blast radius of anything a
// compile could leave behind in the compiler's process).
inline constexpr unsigned kCompilesPerService = 200;
// An idle service ends after this long (a process that compiles once does not keep a JVM for its lifetime).
inline constexpr std::chrono::seconds kIdleLifetime{60};

struct ResidentFile {
    std::string path;  // relative to the workspace
    std::uint32_t mode = 0644;
    std::string data;
};

struct ResidentJob {
    std::string language;  // its name ("java"), for resident_services()
    // Same key, same service: what its sandbox and program were built from.
    std::string service_key;
    // The service's sandbox, built on demand on a worker thread (nothing else is needed to start one).
    std::function<SupervisionRequest()> build_service;
    // The compiler's own arguments, the cold compile's after its launcher's flags (javac's -J..., node's).
    std::vector<std::string> compiler_arguments;
    std::vector<ResidentFile> files;
    Limits limits;  // the compile stage's
    // The services of one owner (a LocalSandbox's settings) end soon after the owner is gone.
    std::weak_ptr<const void> owner;
};

// The compile's result as a cold compile's sandbox would give it (outcome ok / exit_nonzero / output_limit /
// timeout / cpu_limit, compiler output, `collected` = the artifacts), or nullopt: compile it cold (the service
// could not start, died, ran out of memory or failed; a cold compile then gives exactly the cold outcome).
using ResidentDone = std::function<void(std::optional<ExecResult>)>;

// Queues `job` for a service of its key; `done` is called exactly once, on a worker thread.
void compile_resident(ResidentJob job, ResidentDone done);

// E2BEVAL_RESIDENT_COMPILERS: unset or "1" on, "0" off (every compile cold). Read on each call.
bool resident_compilers_enabled();

// The most services a pool runs at once: the CPUs (a compile keeps one busy), at most 4 (each holds a JVM or a
// node with its compiler's state, up to the compile stage's memory limit).
unsigned resident_pool_size();

// The live services (their sandbox init's pid), for tests and `e2beval doctor`.
struct ResidentServiceInfo {
    std::string language;
    int pid = -1;
    unsigned compiles = 0;
};
std::vector<ResidentServiceInfo> resident_services();

}  // namespace e2beval::local
