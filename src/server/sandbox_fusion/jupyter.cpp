// /run_jupyter: one e2beval Python session per request, its cells run in order in the session's default Python
// context (IPython: a cell's last expression is its result, as in Jupyter), on a call thread (session calls
// block). The session is killed at the end whatever happens, and when the client goes away.
#include "server/sandbox_fusion/jupyter.hpp"

#include <chrono>
#include <mutex>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <boost/system/system_error.hpp>

#include "core/base64.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"
#include "server/sandbox_fusion/fair_queue.hpp"
#include "server/sandbox_fusion/run_code.hpp"
#include "server/server_context.hpp"

namespace e2beval::server::sandbox_fusion {

namespace asio = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// A result's fields (the session's E2B-shaped result) back to Jupyter's mime types, as SandboxFusion's `display`.
constexpr std::pair<std::string_view, std::string_view> kMimeOfField[] = {
    {"text", "text/plain"},       {"html", "text/html"},          {"markdown", "text/markdown"},
    {"svg", "image/svg+xml"},     {"png", "image/png"},           {"jpeg", "image/jpeg"},
    {"pdf", "application/pdf"},   {"latex", "text/latex"},        {"json", "application/json"},
    {"javascript", "application/javascript"},
};

json::object mime_bundle(const json::object& result) {
    json::object bundle;
    for (const auto& [field, mime] : kMimeOfField)
        if (const auto* value = result.if_contains(field); value && !value->is_null()) bundle[mime] = *value;
    if (const auto* extra = result.if_contains("extra"); extra && extra->is_object())
        for (const auto& [mime, value] : extra->as_object()) bundle[mime] = value;
    return bundle;
}

json::array traceback_lines(const std::string& traceback) {
    json::array lines;
    std::size_t start = 0;
    while (start < traceback.size()) {
        const auto end = std::min(traceback.find('\n', start), traceback.size());
        lines.emplace_back(to_valid_utf8(std::string_view(traceback).substr(start, end - start)));
        start = end + 1;
    }
    return lines;
}

json::object cell_json(const Execution& execution, std::optional<double> timed_out_after) {
    std::string out, err;
    for (const auto& chunk : execution.stdout_chunks) out += chunk.text;
    for (const auto& chunk : execution.stderr_chunks) err += chunk.text;
    json::array display;
    for (const auto& result : execution.results) display.push_back(mime_bundle(result));
    json::array errors;
    if (execution.error)
        errors.push_back(json::object{{"ename", to_valid_utf8(execution.error->name)},
                                      {"evalue", to_valid_utf8(execution.error->value)},
                                      {"traceback", traceback_lines(execution.error->traceback)}});
    if (timed_out_after)
        errors.push_back(json::object{{"ename", "TimeoutError"},
                                      {"evalue", "the cell ran past its time limit of " + seconds_text(*timed_out_after) +
                                                     " s and was interrupted"},
                                      {"traceback", json::array{}}});
    return json::object{{"stdout", to_valid_utf8(out)}, {"stderr", to_valid_utf8(err)}, {"display", std::move(display)},
                        {"error", std::move(errors)}};
}

// What the call thread and the coroutine share: the session (to kill it from the I/O thread when the client goes
// away) and the answer.
struct JupyterRun {
    std::mutex mutex;
    std::shared_ptr<Session> session;
    bool abandoned = false;
    json::object answer;
    bool finished = false;  // I/O thread only
};

void kill_session(JupyterRun& run) {
    std::shared_ptr<Session> session;
    {
        std::lock_guard lock(run.mutex);
        run.abandoned = true;
        session = run.session;
    }
    if (session) session->kill();
}

json::object response_json(std::string_view status, std::string message, json::value driver, json::array cells, json::object files) {
    const char* pod = std::getenv("MY_POD_NAME");
    return json::object{{"status", status},
                        {"message", to_valid_utf8(message)},
                        {"driver", std::move(driver)},
                        {"cells", std::move(cells)},
                        {"executor_pod_name", pod ? json::value(pod) : json::value(nullptr)},
                        {"files", std::move(files)}};
}

// The whole request, on a call thread.
json::object run_cells(const ServerContext& context, const RunJupyterRequest& request, JupyterRun& run) {
    const auto started = Clock::now();
    const auto deadline = started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(request.total_timeout));
    SessionOptions options = context.options.session_defaults;
    // The session's lifetime bounds everything even if a call below misbehaves.
    options.timeout = std::chrono::milliseconds(static_cast<long long>(request.total_timeout * 1000) + 30'000);
    std::shared_ptr<Session> session = context.backend->create_session(options);
    {
        std::lock_guard lock(run.mutex);
        run.session = session;
        // Abandoned by its client, or the server stops (its shutdown kills the sessions it knows: maybe before this one).
        if (run.abandoned || context.stopping) {
            session->kill();
            return {};
        }
    }
    struct KillAtEnd {
        std::shared_ptr<Session> session;
        ~KillAtEnd() { session->kill(); }
    } kill_at_end{session};

    for (const auto& [path, bytes] : request.files) session->write_file(path, bytes);
    json::array cells;
    bool out_of_time = false;
    for (const auto& cell : request.cells) {
        if (context.stopping) throw sandbox_error("e2beval serve is stopping");
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            out_of_time = true;
            break;
        }
        auto limit = left;
        if (request.cell_timeout > 0)
            limit = std::min(limit, std::chrono::milliseconds(static_cast<long long>(request.cell_timeout * 1000)));
        const auto execution = session->run_code(cell, std::string("python"), std::nullopt, std::max(limit, std::chrono::milliseconds(1)));
        std::optional<double> timed_out_after;
        if (execution.timed_out) {
            timed_out_after = std::chrono::duration<double>(limit).count();
            if (limit == left) out_of_time = true;
        }
        cells.push_back(cell_json(execution, timed_out_after));
        if (out_of_time) break;
    }
    json::object files;
    std::string notes;
    std::uint64_t total = 0;
    const auto& caps = context.options.sandbox_fusion;
    for (const auto& name : request.fetch_files) {
        std::string bytes;
        try {
            bytes = session->read_file(workspace_path(name));
        } catch (const input_error&) {
            continue;  // missing or not a regular file: left out, as SandboxFusion does
        }
        if (bytes.size() > caps.fetch_file_bytes || total + bytes.size() > caps.fetch_total_bytes) {
            notes += (notes.empty() ? "" : "; ") + std::string("fetch_files: '") + name +
                     "' was left out: over the fetch caps (e2beval serve --sandbox-fusion-fetch-file-mb, "
                     "--sandbox-fusion-fetch-total-mb)";
            continue;
        }
        total += bytes.size();
        files[name] = base64_encode(bytes);
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    json::object driver{{"status", out_of_time ? "TimeLimitExceeded" : "Finished"},
                        {"execution_time", elapsed},
                        {"return_code", out_of_time ? json::value(nullptr) : json::value(0)},
                        {"stdout", ""},
                        {"stderr", ""}};
    if (out_of_time)
        notes = "the cells ran past total_timeout (" + seconds_text(request.total_timeout) + " s)" +
                (notes.empty() ? "" : "; " + notes);
    return response_json(out_of_time ? "Failed" : "Success", notes, std::move(driver), std::move(cells), std::move(files));
}

}  // namespace

