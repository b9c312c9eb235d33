// Sessions on the real local backend: state between cells, commands, files, lifetime and clean-up.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "e2beval/core/error.hpp"
#include "e2beval/session.hpp"
#include "test_sandbox.hpp"
#include "waiting.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_session {

using namespace e2beval;

namespace {

SessionOptions quick_options(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    SessionOptions options;
    options.timeout = timeout;
    return options;
}

std::string pid_namespace_of(int pid) {
    std::error_code ec;
    return std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/ns/pid", ec).string();
}

// Host pids of every process in the pid namespace `ns` (e.g. "pid:[4026532001]").
std::vector<int> processes_in(const std::string& ns) {
    std::vector<int> pids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        if (pid_namespace_of(std::stoi(name)) == ns) pids.push_back(std::stoi(name));
    }
    return pids;
}

int parent_of(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("PPid:", 0) == 0) return std::stoi(line.substr(5));
    return 0;
}

// Host pids of every process of a session whose sandbox is the pid namespace `ns`: its own processes and
// those of the pid namespaces nested in it (each kernel and command has one, docs/sessions.md).
std::vector<int> processes_of_session(const std::string& ns) {
    std::vector<int> pids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        for (int pid = std::stoi(name), depth = 0; pid > 1 && depth < 64; pid = parent_of(pid), ++depth)
            if (pid_namespace_of(pid) == ns) {
                pids.push_back(std::stoi(name));
                break;
            }
    }
    return pids;
}

}  // namespace

TEST_CASE("a session keeps state between cells and reports values, errors and output") {
    auto session = testing::test_sandbox().create_session(quick_options());
    auto first = session->run_code("x = 41\nprint('hello')");
    CHECK_FALSE(first.error);
    REQUIRE(first.stdout_chunks.size() >= 1);
    CHECK(first.stdout_chunks[0].text == "hello\n");
    auto second = session->run_code("x + 1");
    CHECK(second.text() == std::optional<std::string>("42"));
    CHECK(second.execution_count == 2);
    auto failing = session->run_code("1 / 0");
    REQUIRE(failing.error);
    CHECK(failing.error->name == "ZeroDivisionError");
    CHECK(session->run_code("x").text() == std::optional<std::string>("41"));
    session->kill();
    CHECK_FALSE(session->alive());
}

TEST_CASE("a session runs commands and round-trips files, confined to its own filesystem") {
    auto session = testing::test_sandbox().create_session(quick_options());
    const auto output = session->run_command("echo hi; exit 3");
    CHECK(output.stdout_data == "hi\n");
    CHECK(output.exit_code == 3);

    std::string bytes;
    for (int i = 0; i < 3 * 256 * 1024; ++i) bytes += static_cast<char>(i % 256);
    session->write_file("/home/user/blob.bin", bytes);
    CHECK(session->read_file("blob.bin") == bytes);
    // The sandbox's /etc/passwd is its own generated file, never the host's.
    CHECK(session->read_file("../../etc/passwd").find("sandbox user") != std::string::npos);
    CHECK_THROWS_AS(session->read_file("/root/.bashrc"), input_error);
    session->kill();
}

TEST_CASE("a session's usage shows the memory its code holds and its workspace's files, measured while a cell runs") {
    constexpr std::uint64_t kMiB = 1 << 20;
    auto session = testing::test_sandbox().create_session(quick_options());
    const auto before = session->usage();
    CHECK(before.cpu_count >= 1);
    CHECK(before.memory_total_bytes == default_session_limits().memory_bytes);
    REQUIRE(before.memory_used_bytes);
    REQUIRE(before.disk_total_bytes);
    CHECK(*before.disk_total_bytes == default_session_limits().workspace_bytes);
    REQUIRE(before.disk_used_bytes);
    REQUIRE(before.cpu_time);

    session->write_file("/home/user/big.bin", std::string(32 * kMiB, 'x'));
    // The cell holds 128 MiB and runs until interrupted: usage() must be answered meanwhile (it reads the host's
    // view; it does not queue behind the running request).
    auto cell = std::async(std::launch::async, [&] {
        return session->run_code("import time\nheld = bytearray(128 << 20)\nfor i in range(0, len(held), 4096): held[i] = 1\n"
                                 "while True: time.sleep(0.02)");
    });
    SessionUsage during;
    CHECK_MESSAGE(testing::until([&] {
                      during = session->usage();
                      return *during.memory_used_bytes >= *before.memory_used_bytes + 128 * kMiB;
                  }),
                  "usage() never showed the running cell's 128 MiB");
    CHECK(*during.disk_used_bytes >= *before.disk_used_bytes + 32 * kMiB);
    CHECK(*during.cpu_time > *before.cpu_time);
    CHECK(cell.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);  // the cell was still running
    session->interrupt();
    const auto ended = cell.get();
    REQUIRE(ended.error);
    CHECK(ended.error->name == "KeyboardInterrupt");
    session->kill();
    CHECK_THROWS_AS(session->usage(), sandbox_error);
}

