// One metrics sample of a served sandbox, in the shape of E2B's SandboxMetric.
//
// E2B samples its sandboxes every few seconds and keeps the series; the server keeps none: each call measures
// now, and the `start`/`end` of the query are accepted and ignored. CPU use is the CPU time the session's cgroup
// used between two readings kCpuWindow apart, over the window times its CPU count, so 100 % is every CPU busy.
#include "server/sandbox_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "server/request_json.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

constexpr std::chrono::milliseconds kCpuWindow{250};

double cpu_used_percent(const SessionUsage& before, const SessionUsage& after) {
    if (!before.cpu_time || !after.cpu_time) return 0;
    const double used = std::chrono::duration<double>(*after.cpu_time - *before.cpu_time).count();
    const double wall = std::chrono::duration<double>(after.measured_at_steady - before.measured_at_steady).count();
    if (wall <= 0) return 0;
    const double percent = 100.0 * used / (wall * after.cpu_count);
    return std::clamp(std::round(percent * 100) / 100, 0.0, 100.0);
}

json::object metric_json(const SessionUsage& before, const SessionUsage& now) {
    const auto unix_seconds = std::chrono::duration_cast<std::chrono::seconds>(now.measured_at.time_since_epoch()).count();
    return {{"timestamp", rfc3339(now.measured_at)},
            {"timestampUnix", unix_seconds},
            {"cpuCount", now.cpu_count},
            {"cpuUsedPct", cpu_used_percent(before, now)},
            {"memUsed", now.memory_used_bytes.value_or(0)},
            {"memTotal", now.memory_total_bytes},
            {"memCache", now.memory_cache_bytes.value_or(0)},
            {"diskUsed", now.disk_used_bytes.value_or(0)},
            {"diskTotal", now.disk_total_bytes.value_or(0)}};
}

}  // namespace

Response sandbox_metrics(const ServedSandbox& sandbox) {
    try {
        const auto before = sandbox.session->usage();
        std::this_thread::sleep_for(kCpuWindow);
        const auto now = sandbox.session->usage();
        return json_response(http::status::ok, json::array{metric_json(before, now)});
    } catch (const sandbox_error&) {
        return error_response(http::status::not_found, "sandbox \"" + sandbox.session->id() + "\" not found: it ended while its metrics were measured");
    }
}

}  // namespace e2beval::server
