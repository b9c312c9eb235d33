// One-shot executions on E2B (src/e2b/one_shot.hpp). Each runs as one envd process in a pooled sandbox: bash
// writes the program and its stdin (sent base64 in the arguments: one request, no upload) into a fresh run
// directory and execs the interpreter, so the exit status and signal are the program's own. The code
// interpreter's /execute is not used here: a cell has no exit status, no stdin and no signals, and the
// Runner's verdicts rest on them (sessions use /execute, src/e2b/e2b_session.cpp).
#include "e2b/one_shot.hpp"

#include <csignal>
#include <cstdio>
#include <map>
#include <optional>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/base64.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"

namespace e2beval::e2b {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using Clock = std::chrono::steady_clock;

namespace {

// $1 code (base64), $2 stdin (base64), $3 file name, $4 CPU seconds (0: none), then the interpreter's command.
// Exit 125 with the marker when the run directory cannot be prepared (the sandbox is then replaced).
constexpr const char* kRunScript =
    "d=\"${TMPDIR:-/tmp}/e2beval-run\"\n"
    "{ rm -rf \"$d\" && mkdir -p \"$d\" && cd \"$d\" && printf %s \"$1\" | base64 -d > \"$3\" && "
    "printf %s \"$2\" | base64 -d > stdin; } || { echo \"e2beval-e2b: could not prepare the run directory $d\" >&2; exit 125; }\n"
    "if [ \"$4\" != 0 ]; then ulimit -t \"$4\" || exit 125; fi\n"
    "shift 4\n"
    "exec \"$@\" < stdin\n";
constexpr const char* kPrepareFailure = "e2beval-e2b: could not prepare";

std::string seconds_decimal_text(std::chrono::milliseconds duration) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
    return text;
}

// Go's names for signals ("signal: killed"), as envd reports them.
int signal_from_status(const std::string& status) {
    static const std::map<std::string, int> kNames = {
        {"hangup", SIGHUP},        {"interrupt", SIGINT},  {"quit", SIGQUIT},  {"illegal instruction", SIGILL},
        {"trace/breakpoint trap", SIGTRAP}, {"aborted", SIGABRT}, {"bus error", SIGBUS}, {"floating point exception", SIGFPE},
        {"killed", SIGKILL},       {"user defined signal 1", SIGUSR1}, {"segmentation fault", SIGSEGV},
        {"user defined signal 2", SIGUSR2}, {"broken pipe", SIGPIPE}, {"alarm clock", SIGALRM}, {"terminated", SIGTERM},
        {"CPU time limit exceeded", SIGXCPU}, {"file size limit exceeded", SIGXFSZ}};
    if (!status.starts_with("signal: ")) return 0;
    const auto name = status.substr(8);
    if (const auto found = kNames.find(name); found != kNames.end()) return found->second;
    if (name.starts_with("signal ")) return std::atoi(name.c_str() + 7);
    return 0;
}

}  // namespace

void check_language_runs_on_e2b(Language language) {
    const auto& descriptor = describe(language);
    if (!descriptor.compiled()) return;
    throw input_error(std::string(descriptor.display_name) + " is a compiled language: its compile stage runs only in the local "
                      "sandbox (--backend local, or backend=\"local\" in Python); the e2b backend runs python, javascript "
                      "and bash");
}

