// supervise()'s promise (src/local/supervisor.hpp): the handler is called exactly once, on the executor and never
// from inside the call, also when the start fails before the first suspension. Each failure is a real one: a
// setting the kernel refuses (the cgroup cannot be made), an fd limit that makes every fd-creating step fail in
// turn (cgroup, pipes, report socket, clone3's pidfd), a stdin too large, a zygote that is gone, a missing
// interpreter. No mock of the kernel.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "e2beval/core/error.hpp"
#include "local/local_settings.hpp"
#include "local/supervisor.hpp"

using namespace e2beval;

namespace {

const LocalSandbox::Settings& settings() {
    static const LocalSandbox::Settings instance{LocalSandboxOptions{}, discover_python("python3")};
    return instance;
}

local::SupervisionRequest request_for(const std::string& code) {
    ExecRequest request;
    request.code = code;
    request.limits.wall_time = std::chrono::seconds(20);
    return local::base_request(settings(), request, true);
}

struct Completion {
    int calls = 0;
    boost::system::error_code ec;
    ExecResult result;
};

// Runs supervise() on a loop of its own; checks that the handler was not called inside the call.
Completion supervise_once(local::SupervisionRequest request) {
    boost::asio::io_context io;
    Completion completion;
    local::supervise(io.get_executor(), std::move(request), [&completion](boost::system::error_code ec, ExecResult result) {
        ++completion.calls;
        completion.ec = ec;
        completion.result = std::move(result);
    });
    CHECK(completion.calls == 0);  // never from inside the initiation
    io.run();
    return completion;
}

// True when this process has no child left (reaped or never made).
bool no_children() {
    siginfo_t info{};
    return ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0 && errno == ECHILD;
}

LocalSandboxOptions pooled() {
    LocalSandboxOptions options;
    options.pool.enabled = true;
    return options;
}

int lowest_free_fd() {
    const int fd = ::dup(0);
    ::close(fd);
    return fd;
}

}  // namespace

TEST_CASE("supervise: a cgroup limit the kernel refuses completes the handler once with a sandbox error, nothing left") {
    auto request = request_for("print('ran')");
    request.limits.max_processes = 100'000'000;  // pids.max above the kernel's PID_MAX_LIMIT: EINVAL
    const auto completion = supervise_once(std::move(request));
    CHECK(completion.calls == 1);
    CHECK(!completion.ec);
    if (local::cgroup_support().version == local::CgroupSupport::Version::none) {
        CHECK(completion.result.outcome == Outcome::ok);  // no cgroup to refuse it: only the rlimit, which takes it
    } else {
        CHECK(completion.result.outcome == Outcome::sandbox_error);
        CHECK(completion.result.detail.find("pids.max") != std::string::npos);
    }
}

TEST_CASE("supervise: a stdin too large is refused through the handler (invalid_input), cold and warm") {
    auto request = request_for("print('never')");
    request.stdin_data.assign((1u << 20) + 1, 'x');
    const auto completion = supervise_once(request);
    CHECK(completion.calls == 1);
    CHECK(completion.ec == make_error_code(errc::invalid_input));
    CHECK(completion.result.outcome == Outcome::sandbox_error);
    CHECK(completion.result.detail.find("larger than 1 MiB") != std::string::npos);
}

TEST_CASE("supervise: a missing interpreter ends in a sandbox error, the handler called once") {
    auto request = request_for("print('never')");
    request.plan.executable = "/nonexistent/e2beval-test/python3";
    request.plan.arguments.front() = request.plan.executable;
    request.plan.finalize();
    const auto completion = supervise_once(std::move(request));
    CHECK(completion.calls == 1);
    CHECK(!completion.ec);
    CAPTURE(completion.result.detail);
    CAPTURE(completion.result.stderr_data);
    CHECK(completion.result.outcome == Outcome::sandbox_error);
    CHECK(completion.result.detail.find("sandbox set-up failed inside the child: execve on /nonexistent/e2beval-test/python3") !=
          std::string::npos);
}

