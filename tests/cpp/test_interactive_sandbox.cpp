// InteractiveSandbox owns its process (src/local/interactive_sandbox.hpp): destroying it, or moving another into
// it, kills the whole sandbox and reaps its init, with no call to remember.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "local/local_settings.hpp"
#include "local/supervisor.hpp"

using namespace e2beval;

namespace {

local::InteractiveSandbox waiting_sandbox() {
    static const LocalSandbox::Settings settings{LocalSandboxOptions{}, discover_python("python3")};
    ExecRequest request;
    request.code = "import sys\nsys.stdin.read()\n";  // waits for its owner until the channel closes
    return local::spawn_interactive(local::base_request(settings, request, true));
}

// True once `pid` names no process at all: killed and reaped (a zombie still has its pid).
bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

TEST_CASE("an InteractiveSandbox's end kills and reaps its init: destroyed, killed, or replaced by a move") {
    pid_t pid = -1;
    {
        auto sandbox = waiting_sandbox();
        pid = sandbox.pid();
        REQUIRE(pid > 0);
        CHECK(!gone(pid));
    }
    CHECK(gone(pid));

    auto sandbox = waiting_sandbox();
    pid = sandbox.pid();
    sandbox.kill();
    CHECK(gone(pid));
    CHECK(sandbox.pid() == -1);
    sandbox.kill();  // idempotent

    sandbox = waiting_sandbox();
    pid = sandbox.pid();
    auto moved = std::move(sandbox);
    CHECK(moved.pid() == pid);
    CHECK(!gone(pid));  // a move hands it on: it lives with its new owner
    moved = waiting_sandbox();
    CHECK(gone(pid));  // the one replaced was ended
}
