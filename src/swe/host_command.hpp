// Runs a command on the host (git, tar) with no shell, and gives back its exit status and output: the only
// host-side steps of a SWE evaluation are reading the repository at its base commit.
#pragma once

#include <string>
#include <vector>

namespace e2beval::swe {

struct HostCommandResult {
    int exit_status = -1;  // -1 when it did not exit normally
    std::string output;    // stdout
    std::string errors;    // stderr
};

// Throws io_error when the program cannot be started (naming it and what to install).
HostCommandResult run_on_host(const std::vector<std::string>& command);

// A directory under $TMPDIR removed with everything in it when this goes.
class TemporaryDirectory {
public:
    TemporaryDirectory();
    ~TemporaryDirectory();
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

}  // namespace e2beval::swe
