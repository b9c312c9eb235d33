// The isolation mechanisms one by one, each proven from inside a real sandbox: seccomp (deny and kill,
// reported), privileges, cgroup accounting against programs whose use is known, cleanup of every
// kernel object, and the network opt-in.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "e2beval/local/resident_compilers.hpp"
#include "e2beval/local/doctor.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "waiting.hpp"
#include "test_sandbox.hpp"
#include "local/cgroup.hpp"
#include "local/deferred_reap.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_isolation {

using namespace e2beval;
using namespace std::chrono_literals;

namespace {

LocalSandbox& sandbox() { return testing::test_sandbox(); }

ExecResult run(const std::string& code, Limits limits = {}, IsolationProfile isolation = {}) {
    ExecRequest request;
    request.code = code;
    request.limits = limits;
    request.isolation = isolation;
    return sandbox().execute(request);
}

bool denied(const ExecResult& result, const std::string& name) {
    return std::find(result.denied_syscalls.begin(), result.denied_syscalls.end(), name) != result.denied_syscalls.end();
}

std::size_t open_fds() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
    return count;
}

bool cgroup_procs_file_open() {
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        const auto target = std::filesystem::read_symlink(entry.path(), ignored);  // closed while we looked: ""
        if (target.filename() == "cgroup.procs") return true;
    }
    return false;
}

// The fd count once the warm pool's background work is done: a zygote's next process is moved into its
// cgroup on a thread of its own, which has a cgroup.procs file open for a moment after an execution ends.
// A leak stays; that file goes: counted once no cgroup.procs file is open.
std::size_t settled_fd_count() {
    CHECK_MESSAGE(testing::until([] { return !cgroup_procs_file_open(); }),
                  "the warm pool kept a cgroup.procs file open");
    return open_fds();
}

std::vector<std::string> leftover_cgroups() {
    std::vector<std::string> left;
    const auto& support = local::cgroup_support();
    std::vector<std::string> parents(1, support.v2_parent);
    for (const auto& [controller, directory] : support.v1_parents) parents.push_back(directory);
    const auto prefix = "e2beval-" + std::to_string(::getpid()) + "-";
    for (const auto& parent : parents) {
        if (parent.empty()) continue;
        for (const auto& entry : std::filesystem::directory_iterator(parent))
            if (entry.path().filename().string().rfind(prefix, 0) == 0) left.push_back(entry.path());
    }
    return left;
}

// How many directories one sandbox cgroup has: one per v1 controller in use, or the v2 one; 0 without.
std::size_t local_cgroup_directories() {
    const auto& support = local::cgroup_support();
    if (support.version == local::CgroupSupport::Version::v2) return 1;
    return support.version == local::CgroupSupport::Version::v1 ? support.v1_parents.size() : 0;
}

constexpr const char* kLibc = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n";

}  // namespace

TEST_CASE("seccomp denies namespace and tracing calls with EPERM and reports each") {
    const auto result = run(std::string(kLibc) +
                            "print(libc.unshare(0x10000000), ctypes.get_errno())\n"   // CLONE_NEWUSER
                            "print(libc.ptrace(16, 1, 0, 0), ctypes.get_errno())\n"   // PTRACE_ATTACH to init
                            "print(libc.syscall(425, 8, 0), ctypes.get_errno())\n");  // io_uring_setup
    CHECK(result.outcome == Outcome::ok);
    CHECK(result.stdout_data == "-1 1\n-1 1\n-1 1\n");
    CHECK(denied(result, "unshare"));
    CHECK(denied(result, "ptrace"));
    CHECK(denied(result, "io_uring_setup"));
    CHECK(result.detail.find("denied system calls: unshare, ptrace, io_uring_setup") != std::string::npos);
}

TEST_CASE("sockets other than AF_UNIX are denied; AF_UNIX works") {
    const auto result = run(
        "import socket\n"
        "a, b = socket.socketpair()\na.send(b'x')\nprint(b.recv(1))\n"
        "try:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nexcept PermissionError:\n    print('denied')\n");
    CHECK(result.outcome == Outcome::ok);
    CHECK(result.stdout_data == "b'x'\ndenied\n");
    CHECK(denied(result, "socket"));
}

TEST_CASE("in kill mode the first denied call ends the sandbox as seccomp_violation") {
    IsolationProfile isolation;
    isolation.seccomp = SeccompMode::kill;
    const auto result = run(std::string(kLibc) + "print('before', flush=True)\nlibc.unshare(0x20000)\nprint('after')\n", {}, isolation);
    CHECK(result.outcome == Outcome::seccomp_violation);
    CHECK(result.stdout_data == "before\n");
    CHECK(denied(result, "unshare"));
    CHECK(result.detail == "killed at a denied system call: unshare");
}

