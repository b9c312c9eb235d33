// spawn_interactive() (interactive_sandbox.hpp).
#include "local/interactive_sandbox.hpp"

namespace e2beval::local {

InteractiveSandbox spawn_interactive(SupervisionRequest request) {
    InteractiveSandbox sandbox;
    Spawned spawned = spawn(request, true, &sandbox.stdin_write);
    sandbox.init_ = std::move(spawned.init);
    sandbox.stdout_read = std::move(spawned.stdout_read);
    sandbox.stderr_read = std::move(spawned.stderr_read);
    sandbox.report = std::move(spawned.report);
    if (spawned.cgroup) sandbox.cgroup = std::make_unique<SandboxCgroup>(std::move(*spawned.cgroup));
    return sandbox;
}

}  // namespace e2beval::local
