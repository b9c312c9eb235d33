// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: creates files named after TOKEN in /, /usr, /etc, /usr/bin and /dev/shm's host side: every path outside the workspace is read-only or the sandbox's own, and the runner finds no TOKEN file on the host.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    const char* token = getenv("TOKEN");
    const char* directories[] = {"", "/usr", "/etc", "/usr/bin", "/usr/lib"};
    for (size_t i = 0; i < sizeof directories / sizeof *directories; ++i) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", directories[i], token);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0) {
            printf("BLOCKED cannot create %s: %s\n", path, strerror(errno));
        } else {
            close(fd);
            printf("INFO created %s (the runner checks the host)\n", path);
        }
    }
    return 0;
}
