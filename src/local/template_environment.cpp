// See template_environment.hpp.
#include "local/template_environment.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"
#include "local/fd.hpp"
#include "local/interpreters.hpp"
#include "local/mountns.hpp"

namespace e2beval::local {

namespace fs = std::filesystem;

SandboxPython sandbox_python(const InterpreterInfo& default_python, const std::string& template_name) {
    if (is_default_template(template_name)) return {default_python, "", ""};
    static std::mutex mutex;
    struct Used {
        SandboxPython python;
        UniqueFd in_use;  // shared flock, held until this process exits
    };
    static std::map<std::string, Used> used;  // by directory and build id

    // A built template, or the built-in one (built first on its first use): throws input_error listing the known ones.
    const auto manifest = resolve_template(template_name, default_python.executable);
    const std::string key = manifest.name + "@" + manifest.build_id;
    std::lock_guard lock(mutex);
    const auto cache_key = manifest.directory.string() + "@" + manifest.build_id;
    if (auto found = used.find(cache_key); found != used.end()) return found->second.python;

    UniqueFd in_use(::open((manifest.directory / ".in-use").c_str(), O_RDONLY | O_CLOEXEC));
    if (!in_use || ::flock(in_use.get(), LOCK_SH) != 0)
        throw sandbox_error(describe_syscall_failure("open/flock(" + (manifest.directory / ".in-use").string() + ")", errno) +
                            "; rebuild template '" + template_name + "' with `e2beval template build`");
    // Removed between finding it and locking it: as unknown as if it had been removed before.
    std::error_code ec;
    if (!fs::is_regular_file(manifest.directory / "manifest.json", ec)) find_template(manifest.name);

    SandboxPython python;
    python.info = discover_python(manifest.python().string());
    python.info.executable = manifest.python().string();
    std::vector<std::string> paths;
    const std::string directory = manifest.directory.string();
    for (const auto& path : python.info.read_only_paths)
        if (!is_under(path, directory)) paths.push_back(path);
    paths.push_back(directory);
    python.info.read_only_paths = std::move(paths);
    python.key = key;
    python.bin_directory = (manifest.directory / "venv" / "bin").string();
    used.emplace(cache_key, Used{python, std::move(in_use)});
    return python;
}

std::vector<std::string> template_environment(const SandboxPython& python, const std::string& base_path) {
    if (python.key.empty()) {
        // The default environment: `python` (and a virtualenv's tools, `pytest`) in commands the code starts is
        // the sandbox's own interpreter and its virtualenv, as E2B's sandboxes have theirs on PATH. The program
        // itself runs the resolved binary; the virtualenv (a prefix with pyvenv.cfg, bound read-only with the
        // others) has its bin/ first, then the binary's directory, each named as the sandbox sees it (a host
        // path under /tmp is elsewhere inside). A system directory is on PATH already.
        std::string path;
        const auto add = [&](const std::string& directory) {
            if (directory.empty() || directory == "/usr/bin" || directory == "/bin" || directory == "/usr/local/bin") return;
            path += path_inside(directory) + ":";
        };
        std::error_code ec;
        for (const auto& prefix : python.info.read_only_paths)
            if (fs::is_regular_file(fs::path(prefix) / "pyvenv.cfg", ec)) add((fs::path(prefix) / "bin").string());
        add(fs::path(python.info.executable).parent_path().string());
        if (path.empty()) return {};
        return {"PATH=" + path + base_path};
    }
    // The template's files by the path they have inside (its directory's own path, unless that is under the
    // host's /tmp), so code finds them without knowing where the host keeps its cache.
    const auto directory = fs::path(python.bin_directory).parent_path().parent_path();
    return {"PATH=" + path_inside(python.bin_directory) + ":" + base_path, "VIRTUAL_ENV=" + path_inside((directory / "venv").string()),
            "E2BEVAL_TEMPLATE_FILES=" + path_inside((directory / "files").string()), "MPLBACKEND=Agg"};
}

}  // namespace e2beval::local
