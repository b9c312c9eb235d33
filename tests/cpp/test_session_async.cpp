// Session::async_call on one io_context (issue 37): many calls of one session in progress at once on one thread,
// events and completions on that thread, no thread started for them, cancellation through the completion's
// slot, and a kill that wakes every pending call.
#include <doctest/doctest.h>

#include <dirent.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "e2beval/core/error.hpp"
#include "e2beval/session.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_session_async {

using namespace e2beval;
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::size_t threads_now() {
    std::size_t count = 0;
    if (DIR* tasks = ::opendir("/proc/self/task")) {
        while (const dirent* entry = ::readdir(tasks))
            if (entry->d_name[0] != '.') ++count;
        ::closedir(tasks);
    }
    return count;
}

SessionOptions async_options() {
    SessionOptions options;
    options.timeout = std::chrono::seconds(120);
    return options;
}

struct Outcome {
    std::exception_ptr failure;
    std::optional<SessionEvent> final_event;
    std::string stdout_text;
    std::thread::id completed_on;
    std::thread::id events_on;
};

json::object command(const std::string& cmd) { return {{"op", "run_command"}, {"cmd", cmd}, {"timeout", 60}}; }

}  // namespace

TEST_CASE("many async calls of one session run at once on one thread, which starts no other") {
    auto session = testing::test_sandbox().create_session(async_options());
    asio::io_context io(1);
    constexpr int kCalls = 8;
    std::vector<Outcome> outcomes(kCalls);
    const auto before = threads_now();
    std::size_t most = before;
    int running = 0;
    // Every command waits until all of them have printed, so none can finish before all were in progress.
    for (int index = 0; index < kCalls; ++index) {
        auto& outcome = outcomes[static_cast<std::size_t>(index)];
        session->async_call(
            command("echo " + std::to_string(index) + "; touch started-" + std::to_string(index) +
                    "; while [ $(ls started-* | wc -l) -lt " + std::to_string(kCalls) + " ]; do sleep 0.05; done"),
            [&](const SessionEvent& event) {
                outcome.events_on = std::this_thread::get_id();
                if (event.at("type") == "stdout") outcome.stdout_text += std::string(event.at("text").as_string());
                most = std::max(most, threads_now());
            },
            asio::bind_executor(io, [&](std::exception_ptr failure, SessionEvent event) {
                outcome.failure = failure;
                outcome.final_event = std::move(event);
                outcome.completed_on = std::this_thread::get_id();
                --running;
            }));
        ++running;
    }
    io.run();
    CHECK(running == 0);
    for (int index = 0; index < kCalls; ++index) {
        const auto& outcome = outcomes[static_cast<std::size_t>(index)];
        REQUIRE_FALSE(outcome.failure);
        CHECK(outcome.final_event->at("type") == "end");
        CHECK(outcome.final_event->at("exit_code") == 0);
        CHECK(outcome.stdout_text == std::to_string(index) + "\n");
        CHECK(outcome.completed_on == std::this_thread::get_id());
        CHECK(outcome.events_on == std::this_thread::get_id());
    }
    CHECK(most <= before);
    // The blocking form still works beside it afterwards (its own io_context, the reader moved there).
    CHECK(session->call({{"op", "list_contexts"}}).at("type") == "reply");
}

TEST_CASE("cancelling an async call interrupts its cell, which completes with its own final event") {
    auto session = testing::test_sandbox().create_session(async_options());
    asio::io_context io(1);
    asio::cancellation_signal cancel;
    Outcome outcome;
    std::string error_name;
    session->async_call(
        {{"op", "run_code"}, {"code", "import time\nprint('running', flush=True)\ntime.sleep(600)"}},
        [&](const SessionEvent& event) {
            if (event.at("type") == "stdout") asio::post(io, [&] { cancel.emit(asio::cancellation_type::terminal); });
            if (event.at("type") == "error") error_name = std::string(event.at("name").as_string());
        },
        asio::bind_cancellation_slot(cancel.slot(), asio::bind_executor(io, [&](std::exception_ptr failure, SessionEvent event) {
                                         outcome.failure = failure;
                                         outcome.final_event = std::move(event);
                                     })));
    io.run();
    REQUIRE_FALSE(outcome.failure);
    CHECK(outcome.final_event->at("type") == "end_of_execution");
    CHECK(error_name == "KeyboardInterrupt");
    CHECK(session->alive());
}

TEST_CASE("killing a session wakes its pending async calls with session_closed") {
    auto session = testing::test_sandbox().create_session(async_options());
    asio::io_context io(1);
    std::vector<Outcome> outcomes(3);
    for (auto& outcome : outcomes)
        session->async_call(command("echo up; sleep 600"),
                            [&](const SessionEvent& event) {
                                if (event.at("type") == "stdout") session->kill();  // from the loop itself, at the first output
                            },
                            asio::bind_executor(io, [&](std::exception_ptr failure, SessionEvent event) {
                                outcome.failure = failure;
                                outcome.final_event = std::move(event);
                            }));
    io.run();
    for (const auto& outcome : outcomes) {
        REQUIRE(outcome.failure);
        try {
            std::rethrow_exception(outcome.failure);
        } catch (const sandbox_error& error) {
            CHECK(error.code() == errc::session_closed);
        }
    }
    CHECK_THROWS_AS(session->async_call(command("true"), {}, asio::bind_executor(io, [](std::exception_ptr, SessionEvent) {})),
                    sandbox_error);
}

}  // namespace e2beval_test_session_async
