// See workspace_files.hpp.
#include "local/workspace_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "e2beval/core/error.hpp"

namespace e2beval::local {

void check_workspace_path(const std::string& path, const char* what) {
    const auto refuse = [&](const std::string& why) {
        throw input_error(std::string(what) + " '" + path + "' " + why + "; give a path relative to the workspace, like 'data/input.txt'");
    };
    if (path.empty()) refuse("is empty");
    if (path.front() == '/') refuse("is absolute");
    if (path.find('\0') != std::string::npos) refuse("holds a NUL byte");
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        const auto part = path.substr(start, end - start);
        const bool last = end == path.size();
        if ((part.empty() && !last) || part == "." || part == "..") refuse("holds an empty, '.' or '..' component");
        start = end + 1;
    }
}

void check_workspace_files(const ExecRequest& request) {
    for (const auto& file : request.files) {
        check_workspace_path(file.path, "workspace file");
        if (file.path.back() == '/') throw input_error("workspace file '" + file.path + "' ends in '/'; name a file");
        if (file.mode > 0777) throw input_error("workspace file '" + file.path + "' has mode beyond 0777 (no set-id or sticky bits)");
    }
    if (request.collect.size() > static_cast<std::size_t>(kMaxCollectedFiles))
        throw input_error("at most " + std::to_string(kMaxCollectedFiles) + " workspace paths can be collected");
    for (const auto& path : request.collect) check_workspace_path(path, "collected path");
}

std::vector<SpawnPlan::WorkspaceEntry> workspace_entries(const std::vector<WorkspaceFile>& files, const std::string& workspace) {
    std::vector<SpawnPlan::WorkspaceEntry> entries;
    std::vector<std::string> made;
    for (const auto& file : files) {
        for (auto slash = file.path.find('/'); slash != std::string::npos; slash = file.path.find('/', slash + 1)) {
            const auto directory = workspace + "/" + file.path.substr(0, slash);
            if (std::find(made.begin(), made.end(), directory) != made.end()) continue;
            made.push_back(directory);
            entries.push_back({directory, {}, 0755, true});
        }
        entries.push_back({workspace + "/" + file.path, file.data, static_cast<mode_t>(file.mode), false});
    }
    return entries;
}

std::vector<WorkspaceFile> read_collected_files(std::vector<std::pair<std::string, UniqueFd>>& fds, std::uint64_t cap_bytes) {
    std::vector<WorkspaceFile> files;
    for (auto& [path, fd] : fds) {
        struct stat status {};
        if (::fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode)) continue;
        if (static_cast<std::uint64_t>(status.st_size) > cap_bytes) continue;
        WorkspaceFile file{path, std::string(static_cast<std::size_t>(status.st_size), '\0'), status.st_mode & 0777u};
        std::size_t done = 0;
        while (done < file.data.size()) {
            const ssize_t n = ::pread(fd.get(), file.data.data() + done, file.data.size() - done, static_cast<off_t>(done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        file.data.resize(done);
        files.push_back(std::move(file));
    }
    fds.clear();
    return files;
}

}  // namespace e2beval::local