TEST_CASE("a warm execution whose zygote is gone completes once, run cold or on a new zygote") {
    LocalSandbox sandbox(pooled());
    ExecRequest request;
    request.code = "print('ran')";
    REQUIRE(sandbox.execute(request).outcome == Outcome::ok);  // its zygote is back in the pool, ready
    const auto zygotes = sandbox.zygote_pids();
    REQUIRE(!zygotes.empty());
    for (const int pid : zygotes) {
        // Gone for good before the request: a zygote that is still dying may yet start the program (which is then
        // never run again), a different case. Its pidfd is readable once its whole pid namespace is gone.
        const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
        REQUIRE(pidfd >= 0);
        ::kill(pid, SIGKILL);
        pollfd gone{pidfd, POLLIN, 0};
        CHECK(::poll(&gone, 1, 60'000) == 1);
        ::close(pidfd);
    }
    boost::asio::io_context io;
    int calls = 0;
    ExecResult result;
    sandbox.async_execute(request, boost::asio::bind_executor(io, [&](boost::system::error_code ec, ExecResult ran) {
        ++calls;
        CHECK(!ec);
        result = std::move(ran);
    }));
    CHECK(calls == 0);
    io.run();
    CHECK(calls == 1);
    CAPTURE(result.detail);
    CAPTURE(result.stderr_data);
    CAPTURE(result.warm);
    CAPTURE(result.cgroup_version);
    CHECK(result.outcome == Outcome::ok);
    CHECK(result.stdout_data == "ran\n");
}

// The child side of the fd-limit test below: a process of its own, since RLIMIT_NOFILE is the whole process's.
TEST_CASE("supervise under an fd limit in a process of its own (run by the test below)" * doctest::skip()) {
    rlimit original{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &original) == 0);
    const auto request = request_for("print('ran')");
    bool reached_ok = false;
    // Every headroom from none up: each fd-creating step of the start fails in turn, until the start succeeds.
    for (int headroom = 0; headroom < 64 && !reached_ok; ++headroom) {
        CAPTURE(headroom);
        rlimit lowered = original;
        lowered.rlim_cur = static_cast<rlim_t>(lowest_free_fd() + headroom);
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
        Completion completion;
        {
            boost::asio::io_context io;
            local::supervise(io.get_executor(), request, [&completion](boost::system::error_code ec, ExecResult result) {
                ++completion.calls;
                completion.ec = ec;
                completion.result = std::move(result);
            });
            CHECK(completion.calls == 0);
            io.run();
        }
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &original) == 0);
        CHECK(completion.calls == 1);
        CAPTURE(completion.result.detail);
        if (completion.result.outcome == Outcome::ok) {
            CHECK(completion.result.stdout_data == "ran\n");
            MESSAGE("fd sweep: the start succeeded with " << headroom << " fds free; every smaller headroom failed cleanly");
            reached_ok = true;
            break;
        }
        CHECK(completion.result.outcome == Outcome::sandbox_error);
        CHECK(!completion.result.detail.empty());
        CHECK(no_children());  // a start that failed after clone3 killed and reaped what it made
    }
    CHECK(reached_ok);
}

TEST_CASE("supervise: an fd limit at every step of the start completes the handler once, and leaves no process") {
    const auto self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string command =
        "'" + self + "' --no-skip --success=false '-tc=supervise under an fd limit in a process of its own*' 2>&1";
    FILE* child = ::popen(command.c_str(), "r");
    REQUIRE(child != nullptr);
    std::string output;
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, child)) > 0;) output.append(chunk, n);
    const int status = ::pclose(child);
    CAPTURE(output);
    CHECK(output.find("fd sweep: the start succeeded with") != std::string::npos);  // it ran, to a start that worked
    CHECK(output.find("1 passed | 0 failed") != std::string::npos);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // its doctest run passed (its failures are in this test's output)
}
