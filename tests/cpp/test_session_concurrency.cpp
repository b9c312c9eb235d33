// Calls to one session from many threads at once (docs/sessions.md, "Concurrent calls"), on real sessions:
// each call gets exactly its own events, a caller interrupts its own call only, and a killed session ends
// every waiting call.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "e2beval/core/error.hpp"
#include "e2beval/session.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_session_concurrency {

using namespace e2beval;
namespace json = boost::json;

namespace {

SessionOptions concurrency_options() {
    SessionOptions options;
    options.timeout = std::chrono::seconds(120);
    return options;
}

// A flag one thread raises and another waits for (bounded, so a broken session fails the test, not hangs it).
class Signal {
public:
    void raise() {
        std::lock_guard lock(mutex_);
        raised_ = true;
        changed_.notify_all();
    }
    bool wait() {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return raised_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool raised_ = false;
};

struct Gathered {
    std::string stdout_text;
    std::string error_name;         // of its error event, if any
    std::vector<std::int64_t> ids;  // the request id of every event the call saw
    SessionEvent final_event;
};

// Runs `request` on its own thread, gathering its events; `on_first_output` is raised at its first stdout.
std::future<Gathered> call_async(Session& session, json::object request, Signal* on_first_output = nullptr,
                                 CallInterrupt* interrupt = nullptr) {
    return std::async(std::launch::async, [&session, request = std::move(request), on_first_output, interrupt]() mutable {
        Gathered gathered;
        bool first = true;
        gathered.final_event = session.call(
            std::move(request),
            [&](const SessionEvent& event) {
                gathered.ids.push_back(event.at("id").as_int64());
                if (event.at("type") == "error") gathered.error_name = std::string(event.at("name").as_string());
                if (event.at("type") == "stdout") {
                    gathered.stdout_text += std::string(event.at("text").as_string());
                    if (first && on_first_output) on_first_output->raise();
                    first = false;
                }
            },
            std::nullopt, interrupt);
        gathered.ids.push_back(gathered.final_event.at("id").as_int64());
        return gathered;
    });
}

json::object command(std::string cmd) { return {{"op", "run_command"}, {"cmd", std::move(cmd)}, {"timeout", 60}}; }

bool all_of_one_id(const Gathered& gathered) {
    for (const auto id : gathered.ids)
        if (id != gathered.ids.front()) return false;
    return !gathered.ids.empty();
}

}  // namespace

TEST_CASE("two command streams and a unary call of one session interleave, each call getting its own events") {
    auto session = testing::test_sandbox().create_session(concurrency_options());
    Signal first_started, second_started;
    auto first = call_async(*session, command("echo first-begins; while [ ! -e go ]; do sleep 0.05; done; echo first-ends"),
                            &first_started);
    auto second = call_async(*session, command("echo second-begins; while [ ! -e go ]; do sleep 0.05; done; echo second-ends"),
                             &second_started);
    REQUIRE(first_started.wait());
    REQUIRE(second_started.wait());
    // Both streams are open; a unary call goes through between them (had it waited, nothing would end).
    session->write_file("go", "");
    const auto one = first.get();
    const auto two = second.get();
    CHECK(one.stdout_text == "first-begins\nfirst-ends\n");
    CHECK(two.stdout_text == "second-begins\nsecond-ends\n");
    CHECK(one.final_event.at("type") == "end");
    CHECK(two.final_event.at("exit_code") == 0);
    CHECK(all_of_one_id(one));
    CHECK(all_of_one_id(two));
    CHECK(one.ids.front() != two.ids.front());
}

TEST_CASE("stdin sent from another thread reaches a foreground command while it streams") {
    auto session = testing::test_sandbox().create_session(concurrency_options());
    std::promise<std::int64_t> pid;
    auto reader = std::async(std::launch::async, [&] {
        std::string out;
        auto end = session->call({{"op", "run_command"}, {"cmd", "read line; echo got:$line"}, {"stdin", true}, {"timeout", 60}},
                                 [&](const SessionEvent& event) {
                                     if (event.at("type") == "start") pid.set_value(event.at("pid").as_int64());
                                     if (event.at("type") == "stdout") out += std::string(event.at("text").as_string());
                                 });
        return std::make_pair(out, end);
    });
    auto started = pid.get_future();
    REQUIRE(started.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    const auto reply = session->call({{"op", "command_send_stdin"}, {"pid", started.get()}, {"data", "hello\n"}});
    CHECK(reply.at("type") == "reply");
    const auto [out, end] = reader.get();
    CHECK(out == "got:hello\n");
    CHECK(end.at("exit_code") == 0);
}

TEST_CASE("interrupting one of two concurrent cells leaves the other to finish") {
    auto session = testing::test_sandbox().create_session(concurrency_options());
    const auto created = session->call({{"op", "create_context"}});
    const std::string other(created.at("context").at("id").as_string());
    Signal stopped_started, kept_started;
    CallInterrupt interrupt;
    auto stopped = call_async(*session, {{"op", "run_code"}, {"code", "import time\nprint('running', flush=True)\ntime.sleep(600)"}},
                              &stopped_started, &interrupt);
    auto kept = call_async(*session,
                           {{"op", "run_code"}, {"context", other},
                            {"code", "import os, time\nprint('running', flush=True)\nwhile not os.path.exists('finish'): time.sleep(0.05)\n'kept'"}},
                           &kept_started);
    REQUIRE(stopped_started.wait());
    REQUIRE(kept_started.wait());
    interrupt.interrupt();
    const auto interrupted = stopped.get();
    CHECK(interrupted.final_event.at("type") == "end_of_execution");
    CHECK(interrupted.error_name == "KeyboardInterrupt");
    session->write_file("finish", "");  // only now: the kept cell was still running while the other ended
    const auto finished = kept.get();
    CHECK(finished.final_event.at("type") == "end_of_execution");
    CHECK(finished.stdout_text == "running\n");
    CHECK(finished.error_name.empty());
    // The kept cell's result arrived through its own call, the interrupted one's error through its own.
    const auto execution = session->run_code("1 + 1", std::nullopt, other);
    CHECK(execution.text() == "2");
}

TEST_CASE("a killed session ends every waiting call with session_closed") {
    auto session = testing::test_sandbox().create_session(concurrency_options());
    const auto created = session->call({{"op", "create_context"}});
    const std::string other(created.at("context").at("id").as_string());
    Signal first_started, second_started;
    auto first = call_async(*session, {{"op", "run_code"}, {"code", "import time\nprint('x', flush=True)\ntime.sleep(600)"}},
                            &first_started);
    auto second = call_async(*session, {{"op", "run_code"}, {"context", other}, {"code", "import time\nprint('x', flush=True)\ntime.sleep(600)"}},
                             &second_started);
    auto third = call_async(*session, command("sleep 600"));
    REQUIRE(first_started.wait());
    REQUIRE(second_started.wait());
    session->kill();
    for (auto* call : {&first, &second, &third}) {
        REQUIRE(call->wait_for(std::chrono::seconds(60)) == std::future_status::ready);
        try {
            call->get();
            FAIL("a call of a killed session returned");
        } catch (const sandbox_error& closed) {
            CHECK(closed.code() == errc::session_closed);
        }
    }
}

}  // namespace e2beval_test_session_concurrency
