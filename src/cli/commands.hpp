// The e2beval commands: run, eval, scan, extract, report. Each returns the process exit status.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace e2beval::cli {

struct Command {
    CommandSpec spec;
    int (*handler)(const ParsedArgs& args);
};

const std::vector<Command>& commands();

// Commands that live in their own files.
Command make_run_command();      // src/cli/run_command.cpp
Command make_redteam_command();  // src/cli/redteam_command.cpp
Command make_init_command();     // src/cli/init_command.cpp
Command make_serve_command();    // src/cli/serve_command.cpp
Command make_cache_command();    // src/cli/cache_command.cpp
Command make_swe_command();      // src/cli/swe_command.cpp
Command make_template_command(); // src/cli/template_command.cpp

// Exit statuses shared by every command (documented in docs/cli.md).
inline constexpr int kExitFailed = 1;      // a test failed, code was blocked, no code was found
inline constexpr int kExitUsage = 2;       // bad command line or bad input file
inline constexpr int kExitLimit = 124;     // `run`: the program hit a limit (timeout, memory, output, ...)
inline constexpr int kExitSandbox = 125;   // the sandbox could not be built
// The Python interpreter to run code with (--python, $E2BEVAL_PYTHON, python3) is the user's to fix, not the
// host: as timeout(1) and env(1) do, 126 when it is there but cannot be used, 127 when it is not there at all.
inline constexpr int kExitInterpreterUnusable = 126;
inline constexpr int kExitInterpreterNotFound = 127;

}  // namespace e2beval::cli
