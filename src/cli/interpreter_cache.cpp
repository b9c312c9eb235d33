// The on-disk cache of interpreter discoveries (see interpreter_cache.hpp and docs/cli.md).
//
// An entry answers for one interpreter path. It is used only when, now:
//   - the path still resolves (symlinks followed) to the same file, of the same kind;
//   - every "witness" — a file whose state decided the answer, or whose appearance would change it — has the
//     same state (existence, device, inode, size, mtime and ctime; ctime cannot be set back by a user);
//   - for a pyenv shim, the environment pyenv reads (PYENV_*, PATH) is the same and pyenv's version-file search
//     from the current directory finds the same file;
//   - the remembered answer still names absolute paths that exist.
// Kinds of interpreter whose resolution cannot be checked this way are never stored: a script that is not a
// pyenv shim (it may read anything), an executable that starts another interpreter than itself, a pyenv
// "system" version (found by searching PATH), and a shell with PYENV_DIR set.
#include "cli/interpreter_cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace e2beval::cli {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* kCacheFileName = "interpreters.json";
constexpr const char* kFormat = "e2beval-interpreter-cache";
constexpr std::int64_t kFormatVersion = 1;
constexpr std::size_t kMostEntries = 32;            // one per interpreter path and pyenv context; oldest dropped
constexpr std::size_t kMostCacheBytes = 1 << 20;    // a larger file is not ours to trust
constexpr const char* kKindBinary = "binary";
constexpr const char* kKindPyenvShim = "pyenv-shim";

// ---- file states ------------------------------------------------------------------------------------

struct FileState {
    bool exists = false;
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    bool operator==(const FileState&) const = default;
};

FileState state_of(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return {};
    return {true,
            static_cast<std::uint64_t>(info.st_dev),
            static_cast<std::uint64_t>(info.st_ino),
            static_cast<std::uint64_t>(info.st_size),
            static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec,
            static_cast<std::int64_t>(info.st_ctim.tv_sec) * 1'000'000'000 + info.st_ctim.tv_nsec};
}

using Witnesses = std::vector<std::pair<std::string, FileState>>;

void add_witness(Witnesses& witnesses, const std::string& path) {
    for (const auto& [known, state] : witnesses)
        if (known == path) return;
    witnesses.emplace_back(path, state_of(path));
}

// A venv is decided by a pyvenv.cfg beside the interpreter or one directory up, and names its base.
void add_venv_witnesses(Witnesses& witnesses, const fs::path& interpreter) {
    add_witness(witnesses, (interpreter.parent_path() / "pyvenv.cfg").string());
    add_witness(witnesses, (interpreter.parent_path().parent_path() / "pyvenv.cfg").string());
}

// ---- what decides an interpreter's answer ------------------------------------------------------------

// The part of an entry's key computed before discovery: enough to find the entry and to check it.
struct Context {
    std::string path;       // absolute, as given after the PATH lookup
    std::string kind;       // kKindBinary or kKindPyenvShim
    std::string canonical;  // `path` with every symlink resolved
    std::map<std::string, std::string> environment;  // what the interpreter's resolution reads from it
    std::string version_file;                         // pyenv: the file its version search finds
    std::string pyenv_root;                           // pyenv: from the shim
    Witnesses witnesses;                              // states taken before discovery
};

std::string environment_value(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// The directory pyenv starts its search from: bash's $PWD, the logical path, when it names this directory.
std::string logical_working_directory() {
    std::error_code ec;
    const std::string pwd = environment_value("PWD");
    if (!pwd.empty() && pwd[0] == '/') {
        const auto there = state_of(pwd), here = state_of(".");
        if (there.exists && there.device == here.device && there.inode == here.inode) return pwd;
    }
    return fs::current_path(ec).string();
}

// pyenv-version-file: the nearest .python-version from `directory` up to /, else $PYENV_ROOT/version.
std::string pyenv_version_file(const std::string& directory, const std::string& root) {
    for (std::string at = directory;;) {
        const std::string candidate = (at == "/" ? std::string() : at) + "/.python-version";
        struct stat info {};
        if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode)) return candidate;
        if (at.empty() || at == "/") break;
        const auto slash = at.rfind('/');
        at = slash == 0 || slash == std::string::npos ? "/" : at.substr(0, slash);
    }
    return root + "/version";
}

