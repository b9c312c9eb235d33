// The warm pool: executions from the same zygote share nothing, a broken zygote is replaced, and the
// pool's bookkeeping leaves nothing behind. (Every other test also runs warm and cold: see test_sandbox.hpp.)
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>
#include <set>

#include "e2beval/eval/batch.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "waiting.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_warm_pool {

using namespace e2beval;

namespace {

LocalSandbox one_zygote_sandbox() {
    LocalSandboxOptions options;
    options.pool.enabled = true;
    options.pool.max_zygotes = 1;  // both executions come from the same zygote
    return LocalSandbox(options);
}

bool local_cgroups_in_use() {
    ExecRequest request;
    request.code = "print(1)";
    return LocalSandbox().execute(request).cgroup_version != "none";
}

ExecResult run(LocalSandbox& sandbox, const std::string& code) {
    ExecRequest request;
    request.code = code;
    request.limits.wall_time = std::chrono::seconds(5);
    return sandbox.execute(request);
}

}  // namespace

TEST_CASE("state does not leak between two executions from the same zygote") {
    auto sandbox = one_zygote_sandbox();
    sandbox.warm_up(1);
    const auto zygotes = sandbox.zygote_pids();
    REQUIRE(zygotes.size() == 1);

    const auto first = run(sandbox,
        "import builtins, json, os, sys, time, ctypes, socket\n"
        "open('/tmp/left.txt', 'w').write('x')\n"
        "open('/dev/shm/left', 'w').write('x')\n"
        "builtins.LEFT_BEHIND = 1\n"
        "json.dumps = lambda *a, **k: 'patched'\n"
        "sys.modules['left_module'] = sys\n"
        "os.environ['LEFT_ENV'] = '1'\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('shm', libc.shmget(0x2B2B, 4096, 0o1666))\n"  // IPC_CREAT: a SysV segment outlives processes
        "listener = socket.socket(socket.AF_UNIX)\nlistener.bind('\\0e2beval-left')\nlistener.listen()\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    time.sleep(60)\n"
        "print('left things behind', flush=True)\n");
    CHECK(first.outcome == Outcome::ok);
    CHECK(first.warm);
    CHECK(first.stdout_data.find("left things behind") != std::string::npos);

    const auto second = run(sandbox,
        "import builtins, json, os, sys, ctypes, socket\n"
        "print(os.path.exists('/tmp/left.txt'), os.path.exists('/dev/shm/left'))\n"
        "print(hasattr(builtins, 'LEFT_BEHIND'), json.dumps([1]), 'left_module' in sys.modules, 'LEFT_ENV' in os.environ)\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.shmget(0x2B2B, 4096, 0))\n"  // no IPC_CREAT: finds the segment only if it leaked
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n    s.connect('\\0e2beval-left')\n    print('connected')\nexcept OSError:\n    print('no listener')\n"
        "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n");
    CHECK(second.outcome == Outcome::ok);
    CHECK(second.warm);
    CHECK(second.stdout_data == "False False\nFalse [1] False False\n-1\nno listener\n[1]\n");
    CHECK(sandbox.zygote_pids() == zygotes);  // really the same zygote
}

TEST_CASE("each execution from one zygote gets a fresh random seed and exactly its own environment") {
    // The zygote forks without CPython's after-fork handlers (warm_serve.cpp): random's re-seed is done by
    // the zygote's child itself, and the environment is set only where a request's differs from the zygote's.
    auto sandbox = one_zygote_sandbox();
    sandbox.warm_up(1);
    const auto zygotes = sandbox.zygote_pids();
    const std::string code = "import os, random\nprint(random.getrandbits(64), sorted(os.environ))\n";
    std::set<std::string> draws;
    std::string default_names;
    for (int i = 0; i < 3; ++i) {
        const auto result = run(sandbox, code);
        REQUIRE(result.outcome == Outcome::ok);
        CHECK(result.warm);
        const auto space = result.stdout_data.find(' ');
        draws.insert(result.stdout_data.substr(0, space));
        if (i == 0) default_names = result.stdout_data.substr(space);
        CHECK(result.stdout_data.substr(space) == default_names);
    }
    CHECK(draws.size() == 3);

    ExecRequest with_env;
    with_env.code = "import os\nprint(os.environ['ONLY_HERE'], os.environ.get('HOME'))\n";
    with_env.env = {{"ONLY_HERE", "yes"}};
    const auto asked = sandbox.execute(with_env);
    CHECK(asked.outcome == Outcome::ok);
    CHECK(asked.stdout_data.rfind("yes ", 0) == 0);
    // The next request, with the default environment, does not see the previous one's.
    const auto after = run(sandbox, code);
    CHECK(after.stdout_data.substr(after.stdout_data.find(' ')) == default_names);
    CHECK(sandbox.zygote_pids() == zygotes);
}

