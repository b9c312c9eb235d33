// The template store (docs/templates.md): where templates live, reading their manifests, removing them, and
// building them by running the embedded builder (src/local/template_builder.py) with the chosen Python.
#include "e2beval/local/templates.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/json_fields.hpp"
#include "core/read_file.hpp"
#include "e2beval/core/error.hpp"
#include "local/fd.hpp"
#include "local/template_builder.hpp"
#include "local/template_build.hpp"

extern char** environ;

namespace e2beval {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* kInUse = ".in-use";  // see template_builder.py: sandboxes hold a shared flock on it

fs::path cache_directory() { return e2beval_cache_directory(); }

TemplateManifest read_manifest(const fs::path& directory) {
    const auto path = directory / "manifest.json";
    json::value parsed;
    try {
        parsed = json::parse(read_text(path));
    } catch (const std::exception& failure) {
        throw io_error("the template manifest " + path.string() + " cannot be read (" + failure.what() +
                       "); rebuild the template with `e2beval template build`");
    }
    if (!parsed.is_object()) throw io_error("the template manifest " + path.string() + " is not a JSON object; rebuild the template");
    const auto& object = parsed.as_object();
    TemplateManifest manifest;
    manifest.name = string_field(object, "name");
    manifest.directory = directory;
    manifest.python_version = string_field(object, "python_version");
    manifest.base_python = string_field(object, "base_python");
    manifest.requirements_hash = string_field(object, "requirements_hash");
    manifest.requirements = string_field(object, "requirements");
    manifest.build_id = string_field(object, "build_id");
    manifest.built_at = string_field(object, "built_at");
    if (const auto* packages = object.if_contains("packages"); packages && packages->is_object())
        for (const auto& [name, version] : packages->as_object())
            if (version.is_string()) manifest.packages[std::string(name)] = std::string(version.as_string());
    if (const auto* files = object.if_contains("files"); files && files->is_array())
        for (const auto& file : files->as_array())
            if (file.is_string()) manifest.files.emplace_back(file.as_string());
    if (const auto* seconds = object.if_contains("build_seconds"); seconds && seconds->is_number())
        manifest.build_seconds = seconds->to_number<double>();
    if (const auto* size = object.if_contains("size_bytes"); size && size->is_number())
        manifest.size_bytes = size->to_number<std::uint64_t>();
    return manifest;
}

void check_name(const std::string& name) {
    const bool valid = !name.empty() && name.size() <= 64 && name[0] != '.' && name[0] != '-' &&
                       std::all_of(name.begin(), name.end(), [](unsigned char c) {
                           return std::isalnum(c) || c == '-' || c == '_' || c == '.';
                       });
    if (!valid)
        throw input_error("invalid template name '" + name +
                          "': use 1 to 64 letters, digits, '-', '_' or '.', not starting with '.' or '-'");
    if (is_default_template(name))
        throw input_error("'" + name + "' names the default environment (as E2B's own template does); choose another name");
    if (!builtin_template_name(name).empty())
        throw input_error("'" + name + "' names e2beval's built-in template " + kCodeInterpreterTemplate +
                          " (E2B's code-interpreter packages); build it with `e2beval template build " + kCodeInterpreterTemplate +
                          "` (no -r), or build yours under another name");
}

std::string known_list() {
    std::string known;
    for (const auto& manifest : list_templates()) known += (known.empty() ? "" : ", ") + manifest.name;
    return known.empty() ? "none are built yet" : "the known templates are " + known;
}

// Deletes templates removed earlier whose files no running sandbox uses any more (the in-use lock is free).
void sweep_removed(const fs::path& templates) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(templates / ".removed", ec)) {
        local::UniqueFd lock(::open((entry.path() / kInUse).c_str(), O_RDONLY | O_CLOEXEC));
        if (lock && ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) continue;  // still in use
        fs::remove_all(entry.path(), ec);
    }
}

std::string random_suffix() {
    std::random_device device;
    std::ostringstream text;
    text << std::hex << device() << device();
    return text.str();
}

}  // namespace

