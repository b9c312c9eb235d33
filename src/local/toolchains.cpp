// Finds the compiled languages' toolchains on the host (see toolchains.hpp): each compiler's real binary behind
// version managers' shims (rustup's proxies, alternatives' links), its install prefix, its version, and what the
// sandbox must mount and set for it. Works with Debian's packages (gcc/g++, golang-go, rustc,
// openjdk-17-jdk-headless under /usr) as with installs elsewhere (/usr/local/go, ~/.rustup/toolchains/X).
#include "local/toolchains.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <openssl/evp.h>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"
#include "local/fd.hpp"
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

// The binary a ToolSpec names: its env override when set, else its name on PATH. Throws with the install hint.
std::string locate(const ToolSpec& tool, std::string_view language) {
    std::string wanted(tool.binary);
    if (!tool.env_override.empty())
        if (const char* configured = std::getenv(std::string(tool.env_override).c_str()); configured && *configured) wanted = configured;
    const auto found = find_binary(wanted);
    if (!found.empty()) return found;
    throw sandbox_error(std::string(language) + " needs `" + wanted + "`, which this host does not have" +
                            (tool.env_override.empty() ? std::string() : " (or set " + std::string(tool.env_override) + " to its path)") +
                            "; install it: " + std::string(tool.install_hint),
                        errc::unsupported);
}

std::string hex_sha256(std::string_view text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1)
        throw sandbox_error("EVP_Digest(sha256) failed");
    static const char* kHex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) out += {kHex[digest[i] >> 4], kHex[digest[i] & 15]};
    return out;
}