TEST_CASE("a zygote that dies is replaced, and the execution that needed it still runs") {
    auto sandbox = one_zygote_sandbox();
    sandbox.warm_up(1);
    const auto before = sandbox.zygote_pids();
    REQUIRE(before.size() == 1);
    ::kill(before[0], SIGKILL);  // the zygote's sandbox init: takes the zygote with it
    // Until the kernel has torn its pid namespace down, the zygote may still take the request and start
    // the program, which the teardown then kills: a sandbox_error, honestly. What this test is about is a
    // zygote that died while idle, so it waits until it is gone.
    REQUIRE_MESSAGE(testing::until([&] { return sandbox.zygote_pids().empty(); }), "the killed zygote was never gone");
    const auto result = run(sandbox, "print('still fine')");  // runs cold when its zygote is gone
    CHECK(result.outcome == Outcome::ok);
    CHECK(result.stdout_data == "still fine\n");
    CHECK(run(sandbox, "print(1)").warm);  // and the next one has a new zygote
    const auto after = sandbox.zygote_pids();
    REQUIRE(after.size() == 1);
    CHECK(after != before);
}

TEST_CASE("a zygote is recycled after its number of uses") {
    LocalSandboxOptions options;
    options.pool.max_zygotes = 1;
    options.pool.max_uses = 2;
    LocalSandbox sandbox(options);
    std::vector<std::vector<int>> seen;
    for (int i = 0; i < 3; ++i) {
        CHECK(run(sandbox, "print(1)").warm);
        seen.push_back(sandbox.zygote_pids());
    }
    CHECK(seen[0].size() == 1);  // the first use started it
    CHECK(seen[1].empty());      // its second use was its last: retired
    REQUIRE(seen[2].size() == 1);
    CHECK(seen[2] != seen[0]);   // a new one
}

TEST_CASE("a worn-out zygote's replacement is launched ahead of need, so its recycling costs no start") {
    // The spare is launched when a zygote has 64 uses left (WarmPool::kSpareLead): here after its 6th.
    LocalSandboxOptions options;
    options.pool.max_zygotes = 2;
    options.pool.max_uses = 70;
    LocalSandbox sandbox(options);
    for (int i = 0; i < 5; ++i) REQUIRE(run(sandbox, "print(1)").warm);
    const auto first = sandbox.zygote_pids();
    REQUIRE(first.size() == 1);
    REQUIRE(run(sandbox, "print(1)").warm);  // the 6th use: the spare is launched as it is given back
    const auto with_spare = sandbox.zygote_pids();
    REQUIRE(with_spare.size() == 2);
    const int spare = with_spare[0] == first[0] ? with_spare[1] : with_spare[0];
    for (int i = 6; i < 70; ++i) REQUIRE(run(sandbox, "print(1)").warm);  // the old one serves to its end
    CHECK(sandbox.zygote_pids() == std::vector<int>{spare});                // retired; the spare is what is left
    const auto next = run(sandbox, "print('from the spare')");
    CHECK(next.warm);
    CHECK(next.stdout_data == "from the spare\n");
    CHECK(sandbox.zygote_pids() == std::vector<int>{spare});  // no zygote was launched for it
}

TEST_CASE("executions from one zygote that ask for different limits each get their own, in reused cgroups") {
    // A zygote's executions reuse its cgroups: each writes only the limits that differ from the previous
    // one's, in both directions, and counts its own usage (not what earlier executions there used).
    auto sandbox = one_zygote_sandbox();
    const auto with = [&](const std::string& code, Limits limits) {
        ExecRequest request;
        request.code = code;
        request.limits = limits;
        request.limits.wall_time = std::chrono::seconds(10);
        return sandbox.execute(request);
    };
    const std::string allocate = "blocks = [b'\\x01' * (8 << 20) for _ in range(12)]\nprint('allocated')\n";  // 96 MiB
    const std::string fork = "import os, time\nfor _ in range(12):\n    if os.fork() == 0:\n        time.sleep(1)\n        os._exit(0)\nprint('forked')\n";
    Limits small;
    small.memory_bytes = 64 * kMiB;
    small.max_processes = 4;
    Limits busy;
    busy.cpu_time = std::chrono::seconds(1);
    const auto burned = with("import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end:\n    pass\n", busy);
    const auto hog = with(allocate, small);
    const auto roomy = with(allocate, {});
    const auto forks_capped = with(fork, small);
    const auto forks_allowed = with(fork, {});
    const auto idle = with("print(1)", {});
    for (const auto* result : {&burned, &hog, &roomy, &forks_capped, &forks_allowed, &idle}) CHECK(result->warm);
    CHECK(sandbox.zygote_pids().size() == 1);  // one zygote served them all
    if (local_cgroups_in_use()) {
        CHECK(hog.outcome == Outcome::memory_limit);
        CHECK(forks_capped.outcome == Outcome::pids_limit);
    }
    CHECK(roomy.outcome == Outcome::ok);
    CHECK(roomy.stdout_data == "allocated\n");
    CHECK(forks_allowed.outcome == Outcome::ok);
    CHECK(forks_allowed.stdout_data == "forked\n");
    // CPU time is this execution's own: the 0.5 s burned two executions before is not in it.
    CHECK(burned.cpu_time >= std::chrono::milliseconds(500));
    CHECK(idle.cpu_time < std::chrono::milliseconds(300));
}