TEST_CASE("a session past its timeout is gone with all its processes, and says why") {
    auto session = testing::test_sandbox().create_session(quick_options(std::chrono::milliseconds(1500)));
    const int init = session->info().host_pid;
    REQUIRE(init > 0);
    const auto ns = pid_namespace_of(init);
    REQUIRE_FALSE(ns.empty());
    boost::json::object background{{"op", "run_command"}, {"cmd", "sleep 1000"}, {"background", true}};
    CHECK(session->call(background).at("type") == "reply");
    CHECK(processes_in(ns).size() >= 2);              // init, agent
    CHECK(processes_of_session(ns).size() >= 4);      // and the command's own init and sleep, nested

    CHECK_MESSAGE(testing::until([&] { return !session->alive(); }), "the session outlived its timeout");
    CHECK(processes_in(ns).empty());
    CHECK(processes_of_session(ns).empty());
    try {
        session->run_code("1");
        FAIL("a closed session must refuse requests");
    } catch (const sandbox_error& closed) {
        CHECK(closed.code() == errc::session_closed);
        CHECK(std::string(closed.what()).find("timeout") != std::string::npos);
    }
}

TEST_CASE("set_timeout extends a session's life; kill is idempotent; sessions are listed while alive") {
    auto session = testing::test_sandbox().create_session(quick_options(std::chrono::seconds(1)));
    const auto first_end = session->info().end_at;
    session->set_timeout(std::chrono::seconds(30));
    // Alive past the end it was created with: the moment itself is the condition, not a sleep guessed to pass it.
    REQUIRE(testing::until([&] { return std::chrono::system_clock::now() > first_end; }));
    CHECK(session->alive());
    bool listed = false;
    for (const auto& info : testing::test_sandbox().list_sessions()) listed = listed || info.id == session->id();
    CHECK(listed);
    CHECK(testing::test_sandbox().find_session(session->id()) == session);
    session->kill();
    session->kill();
    CHECK(testing::test_sandbox().find_session(session->id()) == nullptr);
}

TEST_CASE("bad requests to a session are failures that say what is wrong, and the session goes on") {
    auto session = testing::test_sandbox().create_session(quick_options());
    auto unknown = session->call({{"op", "run_code"}, {"code", "1"}, {"language", "cobol"}});
    CHECK(unknown.at("type") == "failure");
    CHECK(std::string(unknown.at("message").as_string()).find("cobol") != std::string::npos);
    auto missing = session->call({{"op", "run_code"}, {"code", "1"}, {"context", "nope"}});
    CHECK(missing.at("kind") == "not_found");
    CHECK_THROWS_AS(session->call({{"code", "1"}}), input_error);
    CHECK(session->run_code("2 + 2").text() == std::optional<std::string>("4"));
    session->kill();
}

TEST_CASE("a LocalSandbox keeps a session ready, hands it out once, and kills what it still keeps when it goes") {
    std::vector<int> ready;
    std::shared_ptr<Session> first, pooled;
    std::string pooled_namespace;
    {
        LocalSandboxOptions options;
        options.pool.enabled = false;  // one-shot executions are not what this test is about
        options.ready_sessions = 1;
        LocalSandbox sandbox(options);
        CHECK(sandbox.ready_session_pids().empty());  // an idle owner pays nothing
        first = sandbox.create_session(quick_options());
        (void)testing::until([&] { return !sandbox.ready_session_pids().empty(); });
        const auto kept = sandbox.ready_session_pids();
        REQUIRE(kept.size() == 1);
        CHECK(kept[0] != first->info().host_pid);

        pooled = sandbox.create_session(quick_options());
        CHECK(pooled->info().host_pid == kept[0]);  // the one kept ready, handed out
        CHECK(pooled->id() != first->id());
        pooled_namespace = pid_namespace_of(kept[0]);
        CHECK(pooled->run_code("1 + 1").text() == std::optional<std::string>("2"));
        (void)testing::until([&] { return !sandbox.ready_session_pids().empty(); });
        ready = sandbox.ready_session_pids();  // its replacement
        REQUIRE(ready.size() == 1);
        CHECK(ready[0] != kept[0]);
        REQUIRE_FALSE(pid_namespace_of(ready[0]).empty());
    }
    // The owner is gone: the session it kept ready is killed with every process of it (its init is reaped, so
    // no pid of its namespace is left); the sessions it handed out are their users' and live on.
    CHECK(pid_namespace_of(ready[0]).empty());
    CHECK(first->alive());
    CHECK(pooled->run_code("2 + 2").text() == std::optional<std::string>("4"));
    CHECK_FALSE(processes_of_session(pooled_namespace).empty());
    first->kill();
    pooled->kill();
    CHECK(processes_of_session(pooled_namespace).empty());
}

TEST_CASE("with no ready sessions configured, no session is started ahead of demand") {
    LocalSandboxOptions options;
    options.pool.enabled = false;
    options.ready_sessions = 0;
    LocalSandbox sandbox(options);
    auto session = sandbox.create_session(quick_options());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    CHECK(sandbox.ready_session_pids().empty());
    CHECK(session->run_code("1 + 1").text() == std::optional<std::string>("2"));
    session->kill();
}

}  // namespace e2beval_test_session