asio::awaitable<json::object> run_jupyter(ServerContext& context, RunJupyterRequest request, std::string client) {
    auto slot = co_await context.sandbox_fusion_queue->acquire(std::move(client));
    auto io = co_await asio::this_coro::executor;
    auto run = std::make_shared<JupyterRun>();
    auto wake = std::make_shared<asio::steady_timer>(io, asio::steady_timer::time_point::max());
    auto shared_request = std::make_shared<const RunJupyterRequest>(std::move(request));
    context.calls.spawn([&context, run, wake, io, shared_request] {
        json::object answer;
        try {
            answer = run_cells(context, *shared_request, *run);
        } catch (const std::exception& failure) {
            answer = response_json("SandboxError", std::string("e2beval serve could not run the cells: ") + failure.what(),
                                   nullptr, json::array{}, json::object{});
        }
        asio::post(io, [run, wake, answer = std::move(answer)]() mutable {
            run->answer = std::move(answer);
            run->finished = true;
            wake->cancel();
        });
    });
    // Woken when the call thread is done, or by the client going away (cancellation): then the session is killed,
    // which ends the thread's calls; the thread finishes on its own with what it shares.
    while (!run->finished) {
        const auto [ec] = co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
        if (!run->finished && (co_await asio::this_coro::cancellation_state).cancelled() != asio::cancellation_type::none) {
            kill_session(*run);
            throw boost::system::system_error(asio::error::operation_aborted, "the client went away");
        }
    }
    co_return std::move(run->answer);
}

}  // namespace e2beval::server::sandbox_fusion