// Go compiles the standard library into its build cache on first use (Go 1.20 and later ship no precompiled
// std): ~20 CPU-seconds for fmt and testing alone, more than a compile's limits. All of std (81.5 CPU-s and 170 MB
// here): a cache prepared for a list of packages (23.5 CPU-s) made every package outside it fail to compile
// ("package vendor/golang.org/x/net/dns/dnsmessage is not in std" for net), the go command's index of GOROOT
// being in the cache too. e2beval builds it once per toolchain, here, on the host:
// only the toolchain's own sources are compiled (no code under test, no network: GOPROXY=off), with the same
// settings the sandbox uses, into a temporary directory renamed into place when complete. A sandboxed `go build`
// then reads it as the lower layer of an overlay (its writes land in the workspace).
std::string prepare_go_cache(const Toolchain& go, const std::string& goroot) {
    const fs::path root = toolchain_cache_directory();
    const fs::path ready = root / ("go-" + hex_sha256(go.compiler + "\n" + go.version).substr(0, 16));
    std::error_code ec;
    if (fs::is_directory(ready / "cache", ec)) return (ready / "cache").string();
    fs::create_directories(root, ec);
    if (ec) throw sandbox_error("cannot create " + root.string() + " for Go's prepared build cache: " + ec.message());
    // One preparation at a time across processes; the second finds it ready.
    const UniqueFd lock(::open((root / ".go-prepare.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock) ::flock(lock.get(), LOCK_EX);
    if (fs::is_directory(ready / "cache", ec)) return (ready / "cache").string();
    const fs::path work = root / (".go-prepare-" + std::to_string(::getpid()));
    fs::remove_all(work, ec);
    fs::create_directories(work / "cache", ec);
    const std::vector<std::string> environment = {
        "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=" + work.string(), "GOROOT=" + goroot,
        "GOCACHE=" + (work / "cache").string(), "GOPATH=" + (work / "gopath").string(), "GOENV=off", "GOTELEMETRY=off",
        "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=", "CGO_ENABLED=0", "GO111MODULE=on", go.compiler};
    auto build = environment;
    build.insert(build.end(), {"build", "std"});
    try {
        run_host_command(build, "Go's standard library did not build into e2beval's prepared cache");
    } catch (...) {
        fs::remove_all(work, ec);
        throw;
    }
    fs::create_directories(ready, ec);
    fs::rename(work / "cache", ready / "cache", ec);
    fs::remove_all(work, ec);
    if (ec && !fs::is_directory(ready / "cache")) throw sandbox_error("cannot move Go's prepared build cache into " + ready.string());
    return (ready / "cache").string();
}

std::string real_path(const std::string& path) {
    std::error_code ec;
    const auto real = fs::canonical(path, ec);
    return ec ? path : real.string();
}

Toolchain gnu_toolchain(const LanguageDescriptor& language) {
    Toolchain toolchain;
    toolchain.compiler = real_path(locate(language.compiler, language.display_name));
    toolchain.version = first_line(run_host_command({toolchain.compiler, "--version"}, std::string(language.compiler.install_hint)));
    return toolchain;
}

Toolchain rust_toolchain(const LanguageDescriptor& language) {
    Toolchain toolchain;
    const auto rustc = locate(language.compiler, language.display_name);
    // rustup's `rustc` is a proxy that needs the user's RUSTUP_HOME: the sysroot holds the real compiler.
    const auto sysroot = first_line(run_host_command({rustc, "--print", "sysroot"}, std::string(language.compiler.install_hint)));
    std::error_code ec;
    const auto real = fs::canonical(fs::path(sysroot) / "bin" / "rustc", ec);
    toolchain.compiler = ec ? real_path(rustc) : real.string();
    toolchain.version = first_line(run_host_command({toolchain.compiler, "--version"}, std::string(language.compiler.install_hint)));
    add_mount(toolchain, fs::canonical(sysroot, ec).string());
    const auto cc = find_binary("cc");
    if (cc.empty())
        throw sandbox_error("rustc links with `cc`, which this host does not have; install it: apt-get install gcc", errc::unsupported);
    toolchain.linker = real_path(cc);
    add_mount(toolchain, fs::path(toolchain.linker).parent_path().string());
    return toolchain;
}

Toolchain go_toolchain(const LanguageDescriptor& language, bool prepare) {
    Toolchain toolchain;
    const auto go = locate(language.compiler, language.display_name);
    const auto goroot = first_line(run_host_command({go, "env", "GOROOT"}, std::string(language.compiler.install_hint)));
    std::error_code ec;
    const auto real = fs::canonical(fs::path(goroot) / "bin" / "go", ec);
    toolchain.compiler = ec ? real_path(go) : real.string();
    toolchain.version = first_line(run_host_command({toolchain.compiler, "version"}, std::string(language.compiler.install_hint)));
    const auto real_root = fs::canonical(goroot, ec).string();
    add_mount(toolchain, real_root);
    toolchain.compile_environment = {"GOROOT=" + real_root, "GOCACHE=/tmp/.cache/go-build", "GOPATH=/tmp/go", "GOENV=off",
                                     "GOTELEMETRY=off", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=", "CGO_ENABLED=0",
                                     "GO111MODULE=on", "GOWORK=off"};
    if (prepare) {
        toolchain.prepared_go_cache = prepare_go_cache(toolchain, real_root);
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
    const auto version = run_host_command({toolchain.compiler, "-version"}, std::string(language.compiler.install_hint));
    toolchain.version = version.empty() ? "javac (" + java_home.string() + ")" : first_line(version);
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
    toolchain.version = "tsc " + first_line(run_host_command({info.executable, script, "--version"}, std::string(language.compiler.install_hint))) +
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
    static std::mutex mutex;
    static std::map<std::pair<Language, std::string>, Toolchain> found;
    std::lock_guard lock(mutex);
    const auto key = std::pair{language, language == Language::typescript ? node : std::string()};
    if (auto it = found.find(key); it != found.end()) return it->second;
    return found.emplace(key, discover(language, node, true)).first->second;
}

ToolchainStatus probe_toolchain(Language language, const std::string& node) {
    try {
        return {discover(language, node, false), {}};
    } catch (const error& failure) {
        return {std::nullopt, failure.what()};
    }
}

}  // namespace e2beval::local
