// The host's rules for one session call: its deadline (E2B's timeout/request_timeout) and the caps on what
// the agent may send (session_caps.hpp, session_deadline.hpp). Pure functions: no sandbox needed.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <string>

#include "local/session_caps.hpp"
#include "local/session_deadline.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_session_caps {

using namespace e2beval;
using namespace std::chrono_literals;
namespace json = boost::json;

TEST_CASE("a call's budget follows E2B: timeout bounds streams, request_timeout everything else") {
    const auto operation_budget = session_request_budget;
    CHECK(operation_budget({{"op", "run_code"}, {"timeout", 3}}, std::nullopt) == 3000ms);
    CHECK(operation_budget({{"op", "run_code"}, {"timeout", 0.5}}, 1000ms) == 500ms);
    CHECK(operation_budget({{"op", "run_code"}, {"timeout", nullptr}}, std::nullopt) == std::nullopt);
    CHECK(operation_budget({{"op", "run_code"}, {"timeout", 0}}, std::nullopt) == std::nullopt);
    CHECK(operation_budget({{"op", "run_command"}, {"timeout", 3}, {"background", false}}, std::nullopt) == 3000ms);
    CHECK(operation_budget({{"op", "run_command"}}, std::nullopt) == local::kDefaultCommandTimeout);
    CHECK(operation_budget({{"op", "run_command"}, {"timeout", 3}, {"background", true}}, 2000ms) == 2000ms);
    CHECK(operation_budget({{"op", "command_wait"}, {"timeout", 2}}, std::nullopt) == 2000ms);
    CHECK(operation_budget({{"op", "files_list"}}, std::nullopt) == local::kDefaultRequestTimeout);
    CHECK(operation_budget({{"op", "files_list"}}, 2500ms) == 2500ms);
    CHECK(operation_budget({{"op", "files_list"}}, 0ms) == std::nullopt);
    CHECK(operation_budget({{"op", "run_code"}, {"timeout", 1e300}}, std::nullopt) == std::nullopt);
}

TEST_CASE("a call's deadline probes the agent once, then gives a live agent a bounded grace") {
    const auto start = std::chrono::steady_clock::now();
    local::CallDeadline deadline(3000ms, start);
    CHECK(deadline.next() == start + 3000ms + local::CallDeadline::kAnswerMargin);
    const auto late = deadline.next();
    CHECK(deadline.start_probe(late));
    CHECK(deadline.next() == late + local::CallDeadline::kProbeWindow);
    deadline.agent_alive(late);
    CHECK(deadline.phase() == local::CallDeadline::Phase::alive);
    CHECK(deadline.next() == late + local::CallDeadline::kLiveAgentGrace);
    CHECK_FALSE(deadline.start_probe(deadline.next()));  // past the grace: stalled

    local::CallDeadline silent(1000ms, start);
    CHECK(silent.start_probe(silent.next()));
    CHECK_FALSE(silent.start_probe(silent.next()));  // the probe went unanswered: stalled

    CHECK(local::CallDeadline(std::nullopt).next() == std::chrono::steady_clock::time_point::max());
}

TEST_CASE("an event nested deeper than the host's limit keeps its other fields; deeper values become a marker") {
    std::string deep = "\"bottom\"";
    for (int i = 0; i < 40; ++i) deep = "{\"level\":" + deep + "}";
    auto event = local::parse_agent_event("{\"id\":1,\"type\":\"result\",\"json\":" + deep + "}", local::kEventJsonDepth);
    REQUIRE(event);
    const json::value* value = &event->at("json");
    for (int i = 0; i < 40; ++i) value = &value->as_object().at("level");
    CHECK(value->as_string() == "bottom");

    std::string deeper = "[\"a]{\\\"\"]";  // brackets and an escaped quote inside a string are text
    for (int i = 0; i < 300; ++i) deeper = "[" + deeper + "]";
    event = local::parse_agent_event("{\"id\":2,\"type\":\"result\",\"json\":{\"deep\":" + deeper + ",\"shallow\":1}}", 128);
    REQUIRE(event);
    CHECK(event->at("id").as_int64() == 2);
    CHECK(event->at("json").at("shallow").as_int64() == 1);
    const json::value* inner = &event->at("json").at("deep");
    while (inner->is_array()) inner = &inner->as_array().at(0);
    CHECK(inner->as_string() == local::deep_value_marker(128));

    CHECK_FALSE(local::parse_agent_event("not json", 128));
    CHECK_FALSE(local::parse_agent_event("[1, 2]", 128));
}

TEST_CASE("a call's output events are capped by count and bytes; control events always pass") {
    local::CallIntake intake({1024, 100, 3, 128});
    CHECK(intake.accept("stdout", 40));
    CHECK(intake.accept("result", 40));
    CHECK_FALSE(intake.accept("result", 40));  // past 100 bytes
    CHECK(intake.accept("stderr", 10));
    CHECK_FALSE(intake.accept("stdout", 1));  // past 3 events
    CHECK(intake.accept("error", 5000));
    CHECK(intake.accept("number_of_executions", 20));
    intake.dropped_malformed_line(7);
    REQUIRE(intake.dropped_anything());
    const auto marker = intake.marker_event(9);
    CHECK(marker.at("id").as_int64() == 9);
    CHECK(marker.at("type").as_string() == "stderr");
    const std::string text(marker.at("text").as_string());
    CHECK(text.find("2 output events") != std::string::npos);
    CHECK(text.find("1 lines from the agent that were not JSON objects") != std::string::npos);
}

TEST_CASE("files_read may carry the largest file the session can hold; everything else one line cap") {
    Limits limits;
    limits.file_size_bytes = 256ll << 20;
    CHECK(local::call_caps({{"op", "files_read"}}, limits).line_bytes >= (256u << 20) / 3 * 4);
    CHECK(local::call_caps({{"op", "run_code"}}, limits).line_bytes == local::kEventLineBytes);
}

}  // namespace e2beval_test_session_caps