namespace {

ProcessSpec process_for(const ExecRequest& request) {
    ProcessSpec spec;
    spec.cmd = "/bin/bash";
    std::string file;
    std::vector<std::string> interpreter;
    switch (request.language) {
        case Language::python:
            file = "main.py";
            interpreter = {"python3", "-B", "-u", file};
            break;
        case Language::javascript:
            file = "main.js";
            interpreter = {"node", "--max-old-space-size=" + std::to_string(std::max<std::uint64_t>(16, request.limits.memory_bytes / kMiB / 2)), file};
            break;
        case Language::bash:
            file = "main.sh";
            interpreter = {"bash", file};
            break;
        case Language::c:
        case Language::cpp:
        case Language::go:
        case Language::rust:
        case Language::java:
        case Language::typescript: check_language_runs_on_e2b(request.language); break;
    }
    const auto cpu_seconds = (request.limits.cpu_time.count() + 999) / 1000;
    spec.args = {"-c", kRunScript, "e2beval-run", base64_encode(request.code), base64_encode(request.stdin_data), file,
                 std::to_string(cpu_seconds)};
    spec.args.insert(spec.args.end(), interpreter.begin(), interpreter.end());
    spec.envs = request.env;
    return spec;
}

struct RunState {
    bool started = false;
    bool healthy = true;  // false: the sandbox is replaced after this run
};

asio::awaitable<ExecResult> run_in(E2bSandbox::Engine& engine, const RemoteSandbox& sandbox, const ExecRequest& request, RunState& state) {
    ExecResult result;
    result.isolation_level = "e2b";
    result.cgroup_version = "none";
    const auto wall = request.limits.wall_time;
    const auto cap = request.limits.output_bytes;
    std::optional<Clock::time_point> started_at;
    std::optional<ProcessEvent> end;
    std::optional<Outcome> stopped_for;
    // Until the process starts, the network may take its time (bounded); from its start, the wall-clock limit.
    asio::steady_timer watchdog(engine.io, Clock::now() + wall + std::chrono::seconds(30));

    const auto keep = [&](std::string& into, bool& truncated, const std::string& data) {
        if (into.size() + data.size() > cap) {
            into.append(data, 0, cap - std::min<std::uint64_t>(cap, into.size()));
            truncated = true;
            stopped_for = Outcome::output_limit;
            return false;
        }
        into += data;
        return true;
    };
    const auto on_event = [&](const ProcessEvent& event) {
        switch (event.kind) {
            case ProcessEvent::Kind::start:
                started_at = Clock::now();
                state.started = true;
                watchdog.expires_at(*started_at + wall);
                return true;
            case ProcessEvent::Kind::stdout_data: return keep(result.stdout_data, result.stdout_truncated, event.data);
            case ProcessEvent::Kind::stderr_data: return keep(result.stderr_data, result.stderr_truncated, event.data);
            case ProcessEvent::Kind::end: end = event; return true;
            case ProcessEvent::Kind::keepalive: return true;
        }
        return true;
    };
    const auto watch = [&]() -> asio::awaitable<void> {
        for (;;) {
            auto [ec] = co_await watchdog.async_wait(asio::as_tuple(asio::use_awaitable));
            if (!ec) co_return;  // expired
            const auto cancelled = (co_await asio::this_coro::cancellation_state).cancelled();
            if (cancelled != asio::cancellation_type::none) co_return;
            // Moved (the process started): wait for the new expiry.
        }
    };

    // Measured from the request's sending: envd may deliver the start and the end in one read, so the span
    // between the two events says nothing; this wall time includes the round trip.
    const auto sent = Clock::now();
    // Asio's `||` waits for the first branch to *succeed*: the process's failure is carried out as a value, so a
    // broken stream ends the run now instead of at the watchdog.
    const auto follow = [&]() -> asio::awaitable<std::exception_ptr> {
        try {
            co_await engine.api.run_process(sandbox, process_for(request), wall + std::chrono::seconds(5), on_event);
        } catch (...) {
            co_return std::current_exception();
        }
        co_return nullptr;
    };
    const auto first = co_await (follow() || watch());
    if (first.index() == 0 && std::get<0>(first)) std::rethrow_exception(std::get<0>(first));
    const auto finished = Clock::now();
    result.wall_time = finished - sent;
    if (first.index() == 1) {
        // The wall-clock limit passed: the remote process may still run, so the sandbox goes.
        state.healthy = false;
        result.outcome = Outcome::timeout;
        result.wall_time = wall;
        result.detail = started_at ? "killed after the " + seconds_decimal_text(wall) + " wall-clock limit"
                                   : "the E2B sandbox did not start the program within the " + seconds_decimal_text(wall) + " wall-clock limit (+30 s)";
        co_return result;
    }
    if (stopped_for == Outcome::output_limit) {
        state.healthy = false;
        result.outcome = Outcome::output_limit;
        result.detail = output_limit_detail(cap, result.stdout_truncated ? "stdout" : "stderr");
        co_return result;
    }
    if (!end) throw CallError(CallError::Stage::protocol, "start process: the stream ended without the process's end");
    if (end->exit_code == 125 && result.stderr_data.find(kPrepareFailure) != std::string::npos && result.stdout_data.empty()) {
        state.healthy = false;
        throw sandbox_error("the E2B sandbox " + sandbox.id + " could not prepare the run: " + result.stderr_data);
    }
    const int signal = end->exited ? 0 : signal_from_status(end->status);
    if (signal == SIGXCPU) {
        result.outcome = Outcome::cpu_limit;
        result.signal = signal;
        result.detail = "used more than the " + seconds_decimal_text(request.limits.cpu_time) + " cpu-time limit";
    } else if (signal != 0) {
        result.outcome = Outcome::signaled;
        result.signal = signal;
        result.detail = "killed by " + end->status.substr(8) + " (signal " + std::to_string(signal) + ")";
    } else if (end->exit_code == 0) {
        result.outcome = Outcome::ok;
        result.exit_code = 0;
    } else {
        result.outcome = Outcome::exit_nonzero;
        result.exit_code = end->exit_code;
        result.detail = "exited with status " + std::to_string(end->exit_code);
    }
    co_return result;
}

}  // namespace

asio::awaitable<ExecResult> run_one_shot(E2bSandbox::Engine& engine, ExecRequest request) {
    // On this backend a template is E2B's: the engine's remote sandboxes are all of one (the faces put the
    // request's into the settings), so a request for another is a mistake, not a silent substitution.
    if (!request.template_name.empty() && request.template_name != engine.settings.template_id)
        throw input_error("this E2B backend runs template '" + engine.settings.template_id + "', not '" +
                          request.template_name + "'; name the template when the backend is made (--template, template=)");
    const auto needed = std::chrono::duration_cast<std::chrono::seconds>(request.limits.wall_time) + std::chrono::seconds(30);
    for (int attempt = 0;; ++attempt) {
        auto slot = co_await engine.acquire(needed);
        RunState state;
        bool retry_elsewhere = false;
        try {
            auto result = co_await run_in(engine, slot->remote, request, state);
            engine.release(slot, state.healthy);
            co_return result;
        } catch (const ApiError& failure) {
            engine.release(slot, false);
            // Gone before the program started (killed, timed out on E2B's side): once more in another one.
            retry_elsewhere = failure.sandbox_gone() && !state.started && attempt == 0;
            if (!retry_elsewhere) throw;
        } catch (...) {
            engine.release(slot, false);
            throw;
        }
    }
}

}  // namespace e2beval::e2b
