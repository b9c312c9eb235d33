// A whole file's bytes, for the places that read a small file at once (a manifest, a cgroup file, a red-team
// case, a report's input): one way, with no stream state to get wrong.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace e2beval {

// Every byte of the file at `path` (read from offset 0 to its end, so a cgroup or /proc file shows its current
// value); nullopt when it cannot be opened or read. Callers say what a missing file means to them.
std::optional<std::string> read_file(const std::filesystem::path& path);

// read_file() where a file that cannot be read means the same as an empty one (a cgroup file of a controller
// this host lacks, a canary the code under test deleted): "" then.
std::string read_text(const std::filesystem::path& path);

}  // namespace e2beval