std::string file_head(const std::string& path, std::size_t bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    std::string head(bytes, '\0');
    const ssize_t got = ::read(fd, head.data(), bytes);
    ::close(fd);
    head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    return head;
}

// The context of `located`, or nullopt when its resolution is not one this cache can check.
std::optional<Context> context_of(const fs::path& located) {
    std::error_code ec;
    const auto canonical = fs::canonical(located, ec);
    if (ec || !fs::is_regular_file(canonical, ec)) return std::nullopt;
    Context context;
    context.path = located.string();
    context.canonical = canonical.string();
    add_witness(context.witnesses, context.canonical);

    const std::string head = file_head(context.canonical, 4096);
    if (head.rfind("\x7f" "ELF", 0) == 0) {
        context.kind = kKindBinary;
        // Which libpython (if shared) and what is preloaded can change what the interpreter reports.
        for (const char* name : {"LD_LIBRARY_PATH", "LD_PRELOAD"}) context.environment[name] = environment_value(name);
        add_venv_witnesses(context.witnesses, located);
        add_venv_witnesses(context.witnesses, canonical);
        return context;
    }

    // A pyenv shim (`pyenv rehash` writes them): it exports PYENV_ROOT and execs `pyenv exec PROGRAM`.
    static const std::regex root_line(R"re(\nexport PYENV_ROOT="([^"\n]+)"\n)re");
    static const std::regex exec_line(R"re(\nexec "([^"\n]+)" exec "\$program" "\$@"\n)re");
    std::smatch root_match, exec_match;
    if (head.rfind("#!", 0) != 0 || !std::regex_search(head, root_match, root_line) ||
        !std::regex_search(head, exec_match, exec_line))
        return std::nullopt;
    // PYENV_DIR moves the version search elsewhere (and pyenv resolves it with cd); not worth checking.
    if (!environment_value("PYENV_DIR").empty()) return std::nullopt;
    context.kind = kKindPyenvShim;
    context.pyenv_root = root_match[1].str();
    for (char** variable = environ; *variable; ++variable) {
        const std::string entry = *variable;
        const auto equals = entry.find('=');
        if (equals == std::string::npos) continue;
        const std::string name = entry.substr(0, equals);
        if (name.rfind("PYENV", 0) == 0 || name == "PATH") context.environment[name] = entry.substr(equals + 1);
    }
    context.version_file = pyenv_version_file(logical_working_directory(), context.pyenv_root);
    add_witness(context.witnesses, exec_match[1].str());                     // pyenv itself
    add_witness(context.witnesses, context.version_file);                    // the version asked for
    add_witness(context.witnesses, context.pyenv_root + "/version");         // the global fallback
    add_witness(context.witnesses, context.pyenv_root + "/versions");        // versions installed or removed
    return context;
}

// Witnesses that depend on the answer; false when the answer's resolution cannot be checked later.
bool add_answer_witnesses(Context& context, const InterpreterInfo& info) {
    if (context.kind == kKindBinary && info.executable != context.canonical) return false;  // a launcher
    if (context.kind == kKindPyenvShim && info.executable.rfind(context.pyenv_root + "/versions/", 0) != 0)
        return false;  // pyenv's "system": whichever python comes first on PATH
    add_witness(context.witnesses, info.executable);
    add_venv_witnesses(context.witnesses, info.executable);
    for (const auto& prefix : info.read_only_paths) add_witness(context.witnesses, prefix + "/pyvenv.cfg");
    return true;
}

// ---- entries as JSON ----------------------------------------------------------------------------------

struct Entry {
    Context context;
    InterpreterInfo info;
};

bool is_absolute_path(const json::value& value) {
    if (!value.is_string()) return false;
    const auto& text = value.get_string();
    return !text.empty() && text[0] == '/' && text.find('\0') == json::string::npos && text.size() < 4096;
}

std::optional<std::uint64_t> unsigned_number(const json::value* value) {
    if (value && value->is_uint64()) return value->get_uint64();
    if (value && value->is_int64() && value->get_int64() >= 0) return static_cast<std::uint64_t>(value->get_int64());
    return std::nullopt;
}

std::optional<std::int64_t> signed_number(const json::value* value) {
    if (value && value->is_int64()) return value->get_int64();
    return std::nullopt;
}

json::value state_to_json(const std::string& path, const FileState& state) {
    json::object object{{"path", path}, {"exists", state.exists}};
    if (state.exists) {
        object["device"] = state.device;
        object["inode"] = state.inode;
        object["size"] = state.size;
        object["mtime_ns"] = state.mtime_ns;
        object["ctime_ns"] = state.ctime_ns;
    }
    return object;
}

std::optional<std::pair<std::string, FileState>> state_from_json(const json::value& value) {
    if (!value.is_object()) return std::nullopt;
    const auto& object = value.get_object();
    const auto* path = object.if_contains("path");
    const auto* exists = object.if_contains("exists");
    if (!path || !is_absolute_path(*path) || !exists || !exists->is_bool()) return std::nullopt;
    FileState state;
    state.exists = exists->get_bool();
    if (state.exists) {
        const auto device = unsigned_number(object.if_contains("device"));
        const auto inode = unsigned_number(object.if_contains("inode"));
        const auto size = unsigned_number(object.if_contains("size"));
        const auto mtime = signed_number(object.if_contains("mtime_ns"));
        const auto ctime = signed_number(object.if_contains("ctime_ns"));
        if (!device || !inode || !size || !mtime || !ctime) return std::nullopt;
        state = {true, *device, *inode, *size, *mtime, *ctime};
    }
    return std::pair{std::string(path->get_string()), state};
}

json::value entry_to_json(const Entry& entry) {
    json::object environment;
    for (const auto& [name, value] : entry.context.environment) environment[name] = value;
    json::array witnesses;
    for (const auto& [path, state] : entry.context.witnesses) witnesses.push_back(state_to_json(path, state));
    json::array read_only_paths;
    for (const auto& path : entry.info.read_only_paths) read_only_paths.push_back(json::value(path));
    return json::object{{"path", entry.context.path},
                        {"kind", entry.context.kind},
                        {"canonical", entry.context.canonical},
                        {"environment", std::move(environment)},
                        {"version_file", entry.context.version_file},
                        {"pyenv_root", entry.context.pyenv_root},
                        {"witnesses", std::move(witnesses)},
                        {"interpreter", json::object{{"executable", entry.info.executable},
                                                     {"version", entry.info.version},
                                                     {"read_only_paths", std::move(read_only_paths)}}}};
}

bool is_version(const json::value& value) {
    static const std::regex version(R"(\d+\.\d+\.\d+)");
    return value.is_string() && std::regex_match(std::string(value.get_string()), version);
}

bool names_existing(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

// An entry read back, checked field by field; nullopt for anything but exactly what entry_to_json writes.
std::optional<Entry> entry_from_json(const json::value& value) {
    if (!value.is_object()) return std::nullopt;
    const auto& object = value.get_object();
    Entry entry;
    auto& context = entry.context;
    const auto* path = object.if_contains("path");
    const auto* kind = object.if_contains("kind");
    const auto* canonical = object.if_contains("canonical");
    const auto* environment = object.if_contains("environment");
    const auto* version_file = object.if_contains("version_file");
    const auto* pyenv_root = object.if_contains("pyenv_root");
    const auto* witnesses = object.if_contains("witnesses");
    const auto* interpreter = object.if_contains("interpreter");
    if (!path || !is_absolute_path(*path) || !canonical || !is_absolute_path(*canonical) || !kind || !kind->is_string() ||
        !environment || !environment->is_object() || !version_file || !version_file->is_string() || !pyenv_root ||
        !pyenv_root->is_string() || !witnesses || !witnesses->is_array() || witnesses->get_array().empty() ||
        !interpreter || !interpreter->is_object())
        return std::nullopt;
    context.path = path->get_string();
    context.kind = kind->get_string();
    context.canonical = canonical->get_string();
    context.version_file = version_file->get_string();
    context.pyenv_root = pyenv_root->get_string();
    if (context.kind != kKindBinary && context.kind != kKindPyenvShim) return std::nullopt;
    if (context.kind == kKindPyenvShim && (!is_absolute_path(*version_file) || !is_absolute_path(*pyenv_root)))
        return std::nullopt;
    for (const auto& [name, setting] : environment->get_object()) {
        if (!setting.is_string()) return std::nullopt;
        context.environment[std::string(name)] = setting.get_string();
    }
    for (const auto& witness : witnesses->get_array()) {
        auto state = state_from_json(witness);
        if (!state) return std::nullopt;
        context.witnesses.push_back(std::move(*state));
    }
    const auto& described = interpreter->get_object();
    const auto* executable = described.if_contains("executable");
    const auto* version = described.if_contains("version");
    const auto* read_only_paths = described.if_contains("read_only_paths");
    if (!executable || !is_absolute_path(*executable) || !version || !is_version(*version) || !read_only_paths ||
        !read_only_paths->is_array())
        return std::nullopt;
    entry.info.executable = executable->get_string();
    entry.info.version = version->get_string();
    std::error_code ec;
    if (!fs::is_regular_file(entry.info.executable, ec)) return std::nullopt;
    for (const auto& prefix : read_only_paths->get_array()) {
        if (!is_absolute_path(prefix) || !names_existing(std::string(prefix.get_string()))) return std::nullopt;
        entry.info.read_only_paths.emplace_back(prefix.get_string());
    }
    return entry;
}

// ---- the cache directory and file ---------------------------------------------------------------------

// $XDG_CACHE_HOME/e2beval (a relative XDG_CACHE_HOME is invalid by the spec and ignored), else
// ~/.cache/e2beval; empty when there is no home to put it in.
fs::path cache_directory() {
    const std::string xdg = environment_value("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg[0] == '/') return fs::path(xdg) / "e2beval";
    std::string home = environment_value("HOME");
    if (home.empty() || home[0] != '/') {
        if (const passwd* user = ::getpwuid(::geteuid()); user && user->pw_dir && user->pw_dir[0] == '/') home = user->pw_dir;
    }
    if (home.empty() || home[0] != '/') return {};
    return fs::path(home) / ".cache" / "e2beval";
}

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd& operator=(Fd&&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

// Ours to trust: owned by this user and writable by no one else (a group or others could swap its content).
bool is_trusted(int fd, bool directory) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) return false;
    const bool right_type = directory ? S_ISDIR(info.st_mode) : S_ISREG(info.st_mode);
    return right_type && info.st_uid == ::geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// The cache directory, opened without following a symlink at its last step, when it is ours to trust.
Fd open_trusted_directory(const fs::path& directory) {
    Fd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0 || !is_trusted(fd.get(), true)) return Fd();
    return fd;
}

// The entries of the cache file; empty when it is missing, not ours to trust, or not exactly what we write.
std::vector<Entry> read_entries(int directory) {
    Fd fd(::openat(directory, kCacheFileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0 || !is_trusted(fd.get(), false)) return {};
    std::string text;
    std::array<char, 16384> buffer{};
    for (;;) {
        const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return {};
        if (got == 0) break;
        text.append(buffer.data(), static_cast<std::size_t>(got));
        if (text.size() > kMostCacheBytes) return {};
    }
    boost::system::error_code ec;
    const auto document = json::parse(text, ec);
    if (ec || !document.is_object()) return {};
    const auto& object = document.get_object();
    const auto* format = object.if_contains("format");
    const auto* version = object.if_contains("version");
    const auto* entries = object.if_contains("entries");
    if (!format || *format != kFormat || !version || !version->is_int64() || version->get_int64() != kFormatVersion ||
        !entries || !entries->is_array() || entries->get_array().size() > kMostEntries)
        return {};
    std::vector<Entry> read;
    for (const auto& value : entries->get_array()) {
        auto entry = entry_from_json(value);
        if (!entry) return {};  // one bad entry makes the whole file suspect: it is rewritten
        read.push_back(std::move(*entry));
    }
    return read;
}

bool write_all(int fd, const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return false;
        done += static_cast<std::size_t>(wrote);
    }
    return true;
}

// Replaces the cache file atomically (a temporary file, mode 0600, renamed over it); gives up silently.
void write_entries(int directory, const std::vector<Entry>& entries) {
    json::array array;
    for (const auto& entry : entries) array.push_back(entry_to_json(entry));
    const std::string text =
        json::serialize(json::object{{"format", kFormat}, {"version", kFormatVersion}, {"entries", std::move(array)}}) + "\n";
    std::random_device random;
    const std::string temporary = std::string(kCacheFileName) + ".tmp." + std::to_string(::getpid()) + "." +
                                  std::to_string(random());
    Fd fd(::openat(directory, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.get() < 0) return;
    const bool written = ::fchmod(fd.get(), 0600) == 0 && write_all(fd.get(), text) && ::fsync(fd.get()) == 0;
    if (!written || ::renameat(directory, temporary.c_str(), directory, kCacheFileName) != 0)
        ::unlinkat(directory, temporary.c_str(), 0);
}

// Creates the cache directory (0700) and the directories above it as needed, then opens it if trusted.
Fd open_or_create_directory(const fs::path& directory) {
    std::error_code ec;
    fs::create_directories(directory.parent_path(), ec);  // ~/.cache, as any XDG program would make it
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) return Fd();
    return open_trusted_directory(directory);
}

// ---- the lookup -----------------------------------------------------------------------------------------

bool still_valid(const Entry& entry, const Context& now) {
    const auto& then = entry.context;
    if (then.path != now.path || then.kind != now.kind || then.canonical != now.canonical ||
        then.environment != now.environment || then.version_file != now.version_file || then.pyenv_root != now.pyenv_root)
        return false;
    // Every witness taken now (before discovery) must have been recorded, and every recorded one unchanged.
    for (const auto& [path, state] : now.witnesses) {
        const auto recorded = std::find_if(then.witnesses.begin(), then.witnesses.end(),
                                           [&](const auto& witness) { return witness.first == path; });
        if (recorded == then.witnesses.end() || recorded->second != state) return false;
    }
    return std::all_of(then.witnesses.begin(), then.witnesses.end(),
                       [](const auto& witness) { return state_of(witness.first) == witness.second; });
}

bool cache_disabled() {
    const std::string setting = environment_value("E2BEVAL_NO_CACHE");
    return !setting.empty() && setting != "0";
}

}  // namespace

InterpreterInfo cached_python_discovery(const fs::path& located) {
    const auto directory = cache_directory();
    auto context = cache_disabled() || directory.empty() ? std::nullopt : context_of(located);
    if (!context) return discover_python(located.string());

    std::vector<Entry> entries;
    {
        const Fd trusted = open_trusted_directory(directory);
        if (trusted.get() >= 0) entries = read_entries(trusted.get());
    }
    for (const auto& entry : entries)
        if (still_valid(entry, *context)) return entry.info;

    auto info = discover_python(located.string());
    if (!add_answer_witnesses(*context, info)) return info;
    // The file's other entries stay, minus any for the same path and context (now stale), newest first.
    std::erase_if(entries, [&](const Entry& entry) {
        return entry.context.path == context->path && entry.context.environment == context->environment &&
               entry.context.version_file == context->version_file;
    });
    entries.insert(entries.begin(), Entry{std::move(*context), info});
    if (entries.size() > kMostEntries) entries.resize(kMostEntries);
    const Fd writable = open_or_create_directory(directory);
    if (writable.get() >= 0) write_entries(writable.get(), entries);
    return info;
}

}  // namespace e2beval::cli
