// Go's standard library compiled once per Go toolchain into a build cache that sandboxed Go compiles read as the
// lower layer of an overlay (compile_stage.cpp). Prepared ahead by `e2beval cache prepare go` (scripts/test.sh
// runs it in the background), else lazily by the first Go compile, with a progress message on stderr.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace e2beval::local {

// The Go toolchain a cache is prepared for: its real `go` binary, its `go version` line and its real GOROOT.
struct GoToolchainIdentity {
    std::string go;
    std::string version;
    std::string goroot;
};

// The prepared cache's directory (…/toolchains/go-<hash>/cache) when it is complete, else nothing. A preparation
// in progress or cut off half-way is never complete: it is written elsewhere and renamed into place at its end.
std::optional<std::string> ready_go_std_cache(const GoToolchainIdentity& go);

// The prepared cache's directory, preparing it on this thread when it is not complete yet (`go build std` on the
// host: ~80 CPU-seconds for Go 1.26). One preparation per cache directory: a lock on the directory keeps every
// other process and thread waiting until it is there, then they use it. `progress` hears what this call is
// doing (preparing, waiting for another's preparation) when it has to wait at all. Throws sandbox_error when the
// standard library does not build.
std::string ensure_go_std_cache(const GoToolchainIdentity& go, const std::function<void(const std::string&)>& progress);

}  // namespace e2beval::local