TEST_CASE("with the pool disabled every execution is cold") {
    LocalSandboxOptions options;
    options.pool.enabled = false;
    LocalSandbox sandbox(options);
    sandbox.warm_up(2);
    CHECK(sandbox.zygote_pids().empty());
    CHECK_FALSE(run(sandbox, "print(1)").warm);
}

TEST_CASE("a kill-mode request never runs in a deny-mode zygote: zygotes are kept per whole isolation profile") {
    LocalSandboxOptions options;
    options.pool.enabled = true;
    options.pool.max_zygotes = 2;
    LocalSandbox sandbox(options);
    sandbox.warm_up(1, IsolationProfile{});  // an idle deny-mode zygote, the one a network-only key would pick
    REQUIRE(sandbox.zygote_pids().size() == 1);

    ExecRequest strict;
    strict.code = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint('before', flush=True)\nlibc.unshare(0x20000)\nprint('after')\n";
    strict.isolation.seccomp = SeccompMode::kill;
    const auto killed = sandbox.execute(strict);
    CHECK(killed.warm);
    CHECK_MESSAGE(killed.outcome == Outcome::seccomp_violation, to_string(killed.outcome) << ": " << killed.stdout_data);
    CHECK(killed.stdout_data == "before\n");
    CHECK(sandbox.zygote_pids().size() == 2);  // its own kill-mode zygote

    ExecRequest lenient = strict;
    lenient.isolation.seccomp = SeccompMode::deny;
    const auto denied = sandbox.execute(lenient);
    CHECK(denied.warm);
    CHECK(denied.outcome == Outcome::ok);
    CHECK(denied.stdout_data == "before\nafter\n");
}

TEST_CASE("a zygote that dies under an execution of a LocalSandbox already destroyed: the cold rerun still runs") {
    // The cold rerun is prepared from settings the execution holds, not from the destroyed object; the
    // sanitizer build (docs/cpp.md) shows no use after free.
    boost::asio::io_context context;
    std::optional<ExecResult> result;
    {
        auto sandbox = one_zygote_sandbox();
        sandbox.warm_up(1);
        const auto zygotes = sandbox.zygote_pids();
        REQUIRE(zygotes.size() == 1);
        ExecRequest request;
        request.code = "print('rerun')";
        sandbox.async_execute(request, boost::asio::bind_executor(context, [&](boost::system::error_code ec, ExecResult r) {
                                  CHECK_FALSE(ec);
                                  result = std::move(r);
                              }));
        ::kill(zygotes[0], SIGKILL);  // most often before the zygote forked the program: the execution reruns cold
    }
    context.run();
    REQUIRE(result.has_value());
    // Which of these depends on how far the zygote got before it died; what matters is that the execution
    // completes, and (under the sanitizer) touches nothing of the destroyed object.
    if (result->outcome == Outcome::ok) CHECK(result->stdout_data == "rerun\n");
    else CHECK_MESSAGE((result->outcome == Outcome::signaled || result->outcome == Outcome::sandbox_error),
                       to_string(result->outcome) << ": " << result->detail);
}

