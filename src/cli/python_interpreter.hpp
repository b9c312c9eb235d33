// The Python interpreter a command runs code with (--python, else $E2BEVAL_PYTHON, else python3 on PATH), checked
// before any sandbox is built: a wrong path is the user's to fix, not a host that cannot sandbox.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::cli {

struct PythonChoice {
    std::string interpreter;  // a path or a name looked up on PATH, as LocalSandbox will use it
    std::string source;       // where it came from, for messages: "--python", "$E2BEVAL_PYTHON" or "the default"
};

// The interpreter LocalSandbox will use given the --python option (empty or absent: not given).
PythonChoice chosen_python(const std::optional<std::string>& option);

struct InterpreterProblem {
    int exit_status;      // kExitInterpreterNotFound or kExitInterpreterUnusable
    std::string message;  // what is wrong and what to do
};

// nullopt when `choice` exists, is executable and answers as a Python interpreter (the discovery LocalSandbox
// would do, through the on-disk cache of interpreter_cache.hpp); its answer goes to `found` when given.
std::optional<InterpreterProblem> python_problem(const PythonChoice& choice, InterpreterInfo* found = nullptr);

// Thrown by require_working_python; main() prints its message and exits with its status.
class interpreter_error : public std::runtime_error {
public:
    explicit interpreter_error(const InterpreterProblem& problem)
        : std::runtime_error(problem.message), exit_status_(problem.exit_status) {}
    int exit_status() const noexcept { return exit_status_; }

private:
    int exit_status_;
};

// The interpreter's description, to hand to LocalSandboxOptions::python_info so it is not asked again.
InterpreterInfo require_working_python(const PythonChoice& choice);

}  // namespace e2beval::cli
