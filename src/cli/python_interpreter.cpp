// Checks the Python interpreter a command was given before a sandbox is built, so that `--python /nonexistent`
// says the interpreter was not found (exit 127) instead of blaming the host's isolation (exit 125).
#include "cli/python_interpreter.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/interpreter_cache.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::cli {

namespace fs = std::filesystem;

namespace {

// `name` as execvp would find it on PATH; empty when no directory holds an executable file of that name.
fs::path find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    const std::string directories = path ? path : "";
    for (std::size_t start = 0; start <= directories.size();) {
        const auto end = std::min(directories.find(':', start), directories.size());
        const fs::path candidate = fs::path(end > start ? directories.substr(start, end - start) : ".") / name;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
        start = end + 1;
    }
    return {};
}

}  // namespace

PythonChoice chosen_python(const std::optional<std::string>& option) {
    if (option && !option->empty()) return {*option, "--python"};
    if (const char* from_env = std::getenv("E2BEVAL_PYTHON"); from_env && *from_env) return {from_env, "$E2BEVAL_PYTHON"};
    return {"python3", "the default"};
}

std::optional<InterpreterProblem> python_problem(const PythonChoice& choice, InterpreterInfo* found) {
    const std::string named = "the Python interpreter '" + choice.interpreter + "' (" +
                              (choice.source == "the default" ? std::string("the default, python3 on PATH") : "from " + choice.source) + ")";
    const std::string what_to_do = choice.source == "--python"
                                       ? "give the path of a Python 3 interpreter (for example --python /usr/bin/python3), "
                                         "or leave --python out to use $E2BEVAL_PYTHON, else python3 on PATH"
                                       : "install Python 3, or give the path of one with --python PATH or E2BEVAL_PYTHON=PATH";
    const bool is_path = choice.interpreter.find('/') != std::string::npos;
    const fs::path located = is_path ? fs::path(choice.interpreter) : find_on_path(choice.interpreter);
    std::error_code ec;
    if (located.empty() || !fs::exists(located, ec))
        return InterpreterProblem{kExitInterpreterNotFound,
                                  named + " was not found" + (is_path ? "" : " on PATH") + "; " + what_to_do};
    if (fs::is_directory(located, ec))
        return InterpreterProblem{kExitInterpreterUnusable, named + " is a directory, not an interpreter; " + what_to_do};
    if (::access(located.c_str(), X_OK) != 0)
        return InterpreterProblem{kExitInterpreterUnusable,
                                  named + " is not executable (check its permissions); " + what_to_do};
    try {
        // Asked by its absolute path: the file the cache keys is then exactly the one that answered.
        auto info = cached_python_discovery(fs::absolute(located, ec));
        if (found) *found = std::move(info);
    } catch (const error& failure) {
        // The discovery's own advice names only E2BEVAL_PYTHON; what_to_do below fits where the choice came from.
        std::string cause = failure.what();
        if (const auto advice = cause.find("; set E2BEVAL_PYTHON"); advice != std::string::npos) cause.resize(advice);
        return InterpreterProblem{kExitInterpreterUnusable,
                                  named + " did not run as a Python interpreter (" + cause + "); " + what_to_do};
    }
    return std::nullopt;
}

InterpreterInfo require_working_python(const PythonChoice& choice) {
    InterpreterInfo info;
    if (const auto problem = python_problem(choice, &info)) throw interpreter_error(*problem);
    return info;
}

}  // namespace e2beval::cli
