// expect-outcome: ok|signaled
// forbid-stdout: LEAKED
// why: kill(-1, SIGKILL) and kill of the runner's host pid (HOST_PID): the pid namespace holds only the sandbox's own processes, so the first reaches nothing of the host (at most the program itself) and the second finds no such process.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const int host_pid = atoi(getenv("HOST_PID"));
    if (kill(host_pid, 0) == 0 && host_pid != 1) printf("LEAKED the host pid %d is visible\n", host_pid);
    else printf("BLOCKED host pid %d: %s\n", host_pid, strerror(errno));
    if (kill(1, SIGKILL) == 0) printf("INFO kill(1) returned 0 (the sandbox's own init ignores it)\n");
    fflush(stdout);
    kill(-1, SIGKILL);
    printf("BLOCKED kill(-1) reached nothing outside\n");
    return 0;
}