TEST_CASE("a new zygote starts on the event loop: the initiation returns at once, and cancelling the wait ends it") {
    // Before, starting a zygote blocked inside async_execute's initiation (up to 20 s), stalling every
    // other execution of the loop. Now the initiation only launches it: a cancellation emitted right after
    // the call finds the execution still waiting for its zygote, before anything ran.
    auto sandbox = one_zygote_sandbox();
    REQUIRE(sandbox.zygote_pids().empty());
    boost::asio::io_context context;
    boost::asio::cancellation_signal cancel;
    ExecRequest request;
    request.code = "print('never')";
    std::optional<std::pair<boost::system::error_code, ExecResult>> completed;
    sandbox.async_execute(request, boost::asio::bind_cancellation_slot(cancel.slot(), boost::asio::bind_executor(
                                       context, [&](boost::system::error_code ec, ExecResult result) {
                                           completed.emplace(ec, std::move(result));
                                       })));
    CHECK_FALSE(completed);  // never inline
    cancel.emit(boost::asio::cancellation_type::terminal);
    context.run();
    REQUIRE(completed);
    CHECK(completed->first == boost::asio::error::operation_aborted);
    CHECK(completed->second.outcome == Outcome::cancelled);
    CHECK(completed->second.detail == "cancelled: the caller cancelled the execution before it started");
    CHECK(completed->second.stdout_data.empty());
    CHECK(sandbox.zygote_pids().empty());  // the zygote it was waiting for is not kept

    const auto next = run(sandbox, "print('next')");  // the pool starts another one
    CHECK(next.outcome == Outcome::ok);
    CHECK(next.stdout_data == "next\n");
    CHECK(next.warm);
}

TEST_CASE("concurrent warm executions while zygotes are replaced all succeed (stale epoll wake-ups are ignored)") {
    // asio's reactor leaves a closed descriptor in the epoll set while another descriptor still refers to the
    // same open file: each warm execution watches a dup of its zygote's pidfd, so every execution a zygote
    // served leaves an entry behind, and when the zygote is replaced they all wake up and reach whichever
    // descriptors reuse their bookkeeping. A warm execution used to take such a wake-up for its own zygote's
    // end and failed with "the sandbox's init process ended without reporting the program's status" (about 2
    // in 1,000 executions with 2 jobs and the default 500 uses per zygote). Replacing zygotes every 20
    // executions makes it frequent: this failed 2 runs in 2 before the fix.
    LocalSandboxOptions options;
    options.pool.enabled = true;
    options.pool.max_zygotes = 3;
    options.pool.max_uses = 20;
    LocalSandbox sandbox(options);
    std::vector<ExecRequest> requests(2000);
    for (auto& request : requests) request.code = "print(1)";
    BatchOptions batch;
    batch.jobs = 2;
    const auto results = execute_many(sandbox, requests, batch);
    std::size_t failed = 0;
    std::string first_failure;
    for (const auto& result : results) {
        if (result.outcome == Outcome::ok && result.stdout_data == "1\n") continue;
        if (++failed == 1) first_failure = std::string(to_string(result.outcome)) + ": " + result.detail;
    }
    INFO("first failure: " << first_failure);
    CHECK(failed == 0);
}

TEST_CASE("prepare_executions launches zygotes for the coming requests and returns while they start") {
    LocalSandboxOptions options;
    options.pool.enabled = true;
    options.pool.max_zygotes = 3;
    LocalSandbox sandbox(options);
    ExecRequest like;
    like.code = "print(1)";
    sandbox.prepare_executions(like, 2);
    const auto launched = sandbox.zygote_pids();
    CHECK(launched.size() == 2);  // launched now, before any execution asks
    sandbox.prepare_executions(like, 2);  // idle ones (ready or starting) count: no more are launched
    CHECK(sandbox.zygote_pids() == launched);

    // Two executions at once take the two prepared zygotes (one may still be starting: it is waited for).
    boost::asio::io_context context;
    std::vector<ExecResult> results;
    for (int i = 0; i < 2; ++i)
        sandbox.async_execute(like, boost::asio::bind_executor(context, [&](boost::system::error_code ec, ExecResult result) {
                                  CHECK_FALSE(ec);
                                  results.push_back(std::move(result));
                              }));
    context.run();
    REQUIRE(results.size() == 2);
    for (const auto& result : results) {
        CHECK(result.warm);
        CHECK(result.stdout_data == "1\n");
    }
    CHECK(sandbox.zygote_pids() == launched);

    ExecRequest unknown = like;  // a request that cannot be prepared is left to its executions to report
    unknown.template_name = "no-such-template";
    CHECK_NOTHROW(sandbox.prepare_executions(unknown, 2));
    ExecRequest other_language = like;
    other_language.language = Language::javascript;
    CHECK_NOTHROW(sandbox.prepare_executions(other_language, 2));
    CHECK(sandbox.zygote_pids() == launched);
}

TEST_CASE("prepare_executions does nothing when the pool is disabled") {
    LocalSandboxOptions options;
    options.pool.enabled = false;
    LocalSandbox sandbox(options);
    ExecRequest like;
    like.code = "print(1)";
    sandbox.prepare_executions(like, 2);
    CHECK(sandbox.zygote_pids().empty());
}

}  // namespace e2beval_test_warm_pool
