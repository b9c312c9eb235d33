// See resident_compiler.hpp. A pool per key: a queue of compiles and up to resident_pool_size() worker threads,
// each owning one service. A pool rather than one service with a queue: `eval --jobs 2` sends two compiles at
// once, and a service compiles one at a time (javac and tsc are single-threaded enough that two compiles in one
// process would mostly wait for each other, and the workspace is per request). More services than CPUs would
// only compete for them. A service is started when a compile is queued and no service is idle.
//
// Each compile is plain blocking I/O on the service's pipes with poll() and a deadline, on the worker's own
// thread: the event loop never waits for a compiler.
#include "local/resident_compiler.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "e2beval/local/resident_compilers.hpp"
#include "local/session_keeper.hpp"

namespace e2beval::local {

namespace {

using Clock = std::chrono::steady_clock;

// How often a waiting compile samples its cgroup's CPU time (the CPU-time limit's resolution).
constexpr std::chrono::milliseconds kCpuSampling{200};
// A service must report ready within this (a JVM compiling its service's source, on a busy host).
constexpr std::chrono::seconds kStartupLimit{120};

// The wire format: a 4-byte big-endian count of fields, each a 4-byte big-endian length and its bytes.
void append_u32(std::string& out, std::uint32_t value) {
    const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
                           static_cast<char>(value)};
    out.append(bytes, 4);
}

std::uint32_t read_u32(const std::string& in, std::size_t at) {
    return (std::uint32_t{static_cast<unsigned char>(in[at])} << 24) | (std::uint32_t{static_cast<unsigned char>(in[at + 1])} << 16) |
           (std::uint32_t{static_cast<unsigned char>(in[at + 2])} << 8) | std::uint32_t{static_cast<unsigned char>(in[at + 3])};
}

std::string encode(const std::vector<std::string>& fields) {
    std::string out;
    append_u32(out, static_cast<std::uint32_t>(fields.size()));
    for (const auto& field : fields) {
        append_u32(out, static_cast<std::uint32_t>(field.size()));
        out += field;
    }
    return out;
}

// A whole message at the start of `buffer`, or nullopt when more bytes are needed.
std::optional<std::vector<std::string>> decode(const std::string& buffer) {
    if (buffer.size() < 4) return std::nullopt;
    const auto count = read_u32(buffer, 0);
    std::size_t at = 4;
    std::vector<std::string> fields;
    for (std::uint32_t i = 0; i < count; ++i) {
        if (buffer.size() < at + 4) return std::nullopt;
        const auto length = read_u32(buffer, at);
        at += 4;
        if (buffer.size() < at + length) return std::nullopt;
        fields.push_back(buffer.substr(at, length));
        at += length;
    }
    return fields;
}

std::string octal(std::uint32_t mode) {
    char text[16];
    std::snprintf(text, sizeof text, "%o", mode & 07777u);
    return text;
}

// One service: a sandbox whose program answers compile requests. Used by its worker thread only, except kill()
// (process exit, the owner gone), hence the mutex around the sandbox handle.
class Service {
public:
    Service(std::string language, InteractiveSandbox sandbox) : language_(std::move(language)), sandbox_(std::move(sandbox)) {
        for (const int fd : {sandbox_.stdin_write.get(), sandbox_.stdout_read.get(), sandbox_.stderr_read.get()})
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    ~Service() { kill(); }

    void kill() noexcept {
        std::lock_guard lock(mutex_);
        sandbox_.kill();
    }
    int pid() {
        std::lock_guard lock(mutex_);
        return sandbox_.pid();
    }
    const std::string& language() const noexcept { return language_; }
    unsigned compiles = 0;

    enum class Waited { message, deadline, cpu_limit, gone };
    struct Exchange {
        Waited how = Waited::gone;
        std::vector<std::string> reply;
    };

    // Sends `request` (may be empty: only wait for a message) and waits for one message until `deadline`, or
    // until the cgroup's CPU time since `cpu_start` exceeds `cpu_limit` (0: none).
    Exchange exchange(const std::string& request, Clock::time_point deadline, const CgroupUsage& cpu_start,
                      std::chrono::nanoseconds cpu_limit, std::size_t reply_cap) {
        std::size_t sent = 0;
        std::string received;
        for (;;) {
            if (auto message = decode(received)) return {Waited::message, std::move(*message)};
            if (received.size() > reply_cap) return {Waited::gone, {}};
            const auto now = Clock::now();
            if (now >= deadline) return {Waited::deadline, {}};
            if (cpu_limit.count() > 0 && cpu_time_since(cpu_start) > cpu_limit) return {Waited::cpu_limit, {}};
            pollfd fds[3] = {{sandbox_.stdout_read.get(), POLLIN, 0}, {sandbox_.stderr_read.get(), POLLIN, 0},
                             {sent < request.size() ? sandbox_.stdin_write.get() : -1, POLLOUT, 0}};
            auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(1);
            if (cpu_limit.count() > 0) wait = std::min(wait, kCpuSampling);
            if (::poll(fds, 3, static_cast<int>(wait.count())) < 0 && errno != EINTR) return {Waited::gone, {}};
            if (fds[2].revents & (POLLERR | POLLHUP)) return {Waited::gone, {}};
            if (fds[2].revents & POLLOUT) {
                const auto n = ::write(sandbox_.stdin_write.get(), request.data() + sent, request.size() - sent);
                if (n < 0 && errno != EAGAIN && errno != EINTR) return {Waited::gone, {}};
                if (n > 0) sent += static_cast<std::size_t>(n);
            }
            if (fds[1].revents & (POLLIN | POLLHUP)) drain_stderr();
            if (fds[0].revents & (POLLIN | POLLHUP)) {
                char buffer[65536];
                const auto n = ::read(sandbox_.stdout_read.get(), buffer, sizeof buffer);
                if (n == 0) return {Waited::gone, {}};
                if (n < 0 && errno != EAGAIN && errno != EINTR) return {Waited::gone, {}};
                if (n > 0) received.append(buffer, static_cast<std::size_t>(n));
            }
        }
    }

    CgroupUsage usage() {
        std::lock_guard lock(mutex_);
        return sandbox_.cgroup ? sandbox_.cgroup->usage() : CgroupUsage{};
    }
    std::chrono::nanoseconds cpu_time_since(const CgroupUsage& start) {
        const auto now = usage();
        if (!now.cpu_time) return {};
        return *now.cpu_time - start.cpu_time.value_or(std::chrono::nanoseconds{0});
    }
    std::string cgroup_version() {
        std::lock_guard lock(mutex_);
        return sandbox_.cgroup ? std::string(to_string(sandbox_.cgroup->version())) : "none";
    }
    // The end of what the service wrote on stderr (the JVM's or node's own complaints), for a failed start.
    const std::string& stderr_tail() const noexcept { return stderr_tail_; }

private:
    // The service's stderr is read so that it never blocks on a full pipe; only its end is kept.
    void drain_stderr() {
        char buffer[4096];
        for (;;) {
            const auto n = ::read(sandbox_.stderr_read.get(), buffer, sizeof buffer);
            if (n <= 0) return;
            stderr_tail_.append(buffer, static_cast<std::size_t>(n));
            if (stderr_tail_.size() > 4096) stderr_tail_.erase(0, stderr_tail_.size() - 4096);
        }
    }

    std::string language_;
    std::mutex mutex_;
    InteractiveSandbox sandbox_;
    std::string stderr_tail_;
};

struct Queued {
    ResidentJob job;
    ResidentDone done;
};

struct Pool {
    std::string language;
    std::weak_ptr<const void> owner;
    std::deque<Queued> queue;
    unsigned workers = 0;
    unsigned idle = 0;
    unsigned failed_starts = 0;  // consecutive: after 3 the pool sends every compile cold
    bool retired = false;        // end_resident_compilers(): its workers end once its queue is empty
    std::condition_variable wake;
    std::vector<std::shared_ptr<Service>> services;  // the live ones, for resident_services() and process exit
};

struct Registry {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<Pool>> pools;
    bool exiting = false;
    std::condition_variable worker_left;  // a worker counted itself out (end_resident_compilers() waits for it)
    const pid_t owner_pid = ::getpid();

