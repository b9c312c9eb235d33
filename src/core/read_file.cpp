// A whole file's bytes (src/core/read_file.hpp).
#include "core/read_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace e2beval {

std::optional<std::string> read_file(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text;
    char chunk[65536];
    for (;;) {
        const ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {  // a directory, or an I/O error: not a file's bytes
            ::close(fd);
            return std::nullopt;
        }
        if (got == 0) break;
        text.append(chunk, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return text;
}

std::string read_text(const std::filesystem::path& path) { return read_file(path).value_or(std::string()); }

}  // namespace e2beval
