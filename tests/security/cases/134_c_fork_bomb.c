// expect-outcome: ok|pids_limit|exit_nonzero
// forbid-stdout: LEAKED
// limits: {"max_processes": 32, "wall_time_s": 5}
// why: an exponential fork bomb in C for two seconds; RLIMIT_NPROC and the pids cgroup cap it at max_processes, the host stays responsive and no child survives.
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    const pid_t original = getpid();
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long failed = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= 2) break;
        if (fork() < 0) {
            ++failed;
            usleep(10000);
        }
    }
    while (wait(NULL) > 0) {
    }
    if (getpid() == original) printf("BLOCKED fork bomb contained: %ld forks of the original process failed\n", failed);
    fflush(stdout);
    _exit(0);
}
