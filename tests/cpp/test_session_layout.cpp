// A session's filesystem as E2B's: /home/user and /tmp as two directories of the workspace's one tmpfs, and a
// `sudo` that grants nothing and is what runs even where the host has a real, setuid sudo.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/session.hpp"
#include "local/mountns.hpp"
#include "local/sudo_shim.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_session_layout {

using namespace e2beval;

namespace {

// A directory outside /tmp (so it is bound at the same path inside), removed with everything in it.
class HostDirectory {
public:
    HostDirectory() {
        std::string pattern = (std::filesystem::exists("/var/tmp") ? std::string("/var/tmp") : std::filesystem::current_path().string()) +
                              "/e2beval-test-sudo-XXXXXX";
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        path_ = pattern;
        std::filesystem::permissions(path_, std::filesystem::perms(0755));
    }
    ~HostDirectory() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace

TEST_CASE("a session's home and /tmp are two directories of one size-limited workspace") {
    SessionOptions options;
    options.timeout = std::chrono::seconds(60);
    options.limits.workspace_bytes = 8 << 20;
    auto session = testing::test_sandbox().create_session(options);
    CHECK(session->run_command("pwd; cd /tmp && pwd -P; stat -c '%F %a' /home/user /tmp").stdout_data ==
          "/home/user\n/tmp\ndirectory 755\ndirectory 1777\n");
    CHECK(session->run_command("ls -A /home/user /tmp").stdout_data == "/home/user:\n\n/tmp:\n");  // no agent file
    CHECK(session->run_command("head -c 5M /dev/zero > /tmp/a && head -c 5M /dev/zero > /home/user/b").exit_code != 0);
    const auto usage = session->usage();
    REQUIRE(usage.disk_total_bytes);
    CHECK(*usage.disk_total_bytes == 8u << 20);
    CHECK(*usage.disk_used_bytes >= 7u << 20);  // both places count
    session->kill();
}

TEST_CASE("sudo in a session runs as the same user, and covers a setuid sudo the host puts on PATH") {
    HostDirectory host;
    const auto fake = host.path() + "/sudo";
    {
        std::ofstream script(fake);
        script << "#!/bin/sh\necho REAL-SUDO-RAN\n";
    }
    REQUIRE(::chmod(fake.c_str(), 04755) == 0);  // a setuid program, as a real sudo is
    LocalSandboxOptions sandbox_options;
    sandbox_options.ready_sessions = 0;
    sandbox_options.extra_read_only_paths = {host.path()};
    LocalSandbox sandbox(sandbox_options);
    SessionOptions options;
    options.timeout = std::chrono::seconds(60);
    options.env["PATH"] = host.path() + ":/usr/bin:/bin";
    auto session = sandbox.create_session(options);
    const auto ran = session->run_command("sudo id -u; " + fake + " -u root id -u; stat -c '%a %U' " + fake +
                                          "; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status");
    CHECK(ran.exit_code == 0);
    CHECK(ran.stdout_data.find("REAL-SUDO-RAN") == std::string::npos);
    CHECK(ran.stdout_data == "1000\n1000\n555 user\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n");
    session->kill();
    // Without a sudo of the host's, the sandbox's own is found last on PATH.
    auto plain = testing::test_sandbox().create_session(SessionOptions{});
    CHECK(plain->run_command("command -v sudo; sudo whoami").stdout_data ==
          std::string(local::kSudoShimDirectory) + "/sudo\nuser\n");
    plain->kill();
}

TEST_CASE("host paths under /tmp and /home/user are bound elsewhere, so a session's own places do not hide them") {
    CHECK(local::path_inside("/tmp/venv/bin/python") == "/run/e2beval/host-tmp/venv/bin/python");
    CHECK(local::path_inside("/home/user/.venv/bin/python") == "/run/e2beval/host-home-user/.venv/bin/python");
    CHECK(local::path_inside("/home/user") == "/run/e2beval/host-home-user");
    CHECK(local::path_inside("/home/username/bin") == "/home/username/bin");
    CHECK(local::path_inside("/tmpfiles/x") == "/tmpfiles/x");
    CHECK(local::path_directories("/a:relative::/b/c:") == std::vector<std::string>{"/a", "/b/c"});
}

}  // namespace e2beval_test_session_layout
