// The compiled languages' toolchains on this host: where each compiler (and runtime) really lives, its version,
// the install prefixes a sandbox mounts read-only for it, and the environment both stages get. Found from the
// language's descriptor (e2beval/core/language.hpp): its env override, else PATH.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "e2beval/core/language.hpp"

namespace e2beval::local {

struct Toolchain {
    Language language = Language::c;
    std::string compiler;  // real path on the host (inside the sandbox: path_inside of it)
    std::string runtime;   // the run stage's program (java, node), real path; empty: the artifact runs itself
    std::string version;   // the compiler's first version line: "g++ (Debian 12.2.0-14) 12.2.0"
    std::string tsc_script;  // TypeScript: the compiler's script (lib/tsc.js), run by node
    std::string linker;      // Rust: the real path of `cc`, which rustc links with
    // Java: the jars on both stages' class path beside the program's classes (E2BEVAL_JAVA_CLASSPATH, colon-separated;
    // MultiPL-E's Java tests import javatuples), real host paths, each mounted read-only.
    std::vector<std::string> class_path;
    // Host paths outside kSystemPaths the compiler and the runtime need, mounted read-only in both stages.
    std::vector<std::string> read_only_paths;
    // NAME=value for the compile stage (Go's GOROOT, GOCACHE, no network and no toolchain switch, ...).
    std::vector<std::string> compile_environment;
    // Go: the build cache e2beval prepared for the standard library (a host directory), mounted as the lower
    // layer of an overlay whose upper layer is in the workspace; empty when there is none.
    std::string prepared_go_cache;
    // What identifies the toolchain in the compile cache's keys: real paths and versions, and each file's size,
    // modification time and inode, so a toolchain repaired or replaced in place (same path, same version line)
    // never gets an answer, such as a compile error, cached from the one before.
    std::string identity;
};

// The toolchain of a compiled `language` (its descriptor's compile_argv is not empty), found once per process.
// `node`: the configured Node.js (TypeScript's compiler and run stage). Throws sandbox_error (errc::unsupported)
// naming what is missing and the command that installs it.
const Toolchain& find_toolchain(Language language, const std::string& node);

// The same search without throwing and without preparing anything (Go's cache): the toolchain, or why there is
// none (for `e2beval doctor`).
struct ToolchainStatus {
    std::optional<Toolchain> toolchain;
    std::string problem;
};
ToolchainStatus probe_toolchain(Language language, const std::string& node);

// `e2beval cache prepare LANG`: what the toolchain of `language` shares between compiles made ready now, on this
// thread (Go: its standard library's build cache, go_std_cache.hpp; the other languages have nothing to prepare).
// Returns a line saying what was done; `progress` hears a preparation's start. Throws sandbox_error as
// find_toolchain does when the toolchain is missing, or when the preparation fails.
std::string prepare_toolchain_caches(Language language, const std::string& node,
                                     const std::function<void(const std::string&)>& progress);

// The directory of e2beval's prepared toolchain caches ($E2BEVAL_CACHE_DIR/toolchains).
std::string toolchain_cache_directory();

}  // namespace e2beval::local
