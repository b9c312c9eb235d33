// make_sandbox(BackendConfig): the one place that knows every backend, so the faces pick one by name.
// It sits above the backends (docs/architecture.md); the interface it returns is below them.
#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/sandbox.hpp"

namespace e2beval {

std::unique_ptr<Sandbox> make_sandbox(const BackendConfig& config) {
    if (config.backend == "local") {
        LocalSandboxOptions options;
        options.python_executable = config.python_executable;
        options.pool.enabled = config.warm_pool;
        return std::make_unique<LocalSandbox>(std::move(options));
    }
    throw input_error("unknown sandbox backend '" + config.backend + "'; the backends are: local");
}

}  // namespace e2beval
