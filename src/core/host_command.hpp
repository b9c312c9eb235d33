// Running a trusted command on the host (git and tar reading a repository, an interpreter or compiler asked
// where it lives and which version it is, `go build std` preparing a cache): never code under test, which only
// ever runs in a sandbox. One way for every layer: no shell, stdin from /dev/null, both output streams read to
// the end on the calling thread.
#pragma once

#include <string>
#include <vector>

namespace e2beval {

struct HostCommandResult {
    int exit_status = -1;  // -1 when it did not exit normally (a signal ended it)
    std::string output;    // stdout
    std::string errors;    // stderr
};

// Runs `command` (command[0] looked up on PATH, the host's environment inherited) to its end. Stdout and stderr
// are read together with poll(), so neither pipe can fill and stall the other, and no thread is started.
// Throws io_error naming the program (and, when it is missing, saying to install it) when it cannot be started; invalid_argument for an empty command.
HostCommandResult run_on_host(const std::vector<std::string>& command);

}  // namespace e2beval