TEST_CASE("the program has no capabilities, no_new_privs, seccomp, and an unprivileged id") {
    const auto result = run(
        "status = dict(line.split(':\\t', 1) for line in open('/proc/self/status').read().splitlines() if ':\\t' in line)\n"
        "for key in ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp']:\n"
        "    print(key, status[key].strip())\n"
        "import os\nprint(os.getuid(), os.getgid(), os.getgroups(), os.getsid(0) == os.getpid())\n"
        "print(open('/proc/self/uid_map').read().split())\n");
    CHECK(result.outcome == Outcome::ok);
    const auto map_at = result.stdout_data.find("['1000', '");
    REQUIRE(map_at != std::string::npos);
    CHECK(result.stdout_data.substr(0, map_at) ==
          "CapInh 0000000000000000\nCapPrm 0000000000000000\nCapEff 0000000000000000\nCapBnd 0000000000000000\n"
          "CapAmb 0000000000000000\nNoNewPrivs 1\nSeccomp 2\n1000 1000 [] True\n");
    // One id mapped: 1000 inside; outside, the caller's own id, or a dedicated unused id when root.
    const auto host_id = std::stoul(result.stdout_data.substr(map_at + 10));
    if (::geteuid() == 0) CHECK(host_id >= 1'900'000'000ul);
    else CHECK(host_id == ::geteuid());
    CHECK(result.stdout_data.substr(result.stdout_data.rfind("', '") + 4) == "1']\n");
}

TEST_CASE("peak memory and cpu time match programs whose use is known") {
    const auto idle = run("print(1)");
    REQUIRE(idle.peak_memory_bytes.has_value());
    CHECK(*idle.peak_memory_bytes < 40 * kMiB);

    const auto touched = run("x = bytearray(100 << 20)\nfor i in range(0, len(x), 4096):\n    x[i] = 1\nprint(len(x))\n");
    CHECK(touched.outcome == Outcome::ok);
    REQUIRE(touched.peak_memory_bytes.has_value());
    CHECK(*touched.peak_memory_bytes >= 100 * kMiB);
    CHECK(*touched.peak_memory_bytes <= 160 * kMiB);

    const auto busy = run("import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end:\n    pass\n");
    CHECK(busy.outcome == Outcome::ok);
    CHECK(busy.cpu_time >= 600ms);
    CHECK(busy.cpu_time <= 1500ms);  // accounting, not speed: the program stops itself at 0.6 s of cpu
}

TEST_CASE("cgroup accounting sees the whole tree, and limits end it with the right outcome") {
    if (local::cgroup_support().version == local::CgroupSupport::Version::none) {
        MESSAGE("no usable cgroups on this host: tree accounting is not available (see e2beval doctor)");
        CHECK(run("print(1)").cgroup_version == "none");
        return;
    }
    // Two processes burning 0.4 s each: the tree used >= 0.8 s although neither alone did.
    const auto tree = run(
        "import os, time\n"
        "def burn():\n    end = time.process_time() + 0.4\n    while time.process_time() < end:\n        pass\n"
        "pid = os.fork()\nburn()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\n");
    CHECK(tree.outcome == Outcome::ok);
    CHECK(tree.cpu_time >= 800ms);
    CHECK(tree.isolation_level == "full");

    Limits cpu;
    cpu.cpu_time = 1s;
    cpu.wall_time = 20s;
    const auto spinning = run("import os\nos.fork()\nos.fork()\nwhile True:\n    pass\n", cpu);
    // Four spinners: the tree's cpu (not any single process's) ran out first, so the detail says so.
    CHECK(spinning.outcome == Outcome::cpu_limit);
    CHECK(spinning.detail.find("all processes together") != std::string::npos);

    Limits pids;
    pids.max_processes = 8;
    const auto forks = run("import os, time\nfor _ in range(50):\n    if os.fork() == 0:\n        time.sleep(5)\n        os._exit(0)\n", pids);
    CHECK(forks.outcome == Outcome::pids_limit);

    Limits memory;
    memory.memory_bytes = 64 * kMiB;
    const auto hog = run("blocks = []\nwhile True:\n    blocks.append(b'\\x01' * (4 << 20))\n", memory);
    CHECK(hog.outcome == Outcome::memory_limit);
}

TEST_CASE("no fds, cgroups or processes are left behind by many executions") {
    local::finish_deferred_reaps();  // the earlier tests' last cold inits and cgroups
    // The earlier tests' Java and TypeScript compiles left resident compile services, each with its pipes, pidfd and
    // cgroup, which end by themselves after a minute idle: in the middle of this count, unless they end now.
    end_resident_compilers();
    const auto fds_at_start = open_fds();
    const auto cgroups_at_start = leftover_cgroups();
    {
        LocalSandboxOptions options;
        options.pool.enabled = testing::pool_enabled();
        options.pool.max_zygotes = 1;
        LocalSandbox own(options);
        const auto run_here = [&](const std::string& code, Limits limits) {
            ExecRequest request;
            request.code = code;
            request.limits = limits;
            return own.execute(request);
        };
        // Warm, the first execution starts the zygote, which keeps two cgroups its executions reuse: between
        // executions only they exist, the same ones; cold, each execution's cgroup goes with it. A reused
        // cgroup keeps the files an execution reads open from its first execution on: three executions
        // have used both, so the count holds from here.
        for (int i = 0; i < 3; ++i) REQUIRE(run_here("print(1)", {}).outcome == Outcome::ok);
        local::finish_deferred_reaps();  // cold: those executions' inits and cgroups go after their results
        const auto fds_before = settled_fd_count();
        const auto cgroups_before = leftover_cgroups();
        CHECK(cgroups_before.size() == cgroups_at_start.size() + (options.pool.enabled ? 2 * local_cgroup_directories() : 0));
        for (int i = 0; i < 20; ++i) {
            const auto result = run_here(i % 2 ? "import os\nos.fork()\nprint(1)" : "while True: pass", Limits{.wall_time = 200ms});
            CHECK((result.outcome == Outcome::ok || result.outcome == Outcome::timeout));
        }
        // A cold execution's init exits, and its cgroup goes, after the result (deferred_reap.hpp).
        local::finish_deferred_reaps();
        CHECK(settled_fd_count() == fds_before);
        CHECK(leftover_cgroups() == cgroups_before);
    }
    local::finish_deferred_reaps();
    CHECK(settled_fd_count() == fds_at_start);
    CHECK(leftover_cgroups() == cgroups_at_start);
}

TEST_CASE("network is opt-in: with it the code can reach a listener on the host's 127.0.0.1") {
    const testing::LoopbackListener listener;
    const auto code = "import socket\ntry:\n    socket.create_connection(('127.0.0.1', " + listener.port() +
                      "), timeout=2).close()\n    print('connected')\nexcept OSError as error:\n    print('refused', type(error).__name__)\n";
    CHECK(run(code).stdout_data == "refused PermissionError\n");
    IsolationProfile network;
    network.network = true;
    CHECK(run(code, {}, network).stdout_data == "connected\n");
}

TEST_CASE("doctor reports every mechanism and the enforced level") {
    const auto report = diagnose_host();
    std::vector<std::string> mechanisms;
    for (const auto& check : report.checks) mechanisms.push_back(check.mechanism);
    CHECK(mechanisms == std::vector<std::string>{"kernel", "user namespaces", "seccomp", "cgroups", "sandbox probe"});
    REQUIRE(report.enforced_level.has_value());
    CHECK(report.checks.back().ok);
    CHECK(*report.enforced_level ==
          (local::cgroup_support().version == local::CgroupSupport::Version::none ? IsolationLevel::standard : IsolationLevel::full));
}

TEST_CASE("pid 1 inside shows nothing of the host process") {
    ::setenv("E2BEVAL_TEST_SECRET", "host-secret-value", 1);
    const auto result = run(
        "for name in ['cmdline', 'environ']:\n"
        "    try:\n"
        "        print(name, open('/proc/1/' + name, 'rb').read().strip(b'\\0'))\n"
        "    except OSError as error:\n"
        "        print(name, 'unreadable')\n");
    ::unsetenv("E2BEVAL_TEST_SECRET");
    CHECK(result.outcome == Outcome::ok);
    if (testing::pool_enabled()) {
        // Warm: pid 1 is the program itself, forked from the zygote: the sandbox's own command line and
        // environment (the zygote's), nothing of the host process.
        CHECK(result.stdout_data.find("zygote.py") != std::string::npos);
    } else {
        // Cold: pid 1 is the sandbox's init, a copy of this process, which wipes its strings.
        CHECK(result.stdout_data == "cmdline b''\nenviron unreadable\n");
    }
    CHECK(result.stdout_data.find("host-secret-value") == std::string::npos);
    CHECK(result.stdout_data.find("e2beval_tests") == std::string::npos);
}

}  // namespace e2beval_test_isolation
