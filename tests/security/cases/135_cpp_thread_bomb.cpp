// expect-outcome: ok|pids_limit|memory_limit|exit_nonzero
// forbid-stdout: LEAKED
// limits: {"max_processes": 64, "wall_time_s": 10}
// why: starts 10000 std::threads that each sleep (threads are tasks, the kernel resource a fork bomb exhausts); RLIMIT_NPROC and the pids cgroup stop thread creation near max_processes.
#include <chrono>
#include <cstdio>
#include <system_error>
#include <thread>
#include <vector>

int main() {
    std::vector<std::thread> threads;
    int started = 0;
    try {
        for (; started < 10000; ++started)
            threads.emplace_back([] { std::this_thread::sleep_for(std::chrono::seconds(2)); });
    } catch (const std::system_error& error) {
        std::printf("BLOCKED thread %d not created: %s\n", started, error.what());
    }
    if (started >= 10000) std::printf("LEAKED started 10000 threads\n");
    for (auto& thread : threads) thread.join();
    return 0;
}
