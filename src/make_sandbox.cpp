// make_sandbox(BackendConfig): the one place that knows every backend, so the faces pick one by name.
// It sits above the backends (docs/architecture.md); the interface it returns is below them.
#include "e2beval/core/error.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/sandbox.hpp"

namespace e2beval {

E2bSettings e2b_settings(const BackendConfig& config) {
    auto settings = E2bSettings::from_environment();
    if (!config.e2b_api_key.empty()) settings.api_key = config.e2b_api_key;
    if (!config.e2b_domain.empty()) settings.domain = config.e2b_domain;
    if (!config.e2b_api_url.empty()) settings.api_url = config.e2b_api_url;
    if (!config.e2b_sandbox_url.empty()) settings.sandbox_url = config.e2b_sandbox_url;
    if (!config.e2b_template.empty()) settings.template_id = config.e2b_template;
    if (!config.e2b_ca_file.empty()) settings.ca_file = config.e2b_ca_file;
    if (config.e2b_max_sandboxes) settings.max_sandboxes = config.e2b_max_sandboxes;
    if (config.e2b_uses_per_sandbox) settings.uses_per_sandbox = config.e2b_uses_per_sandbox;
    return settings;
}

std::unique_ptr<Sandbox> make_sandbox(const BackendConfig& config) {
    if (config.backend == "local") {
        LocalSandboxOptions options;
        options.python_executable = config.python_executable;
        options.pool.enabled = config.warm_pool;
        return std::make_unique<LocalSandbox>(std::move(options));
    }
    if (config.backend == "e2b") return std::make_unique<E2bSandbox>(e2b_settings(config));
    throw input_error("unknown sandbox backend '" + config.backend + "'; the backends are: local, e2b");
}

}  // namespace e2beval
