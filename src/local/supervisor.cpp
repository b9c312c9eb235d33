// The two ways an execution starts (supervisor.hpp). Everything that can fail before the first suspension
// happens before the handler is handed to a watcher, so a failure completes the handler here, once.
#include "local/supervisor.hpp"

#include <sys/resource.h>

#include <boost/asio/post.hpp>
#include <optional>

#include "e2beval/core/error.hpp"
#include "local/cold_watch.hpp"
#include "local/fd_message.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

namespace {

// Completes `handler` with why the execution could not start (posted: never from inside the initiation).
void complete_with_failure(const asio::any_io_executor& executor, SupervisionHandler handler, const std::exception& failure) {
    const auto* ours = dynamic_cast<const error*>(&failure);
    const auto code = ours ? ours->code() : errc::sandbox_setup;
    // Refusals are the caller's to report as errors; a sandbox that could not be built is a result.
    const bool refused = code == errc::invalid_input || code == errc::unsupported;
    ExecResult result;
    result.outcome = Outcome::sandbox_error;
    result.detail = failure.what();
    asio::post(executor, [handler = std::move(handler), result = std::move(result),
                          ec = refused ? boost::system::error_code(make_error_code(code)) : boost::system::error_code()]() mutable {
        std::move(handler)(ec, std::move(result));
    });
}

// What the zygote's compiled loop reads: the execution's steps and environment.
std::string warm_request(const SupervisionRequest& request) {
    WarmRequest warm;
    warm.steps.workspace_bytes = request.limits.workspace_bytes;
    warm.steps.rlimits = request.plan.rlimits;
    for (auto& limit : warm.steps.rlimits)
        // The zygote and the keeper run as the same id and count toward RLIMIT_NPROC too.
        if (limit.resource == RLIMIT_NPROC) limit.soft += 2, limit.hard += 2;
    warm.environment = request.plan.environment;
    return encode_warm_request(warm);
}

}  // namespace

void supervise(asio::any_io_executor executor, SupervisionRequest request, SupervisionHandler handler) noexcept {
    std::shared_ptr<ColdWatch> watch;
    try {
        watch = std::make_shared<ColdWatch>(executor, request, spawn(request));
    } catch (const std::exception& failure) {
        return complete_with_failure(executor, std::move(handler), failure);
    }
    watch->start(std::move(handler));
}

bool supervise_warm(asio::any_io_executor executor, Zygote& zygote, SupervisionRequest request, WarmHooks hooks,
                    SupervisionHandler& handler) noexcept {
    // A failure before the request is sent completes the handler; the zygote goes back, healthy or not.
    const auto fail = [&](const std::exception& failure, bool zygote_healthy) {
        if (hooks.release) hooks.release(zygote_healthy);
        complete_with_failure(executor, std::move(handler), failure);
        return true;
    };
    try {
        check_stdin_size(request.stdin_data);
    } catch (const std::exception& refused) {
        return fail(refused, true);
    }
    // The cgroup its standby is already in: limits for this request, and the counters it starts from.
    Spawned spawned;
    try {
        spawned.cgroup = zygote.take_standby_cgroup();
        if (spawned.cgroup) {
            spawned.cgroup->apply_limits(request.limits);
            spawned.cgroup_start = spawned.cgroup->begin_execution();
        }
    } catch (const std::exception&) {
        return false;  // the zygote cannot serve: the caller releases it as broken and runs the request cold
    }
    std::shared_ptr<WarmWatch> watch;
    {
        UniqueFd stdin_read, code;
        Pipe out, err;
        ReportChannel report;
        std::string header;
        try {
            stdin_read = prefilled_stdin(request.stdin_data);
            out = make_stdio_pipe();
            err = make_stdio_pipe();
            report = make_report_channel();
            code = sealed_memfd("e2beval-code", request.plan.program_source);
            header = warm_request(request);
        } catch (const std::exception& failure) {
            return fail(failure, false);  // its standby was taken: it cannot serve the next request
        }
        ++zygote.uses;
        if (!send_with_fds(zygote.control(), header,
                           {code.get(), stdin_read.get(), out.write_end.get(), err.write_end.get(), report.child_end.get()}))
            return false;
        spawned.stdout_read = std::move(out.read_end);
        spawned.stderr_read = std::move(err.read_end);
        spawned.report = std::move(report.parent_end);
        try {
            watch = std::make_shared<WarmWatch>(executor, request, std::move(spawned), WarmHooks(hooks));
        } catch (const std::exception& failure) {
            // The zygote has the request and nobody would watch it: it goes, with the program it starts.
            if (hooks.kill_zygote) hooks.kill_zygote();
            return fail(failure, false);
        }
    }  // our copies of the program's ends close here: the zygote's child holds them now
    watch->start(std::move(handler));
    return true;
}

}  // namespace e2beval::local