    static Registry& instance() {
        // Never destroyed: worker threads use it until the process ends.
        static Registry* registry = [] {
            auto* made = new Registry();
            std::atexit([] { Registry::instance().end_all(); });
            return made;
        }();
        return *registry;
    }

    // At process exit: every service's processes and cgroup go now (its init would die with the keeper
    // thread anyway, but nothing else would remove the cgroup). Queued compiles are not answered: nobody waits.
    void end_all() noexcept {
        if (::getpid() != owner_pid) return;  // a forked child's exit: the services are its parent's
        std::vector<std::shared_ptr<Service>> ending;
        {
            std::lock_guard lock(mutex);
            exiting = true;
            for (auto& [key, pool] : pools) {
                ending.insert(ending.end(), pool->services.begin(), pool->services.end());
                pool->wake.notify_all();
            }
        }
        for (auto& service : ending) service->kill();
    }
};

void forget_service(Registry& registry, Pool& pool, const std::shared_ptr<Service>& service) {
    if (!service) return;
    service->kill();
    std::lock_guard lock(registry.mutex);
    std::erase(pool.services, service);
}

std::shared_ptr<Service> start_service(Registry& registry, Pool& pool, const ResidentJob& job) {
    auto sandbox = SessionKeeper::instance().spawn(job.build_service());
    auto service = std::make_shared<Service>(job.language, std::move(sandbox));
    {
        std::lock_guard lock(registry.mutex);
        if (registry.exiting) return nullptr;
        pool.services.push_back(service);
    }
    const auto ready = service->exchange({}, Clock::now() + kStartupLimit, {}, {}, 1 << 20);
    if (ready.how != Service::Waited::message || ready.reply.size() != 1 || ready.reply[0] != "ready") {
        // Why, for E2BEVAL_DEBUG_RESIDENT=1 (a service that cannot start costs only speed: compiles go cold).
        if (const char* debug = std::getenv("E2BEVAL_DEBUG_RESIDENT"); debug && *debug == '1')
            std::fprintf(stderr, "e2beval: the resident %s compiler did not start (%d): %s\n", job.language.c_str(), static_cast<int>(ready.how),
                         service->stderr_tail().c_str());
        forget_service(registry, pool, service);
        return nullptr;
    }
    return service;
}

// What every result of a resident compile says of its run: its times and the isolation it had (the service's
// cgroup: "full", or "standard" without one).
void stamp_run(ExecResult& result, Clock::duration wall, std::chrono::nanoseconds cpu, const std::string& cgroup_version) {
    result.wall_time = std::chrono::duration_cast<std::chrono::nanoseconds>(wall);
    result.cpu_time = cpu;
    result.cgroup_version = cgroup_version;
    result.isolation_level = cgroup_version == "none" ? "standard" : "full";
    result.backend = "local";
}

ExecResult result_of(const std::vector<std::string>& reply, const ResidentJob& job, Clock::duration wall, std::chrono::nanoseconds cpu,
                     const std::string& cgroup_version) {
    ExecResult result;
    result.exit_code = std::atoi(reply[0].c_str() + 5);
    result.outcome = result.exit_code == 0 ? Outcome::ok : Outcome::exit_nonzero;
    const auto cap = job.limits.output_bytes;
    result.stdout_data = reply[1];
    result.stderr_data = reply[2];
    // As a cold compile's supervisor does: more than the cap and the compiler is stopped, output_limit.
    for (auto [data, truncated] : {std::pair{&result.stdout_data, &result.stdout_truncated}, std::pair{&result.stderr_data, &result.stderr_truncated}}) {
        if (data->size() <= cap) continue;
        data->resize(cap);
        *truncated = true;
        result.outcome = Outcome::output_limit;
        result.exit_code = -1;
        result.signal = SIGKILL;
    }
    if (result.outcome == Outcome::ok)
        for (std::size_t i = 3; i + 1 < reply.size(); i += 2) result.collected.push_back({reply[i], reply[i + 1], 0644});
    stamp_run(result, wall, cpu, cgroup_version);
    return result;
}

// One compile on `service` (started when null); returns its result for `done` (nullopt: compile it cold). May end the
// service (sets it null).
std::optional<ExecResult> serve(Registry& registry, Pool& pool, std::shared_ptr<Service>& service, const ResidentJob& job) {
    if (!service) {
        service = start_service(registry, pool, job);
        std::lock_guard lock(registry.mutex);
        pool.failed_starts = service ? 0 : pool.failed_starts + 1;
    }
    if (!service) return std::nullopt;
    std::vector<std::string> fields;
    std::string arguments;
    for (const auto& argument : job.compiler_arguments) arguments += (arguments.empty() ? "" : std::string(1, '\0')) + argument;
    fields.push_back(std::move(arguments));
    for (const auto& file : job.files) fields.insert(fields.end(), {file.path, octal(file.mode), file.data});
    const auto cpu_start = service->usage();
    const auto started = Clock::now();
    const auto reply_cap = static_cast<std::size_t>(std::min<std::uint64_t>(job.limits.workspace_bytes, 1ull << 30)) + 2 * job.limits.output_bytes + 4096;
    auto exchange = service->exchange(encode(fields), started + job.limits.wall_time, cpu_start, job.limits.cpu_time, reply_cap);
    const auto wall = Clock::now() - started;
    const auto cpu = service->cpu_time_since(cpu_start);
    const auto cgroup_version = service->cgroup_version();
    ++service->compiles;
    const bool answered = exchange.how == Service::Waited::message && exchange.reply.size() >= 3 && exchange.reply[0].starts_with("exit ");
    if (!answered || service->compiles >= kCompilesPerService) {
        forget_service(registry, pool, service);
        service = nullptr;
    }
    if (answered) return result_of(exchange.reply, job, wall, cpu, cgroup_version);
    if (exchange.how == Service::Waited::deadline || exchange.how == Service::Waited::cpu_limit) {
        // The compile's own limit: the outcome a cold compile gets (compile_stage.cpp words it the same way).
        ExecResult result;
        result.outcome = exchange.how == Service::Waited::deadline ? Outcome::timeout : Outcome::cpu_limit;
        result.signal = SIGKILL;
        stamp_run(result, wall, cpu, cgroup_version);
        return result;
    }
    // Died, ran out of memory, or failed: the cold compile decides, exactly as it would have without the service.
    return std::nullopt;
}

void work(std::shared_ptr<Pool> pool) {
    auto& registry = Registry::instance();
    std::shared_ptr<Service> service;
    auto idle_since = Clock::now();
    std::unique_lock lock(registry.mutex);
    for (;;) {
        if (registry.exiting) break;
        if (!pool->queue.empty()) {
            auto queued = std::move(pool->queue.front());
            pool->queue.pop_front();
            --pool->idle;
            lock.unlock();
            auto result = serve(registry, *pool, service, queued.job);
            lock.lock();
            ++pool->idle;
            idle_since = Clock::now();
            // Idle before the caller hears back: its next compile finds this service rather than starting another.
            lock.unlock();
            queued.done(std::move(result));
            lock.lock();
            continue;
        }
        if (pool->retired || pool->owner.expired() || Clock::now() - idle_since >= kIdleLifetime) break;
        pool->wake.wait_for(lock, std::chrono::milliseconds(500));
    }
    // The service goes before the worker is counted out: end_resident_compilers() waits for the count.
    lock.unlock();
    if (service) forget_service(registry, *pool, service);
    lock.lock();
    --pool->idle;
    --pool->workers;
    registry.worker_left.notify_all();
    if (pool->workers == 0 && pool->queue.empty())
        if (auto entry = std::find_if(registry.pools.begin(), registry.pools.end(), [&](const auto& kept) { return kept.second == pool; });
            entry != registry.pools.end())
            registry.pools.erase(entry);
}

}  // namespace

bool resident_compilers_enabled() {
    const char* setting = std::getenv("E2BEVAL_RESIDENT_COMPILERS");
    return !setting || std::string_view(setting) != "0";
}

unsigned resident_pool_size() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }

void compile_resident(ResidentJob job, ResidentDone done) {
    auto& registry = Registry::instance();
    std::unique_lock lock(registry.mutex);
    auto& pool = registry.pools[job.service_key];
    // A pool of an owner that is gone (its settings' address now another's) is left to its workers, which end.
    const bool same_owner = pool && !pool->owner.owner_before(job.owner) && !job.owner.owner_before(pool->owner);
    if (!pool || !same_owner) {
        pool = std::make_shared<Pool>();
        pool->language = job.language;
        pool->owner = job.owner;
    }
    if (registry.exiting || pool->failed_starts >= 3) {
        lock.unlock();
        return done(std::nullopt);
    }
    pool->queue.push_back({std::move(job), std::move(done)});
    if (pool->idle == 0 && pool->workers < resident_pool_size()) {
        ++pool->workers;
        ++pool->idle;
        std::thread(work, pool).detach();
    } else {
        pool->wake.notify_one();
    }
}

std::vector<ResidentServiceInfo> resident_services() {
    auto& registry = Registry::instance();
    std::vector<std::shared_ptr<Service>> services;
    {
        std::lock_guard lock(registry.mutex);
        for (const auto& [key, pool] : registry.pools) services.insert(services.end(), pool->services.begin(), pool->services.end());
    }
    std::vector<ResidentServiceInfo> info;
    for (const auto& service : services) info.push_back({service->language(), service->pid(), service->compiles});
    return info;
}

}  // namespace e2beval::local

namespace e2beval {

std::vector<ResidentCompilerInfo> resident_compilers() {
    std::vector<ResidentCompilerInfo> info;
    for (const auto& service : local::resident_services()) info.push_back({service.language, service.pid, service.compiles});
    return info;
}

void end_resident_compilers() {
    auto& registry = local::Registry::instance();
    std::vector<std::shared_ptr<local::Pool>> retired;
    {
        std::lock_guard lock(registry.mutex);
        for (auto& [key, pool] : registry.pools) {
            pool->retired = true;
            pool->wake.notify_all();
            retired.push_back(pool);
        }
        registry.pools.clear();  // later compiles make new pools
    }
    // Its workers kill their services as they leave (work()); a compile in progress ends within its limits.
    std::unique_lock lock(registry.mutex);
    registry.worker_left.wait(lock, [&] {
        return std::all_of(retired.begin(), retired.end(), [](const auto& pool) { return pool->workers == 0; });
    });
}

}  // namespace e2beval