fs::path e2beval_cache_directory() {
    if (const char* cache = std::getenv("E2BEVAL_CACHE_DIR"); cache && *cache) return cache;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "e2beval";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "e2beval";
    throw input_error("no cache directory for e2beval (templates, compiled programs): set E2BEVAL_CACHE_DIR (or HOME)");
}

fs::path templates_directory() { return cache_directory() / "templates"; }

bool is_default_template(const std::string& name) { return name.empty() || name == "base" || name == "e2beval"; }

std::vector<TemplateManifest> list_templates() {
    std::vector<TemplateManifest> found;
    std::error_code ec;
    const auto templates = templates_directory();
    for (const auto& entry : fs::directory_iterator(templates, ec)) {
        const auto name = entry.path().filename().string();
        if (name.empty() || name[0] == '.' || !fs::is_regular_file(entry.path() / "manifest.json", ec)) continue;
        try {
            found.push_back(read_manifest(entry.path()));
        } catch (const error&) {
            continue;  // a broken one is not offered; find_template says why when it is asked for
        }
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return found;
}

TemplateManifest find_template(const std::string& name) {
    const auto directory = templates_directory() / name;
    std::error_code ec;
    const bool plausible = !name.empty() && name[0] != '.' && name.find('/') == std::string::npos;
    if (!plausible || !fs::is_regular_file(directory / "manifest.json", ec))
        throw unknown_template_error("unknown template '" + name + "' (in " + templates_directory().string() + "): " + known_list() +
                          "; build it with `e2beval template build " + name + " -r requirements.txt`");
    return read_manifest(fs::canonical(directory));
}

bool remove_template(const std::string& name) {
    const auto manifest = find_template(name);
    const auto templates = templates_directory();
    // Renamed away first (atomic): a new sandbox no longer finds it; one already running keeps its mount.
    fs::create_directories(templates / ".removed");
    const auto parked = templates / ".removed" / (name + "-" + random_suffix());
    std::error_code ec;
    fs::rename(manifest.directory, parked, ec);
    if (ec) throw io_error("cannot remove template '" + name + "': rename(" + manifest.directory.string() + "): " + ec.message());
    sweep_removed(templates);
    return !fs::exists(parked, ec);
}

TemplateManifest build_template(const TemplateBuildOptions& options) {
    check_name(options.name);
    return local::run_template_builder(options);
}

TemplateManifest local::run_template_builder(const TemplateBuildOptions& options) {
    std::error_code ec;
    if (!fs::is_regular_file(options.requirements, ec))
        throw input_error("requirements file '" + options.requirements.string() + "' does not exist; give a pip requirements file");
    json::array files;
    for (const auto& [source, destination] : options.files) {
        if (!fs::is_regular_file(source, ec)) throw input_error("file '" + source.string() + "' does not exist; --file takes SRC[:DEST]");
        const fs::path relative = fs::path(destination).lexically_normal();
        if (destination.empty() || relative.is_absolute() || *relative.begin() == "..")
            throw input_error("--file destination '" + destination + "' must be a relative path inside the template's files/");
        files.push_back(json::array{json::string(fs::absolute(source).string()), json::string(relative.string())});
    }
    const std::string python = options.python.empty() ? "python3" : options.python;
    json::object config;
    config["name"] = options.name;
    config["templates_dir"] = templates_directory().string();
    config["requirements"] = fs::absolute(options.requirements).string();
    config["python"] = python;
    config["files"] = std::move(files);
    config["force"] = options.force;
    const std::string config_text = json::serialize(config);
    std::vector<std::string> command = {python, "-I", "-c", local::kTemplateBuilderSource, config_text};
    std::vector<char*> argv;
    for (auto& argument : command) argv.push_back(argument.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    // stderr is ours: pip's log is the build's progress display. So is stdout, made stderr too: what a command
    // prints on stdout (`e2beval serve`'s export lines, `--json`) stays its own.
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    const int failed = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    if (failed != 0)
        throw sandbox_error("cannot run `" + python + "` to build template '" + options.name + "': " + std::strerror(failed) +
                            "; give a working Python with --python");
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw sandbox_error("building template '" + options.name + "' failed (" +
                            (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                               : "signal " + std::to_string(WTERMSIG(status))) +
                            "; the reason is above); nothing was kept");
    return find_template(options.name);
}

}  // namespace e2beval
