// expect-outcome: ok
// limits: {"wall_time_s": 5}
// why: daemonises in C (fork, setsid, fork, SIGHUP and SIGTERM ignored, stdio closed) into a shell whose argv holds TOKEN and that sleeps 60 s, then returns at once; the pid namespace's end kills the daemon, and the runner finds no host process with TOKEN.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
    const char* token = getenv("TOKEN");
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            signal(SIGHUP, SIG_IGN);
            signal(SIGTERM, SIG_IGN);
            close(0);
            close(1);
            close(2);
            execl("/bin/sh", "sh", "-c", "trap '' HUP TERM; sleep 60", token, (char*)NULL);
            _exit(1);
        }
        _exit(0);
    }
    printf("INFO daemon started\n");
    return 0;
}
