// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: a compiled program opens host secrets at run time: /etc/shadow, the runner's canary in the host's /tmp, init's environment, /root/.ssh, the repository checkout; the mount namespace shows none of them, and the environment holds no E2B_API_KEY.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void attempt(const char* path) {
    FILE* file = fopen(path, "r");
    if (!file) {
        printf("BLOCKED cannot open %s\n", path);
        return;
    }
    char buffer[256] = {0};
    size_t n = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    for (size_t i = 0; i < n; ++i)
        if (buffer[i] == 0 || buffer[i] == '\n') buffer[i] = ' ';
    if (n == 0) printf("BLOCKED %s is empty\n", path);
    else if (strstr(path, "environ") && !strstr(buffer, "E2B_API_KEY")) printf("BLOCKED %s holds no secret\n", path);
    else printf("LEAKED %s: %.120s\n", path, buffer);
}

int main(void) {
    attempt("/etc/shadow");
    attempt(getenv("CANARY_PATH"));
    attempt("/proc/1/environ");
    attempt("/root/.ssh/id_rsa");
    attempt("/work/main/CMakeLists.txt");
    if (getenv("E2B_API_KEY")) printf("LEAKED E2B_API_KEY in the environment\n");
    else printf("BLOCKED no E2B_API_KEY in the environment\n");
    return 0;
}
