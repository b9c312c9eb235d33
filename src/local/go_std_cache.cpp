// Go's prepared standard library (go_std_cache.hpp). Go 1.20 and later ship no compiled standard library: the
// first `go build` compiles what it imports into the build cache (~20 CPU-seconds for fmt and testing alone),
// more than a compile stage's limits. All of std (81.5 CPU-s and 170 MB here), not a list of packages: a cache
// prepared for a list (23.5 CPU-s) made every package outside it fail to compile ("package
// vendor/golang.org/x/net/dns/dnsmessage is not in std" for net), the go command's index of GOROOT being in the
// cache too. It is built on the host, not in a sandbox: only the toolchain's own sources are compiled (no code
// under test, no network: GOPROXY=off), with the settings the sandbox uses, into a temporary directory renamed
// into place when complete, so that a preparation cut off half-way is never read.
#include "local/go_std_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <openssl/evp.h>

#include "e2beval/core/error.hpp"
#include "local/fd.hpp"
#include "local/interpreters.hpp"
#include "local/toolchains.hpp"

namespace e2beval::local {

namespace fs = std::filesystem;

namespace {

// Bumped when what a preparation holds changes (2: the vet facts of every public package): an older one is not used.
constexpr std::string_view kPreparationFormat = "go-std-2";

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

// One directory per toolchain (its binary and version): a Go upgraded in place gets a new one.
fs::path toolchain_directory(const GoToolchainIdentity& go) {
    return fs::path(toolchain_cache_directory()) / ("go-" + hex_sha256(std::string(kPreparationFormat) + "\n" + go.go + "\n" + go.version).substr(0, 16));
}

bool complete(const fs::path& ready) {
    std::error_code ec;
    return fs::is_directory(ready / "cache", ec);
}

// Takes the preparers' lock, telling `progress` when another preparation holds it (this call then waits for it).
UniqueFd take_lock(const fs::path& root, const std::function<void(const std::string&)>& progress) {
    UniqueFd lock(::open((root / ".go-prepare.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!lock) throw sandbox_error("cannot open " + (root / ".go-prepare.lock").string() + ": " + std::strerror(errno));
    if (::flock(lock.get(), LOCK_EX | LOCK_NB) == 0) return lock;
    if (progress)
        progress("waiting for another e2beval to finish preparing Go's standard library in " + root.string());
    while (::flock(lock.get(), LOCK_EX) != 0)
        if (errno != EINTR) throw sandbox_error("cannot lock " + (root / ".go-prepare.lock").string() + ": " + std::strerror(errno));
    return lock;
}

// What an earlier preparation cut off half-way (a killed process) left: nobody else prepares while the lock is
// held, so every temporary directory is such a leftover.
void remove_abandoned_preparations(const fs::path& root) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->path().filename().string().starts_with(".go-prepare-") && it->is_directory(ec)) fs::remove_all(it->path(), ec);
}

// A test file that imports every public standard package (not internal/, vendor/ or cmd/).
void write_vet_preparation(const fs::path& work, const std::string& packages) {
    std::string source = "package prep\n\nimport (\n";
    std::size_t start = 0;
    while (start < packages.size()) {
        const auto end = std::min(packages.find('\n', start), packages.size());
        const auto name = packages.substr(start, end - start);
        start = end + 1;
        const bool internal = name == "internal" || name.starts_with("internal/") || name.find("/internal/") != std::string::npos ||
                              name.ends_with("/internal");
        if (name.empty() || internal || name.starts_with("vendor/") || name.starts_with("cmd/")) continue;
        source += "\t_ \"" + name + "\"\n";
    }
    source += ")\n\nimport \"testing\"\n\nfunc TestPrepared(t *testing.T) {}\n";
    std::error_code ec;
    fs::create_directories(work / "prep", ec);
    std::ofstream file(work / "prep" / "prep_test.go");
    file << source;
    if (!file.flush()) throw sandbox_error("cannot write " + (work / "prep" / "prep_test.go").string());
}

}  // namespace

std::optional<std::string> ready_go_std_cache(const GoToolchainIdentity& go) {
    const auto ready = toolchain_directory(go);
    if (complete(ready)) return (ready / "cache").string();
    return std::nullopt;
}

std::string ensure_go_std_cache(const GoToolchainIdentity& go, const std::function<void(const std::string&)>& progress) {
    const fs::path ready = toolchain_directory(go);
    if (complete(ready)) return (ready / "cache").string();
    const fs::path root = ready.parent_path();
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) throw sandbox_error("cannot create " + root.string() + " for Go's prepared build cache: " + ec.message());
    const auto lock = take_lock(root, progress);
    if (complete(ready)) return (ready / "cache").string();  // another preparation finished while this one waited
    remove_abandoned_preparations(root);
    if (progress)
        progress("preparing Go's standard library for " + go.version + " in " + ready.string() +
                 " (once per toolchain, about a minute of CPU; `e2beval cache prepare go` does it ahead of time)");
    const auto started = std::chrono::steady_clock::now();
    const fs::path work = root / (".go-prepare-" + std::to_string(::getpid()));
    fs::remove_all(work, ec);
    fs::create_directories(work / "cache", ec);
    const std::vector<std::string> go_command = {
        "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=" + work.string(), "GOROOT=" + go.goroot,
        "GOCACHE=" + (work / "cache").string(), "GOPATH=" + (work / "gopath").string(), "GOENV=off", "GOTELEMETRY=off",
        "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=", "CGO_ENABLED=0", "GO111MODULE=on", go.go};
    const auto with = [&](std::initializer_list<std::string> arguments) {
        auto command = go_command;
        command.insert(command.end(), arguments);
        return command;
    };
    try {
        run_host_command(with({"build", "std"}), "Go's standard library did not build into e2beval's prepared cache");
        // `go test` (MultiPL-E's Go programs are test packages, built with `go test -c`) vets the package, and vet
        // first computes facts for every package it imports, 73 of them for fmt and testing: 3.5 CPU-s per compile
        // unless they are cached too. `go vet std` keys them differently (other flags); a test that imports every
        // public standard package, built the way the sandbox builds one, caches exactly what a test needs.
        write_vet_preparation(work, run_host_command(with({"list", "std"}), "`go list std` failed"));
        run_host_command(with({"test", "-c", "-o", (work / "prep.test").string(), (work / "prep" / "prep_test.go").string()}),
                         "Go's vet facts for the standard library did not build into e2beval's prepared cache");
    } catch (...) {
        fs::remove_all(work, ec);
        throw;
    }
    fs::create_directories(ready, ec);
    fs::rename(work / "cache", ready / "cache", ec);
    const auto rename_error = ec;
    fs::remove_all(work, ec);
    if (!complete(ready))
        throw sandbox_error("cannot move Go's prepared build cache into " + ready.string() + ": " + rename_error.message());
    if (progress) {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count();
        progress("prepared Go's standard library in " + std::to_string(seconds) + " s");
    }
    return (ready / "cache").string();
}

}  // namespace e2beval::local
