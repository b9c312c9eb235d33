// Finds the compiled languages' toolchains on the host (see toolchains.hpp): each compiler's real binary behind
// version managers' shims (rustup's proxies, alternatives' links), its install prefix, its version, and what the
// sandbox must mount and set for it. Works with Debian's packages (gcc/g++, golang-go, rustc,
// openjdk-17-jdk-headless under /usr) as with installs elsewhere (/usr/local/go, ~/.rustup/toolchains/X).
#include "local/toolchains.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"
#include "local/go_std_cache.hpp"
#include "local/interpreters.hpp"

namespace e2beval::local {

namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& text) {
    const auto end = text.find('\n');
    std::string line = text.substr(0, end);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

// A file's path with its size, modification time and inode ("" for no file): what changes when a package
// upgrade or a repair replaces it in place.
std::string file_fingerprint(const std::string& path) {
    struct stat status {};
    if (path.empty()) return "";
    if (::stat(path.c_str(), &status) != 0) return path + " (missing)";
    return path + " " + std::to_string(status.st_size) + " " + std::to_string(status.st_mtim.tv_sec) + "." +
           std::to_string(status.st_mtim.tv_nsec) + " " + std::to_string(status.st_ino);
}

bool covered_by_system_paths(const std::string& path) {
    return std::any_of(kSystemPaths.begin(), kSystemPaths.end(), [&](const std::string& system) { return is_under(path, system); });
}

void add_mount(Toolchain& toolchain, const std::string& path) {
    if (path.empty() || path == "/" || covered_by_system_paths(path)) return;
    if (std::find(toolchain.read_only_paths.begin(), toolchain.read_only_paths.end(), path) == toolchain.read_only_paths.end())
        toolchain.read_only_paths.push_back(path);
}

// `name` (a path, or a name looked up on PATH) as an absolute path, links not resolved (a multi-call binary
// such as rustup's proxies needs the name it was called by); empty when it is not there.
std::string find_binary(const std::string& name) {
    std::error_code ec;
    if (name.find('/') != std::string::npos) {
        const auto absolute = fs::absolute(name, ec);
        return ec || ::access(absolute.c_str(), X_OK) != 0 || fs::is_directory(absolute, ec) ? std::string() : absolute.string();
    }
    const char* path = std::getenv("PATH");
    std::istringstream directories(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string directory; std::getline(directories, directory, ':');) {
        if (directory.empty()) continue;
        const auto candidate = fs::path(directory) / name;
        if (::access(candidate.c_str(), X_OK) != 0 || fs::is_directory(candidate, ec)) continue;
        return candidate.string();
    }
    return {};
}

// The binary a ToolSpec names: its env override when set, else its name on PATH. Throws with the install hint:
// an override that names nothing is the user's setting to fix, a name missing from PATH a package to install.
std::string locate(const ToolSpec& tool, std::string_view language) {
    const std::string variable(tool.env_override);
    if (!variable.empty())
        if (const char* configured = std::getenv(variable.c_str()); configured && *configured) {
            if (auto found = find_binary(configured); !found.empty()) return found;
            throw sandbox_error(std::string(language) + ": " + variable + " names `" + configured + "`, which is not an executable "
                                    "file on this host; point it at the " + std::string(tool.binary) + " to use, or unset it to use `" +
                                    std::string(tool.binary) + "` from PATH (install it: " + std::string(tool.install_hint) + ")",
                                errc::unsupported);
        }
    if (auto found = find_binary(std::string(tool.binary)); !found.empty()) return found;
    throw sandbox_error(std::string(language) + " needs `" + std::string(tool.binary) + "`, which this host does not have" +
                            (variable.empty() ? std::string() : " (or set " + variable + " to its path)") +
                            "; install it: " + std::string(tool.install_hint),
                        errc::unsupported);
}

std::string real_path(const std::string& path) {
    std::error_code ec;
    const auto real = fs::canonical(path, ec);
    return ec ? path : real.string();
}

// The first line a toolchain's binary prints when asked `arguments` (its version, its sysroot, its GOROOT); a
// failure names the command and the language's install hint.
std::string ask(const std::string& binary, std::vector<std::string> arguments, const LanguageDescriptor& language) {
    arguments.insert(arguments.begin(), binary);
    return first_line(run_host_command(arguments, std::string(language.compiler.install_hint)));
}

// The real binary a version manager's shim or a link stands for: `name` under the install prefix the tool
// reported (rustc's sysroot, Go's GOROOT), else the shim's own real path.
std::string real_binary_under(const std::string& prefix, std::string_view name, const std::string& shim) {
    std::error_code ec;
    const auto real = fs::canonical(fs::path(prefix) / "bin" / name, ec);
    return ec ? real_path(shim) : real.string();
}

Toolchain gnu_toolchain(const LanguageDescriptor& language) {
    Toolchain toolchain;
    toolchain.compiler = real_path(locate(language.compiler, language.display_name));
    toolchain.version = ask(toolchain.compiler, {"--version"}, language);
    return toolchain;
}

Toolchain rust_toolchain(const LanguageDescriptor& language) {
    Toolchain toolchain;
    const auto rustc = locate(language.compiler, language.display_name);
    // rustup's `rustc` is a proxy that needs the user's RUSTUP_HOME: the sysroot holds the real compiler.
    const auto sysroot = ask(rustc, {"--print", "sysroot"}, language);
    toolchain.compiler = real_binary_under(sysroot, "rustc", rustc);
    toolchain.version = ask(toolchain.compiler, {"--version"}, language);
    add_mount(toolchain, real_path(sysroot));
    const auto cc = find_binary("cc");
    if (cc.empty())
        throw sandbox_error("rustc links with `cc`, which this host does not have; install it: apt-get install gcc", errc::unsupported);
    toolchain.linker = real_path(cc);
    add_mount(toolchain, fs::path(toolchain.linker).parent_path().string());
    return toolchain;
}

// Go's standard library is prepared lazily here when `prepare` (a compile needs it) and `e2beval cache prepare`
// did not do it ahead: the waiting compile says so on stderr.
Toolchain go_toolchain(const LanguageDescriptor& language, bool prepare) {
    Toolchain toolchain;
    const auto go = locate(language.compiler, language.display_name);
    const auto goroot = ask(go, {"env", "GOROOT"}, language);
    toolchain.compiler = real_binary_under(goroot, "go", go);
    toolchain.version = ask(toolchain.compiler, {"version"}, language);
    const auto real_root = real_path(goroot);
    add_mount(toolchain, real_root);
    toolchain.compile_environment = {"GOROOT=" + real_root, "GOCACHE=/tmp/.cache/go-build", "GOPATH=/tmp/go", "GOENV=off",
                                     "GOTELEMETRY=off", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=", "CGO_ENABLED=0",
                                     "GO111MODULE=on", "GOWORK=off"};
    if (prepare) {
        toolchain.prepared_go_cache = ensure_go_std_cache({toolchain.compiler, toolchain.version, real_root}, [](const std::string& message) {
            std::cerr << "e2beval: " << message << std::endl;
        });
        add_mount(toolchain, toolchain.prepared_go_cache);
    }
    return toolchain;
}

// Debian's JDK links its configuration (lib/jvm.cfg, conf/security/...) to /etc/java-N-openjdk: the sandbox
// needs those directories too, or the JVM does not start.
void add_jdk_configuration(Toolchain& toolchain, const fs::path& java_home) {
    std::error_code ec;
    for (const auto* part : {"lib", "conf"}) {
        for (auto it = fs::recursive_directory_iterator(java_home / part, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (it.depth() > 2 || !it->is_symlink(ec)) continue;
            const auto target = fs::read_symlink(it->path(), ec);
            if (ec || !target.is_absolute()) continue;
            const auto text = target.string();
            // Only the JDK's own configuration: lib/security/cacerts also links to /etc/ssl, which a program with
            // no network has no use for.
            if (!text.starts_with("/etc/java")) continue;
            const auto top = text.substr(0, text.find('/', 5));
            add_mount(toolchain, top);
        }
    }
}

Toolchain java_toolchain(const LanguageDescriptor& language) {
    Toolchain toolchain;
    toolchain.compiler = real_path(locate(language.compiler, language.display_name));
    const fs::path java_home = fs::path(toolchain.compiler).parent_path().parent_path();
    std::error_code ec;
    // The run stage uses the same JDK's java, whatever `java` on PATH is.
    toolchain.runtime = fs::canonical(java_home / "bin" / "java", ec).string();
    if (ec) throw sandbox_error("the JDK at " + java_home.string() + " has no bin/java; install it: " + std::string(language.runtime.install_hint),
                                errc::unsupported);
    const auto version = ask(toolchain.compiler, {"-version"}, language);
    toolchain.version = version.empty() ? "javac (" + java_home.string() + ")" : version;
    add_mount(toolchain, java_home.string());
    add_jdk_configuration(toolchain, java_home);
    if (const char* configured = std::getenv("E2BEVAL_JAVA_CLASSPATH"); configured && *configured) {
        std::istringstream entries(configured);
        for (std::string entry; std::getline(entries, entry, ':');) {
            if (entry.empty()) continue;
            const auto jar = fs::canonical(entry, ec);
            if (ec || !fs::is_regular_file(jar, ec))
                throw sandbox_error("E2BEVAL_JAVA_CLASSPATH names " + entry + ", which is not a file here; give the jars' paths, "
                                    "separated by ':' (scripts/env.sh points it at tools/java/javatuples-1.2.jar)",
                                    errc::unsupported);
            toolchain.class_path.push_back(jar.string());
            add_mount(toolchain, jar.string());
        }
    }
    return toolchain;
}

// tsc: $E2BEVAL_TSC (the tsc command, the typescript package or its lib/tsc.js), else `tsc` on PATH, else the
// project's pinned install (tools/typescript, scripts/test.sh). It runs with the configured Node.js.
Toolchain typescript_toolchain(const LanguageDescriptor& language, const std::string& node) {
    std::vector<std::string> candidates;
    if (const char* configured = std::getenv("E2BEVAL_TSC"); configured && *configured) candidates.push_back(configured);
    else {
        if (auto on_path = find_binary("tsc"); !on_path.empty()) candidates.push_back(on_path);
#ifdef E2BEVAL_SOURCE_DIR
        candidates.push_back(std::string(E2BEVAL_SOURCE_DIR) + "/tools/typescript/node_modules/typescript");
#endif
    }
    std::string script;
    for (const auto& candidate : candidates) {
        std::error_code ec;
        const auto real = fs::canonical(candidate, ec);
        if (ec) continue;
        fs::path package;
        if (fs::is_directory(real)) package = real;
        else if (real.extension() == ".js") package = real.parent_path().parent_path();
        else package = real.parent_path().parent_path();  // typescript/bin/tsc
        if (fs::exists(package / "lib" / "tsc.js", ec)) {
            script = (package / "lib" / "tsc.js").string();
            break;
        }
    }
    if (script.empty())
        throw sandbox_error("TypeScript needs the TypeScript compiler (tsc), which this host does not have (or set E2BEVAL_TSC to its "
                            "path); install it: " + std::string(language.compiler.install_hint),
                            errc::unsupported);
    Toolchain toolchain;
    const auto info = discover_node(node);
    toolchain.compiler = info.executable;
    toolchain.runtime = info.executable;
    toolchain.tsc_script = script;
    for (const auto& path : info.read_only_paths) add_mount(toolchain, path);
    add_mount(toolchain, fs::path(script).parent_path().parent_path().string());
    toolchain.version = "tsc " + ask(info.executable, {script, "--version"}, language) +
                        ", node " + info.version;
    return toolchain;
}

Toolchain discover(Language language, const std::string& node, bool prepare) {
    const auto& descriptor = describe(language);
    if (!descriptor.compiled())
        throw sandbox_error(std::string(descriptor.display_name) + " is interpreted: it has no compile stage");
    Toolchain toolchain;
    switch (language) {
        case Language::c:
        case Language::cpp: toolchain = gnu_toolchain(descriptor); break;
        case Language::rust: toolchain = rust_toolchain(descriptor); break;
        case Language::go: toolchain = go_toolchain(descriptor, prepare); break;
        case Language::java: toolchain = java_toolchain(descriptor); break;
        case Language::typescript: toolchain = typescript_toolchain(descriptor, node); break;
        case Language::python:
        case Language::javascript:
        case Language::bash: break;
    }
    toolchain.language = language;
    toolchain.identity = std::string(descriptor.name) + "\n" + toolchain.version;
    std::vector<std::string> files = {toolchain.compiler, toolchain.runtime, toolchain.tsc_script, toolchain.linker};
    files.insert(files.end(), toolchain.class_path.begin(), toolchain.class_path.end());
    for (const auto& file : files) toolchain.identity += "\n" + file_fingerprint(file);
    return toolchain;
}

}  // namespace

std::string toolchain_cache_directory() { return (e2beval_cache_directory() / "toolchains").string(); }

const Toolchain& find_toolchain(Language language, const std::string& node) {
    // One entry per toolchain, each with its own lock: a Go compile waiting for the standard library's
    // preparation holds up Go's lookups only, never another language's.
    struct Entry {
        std::mutex mutex;
        std::optional<Toolchain> toolchain;
    };
    static std::mutex mutex;
    static std::map<std::pair<Language, std::string>, std::unique_ptr<Entry>> found;
    Entry* entry = nullptr;
    {
        std::lock_guard lock(mutex);
        auto& slot = found[std::pair{language, language == Language::typescript ? node : std::string()}];
        if (!slot) slot = std::make_unique<Entry>();
        entry = slot.get();
    }
    std::lock_guard lock(entry->mutex);
    if (!entry->toolchain) entry->toolchain = discover(language, node, true);  // throws: nothing is kept, the next call asks again
    return *entry->toolchain;
}

std::string prepare_toolchain_caches(Language language, const std::string& node,
                                     const std::function<void(const std::string&)>& progress) {
    const auto& descriptor = describe(language);
    if (language != Language::go) {
        const auto toolchain = discover(language, node, false);  // throws when it is missing, as a compile would
        return std::string(descriptor.name) + ": nothing to prepare (" + toolchain.version + ")";
    }
    const auto go = discover(language, node, false);
    const auto root = std::find_if(go.compile_environment.begin(), go.compile_environment.end(),
                                   [](const std::string& setting) { return setting.starts_with("GOROOT="); });
    const GoToolchainIdentity identity{go.compiler, go.version, root->substr(std::string_view("GOROOT=").size())};
    if (const auto ready = ready_go_std_cache(identity)) return "go: standard library already prepared for " + go.version + " in " + *ready;
    return "go: standard library prepared for " + go.version + " in " + ensure_go_std_cache(identity, progress);
}

ToolchainStatus probe_toolchain(Language language, const std::string& node) {
    try {
        return {discover(language, node, false), {}};
    } catch (const error& failure) {
        return {std::nullopt, failure.what()};
    }
}

}  // namespace e2beval::local
