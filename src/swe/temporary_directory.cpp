// Scratch directories for reading a repository on the host (src/swe/temporary_directory.hpp). The host commands
// that fill them run through core/host_command.hpp.
#include "swe/temporary_directory.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "e2beval/core/error.hpp"

namespace e2beval::swe {

TemporaryDirectory::TemporaryDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/e2beval-swe-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw io_error(describe_syscall_failure("mkdtemp(" + pattern + ")", errno));
    path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace e2beval::swe
