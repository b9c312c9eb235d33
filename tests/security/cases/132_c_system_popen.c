// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: system() and popen() run a shell (it exists: the sandbox binds /bin read-only) that reads host secrets: /etc/shadow, the runner's canary, /proc/1/environ, the repository; the shell shares the sandbox's view, so it finds none of them.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char* canary = getenv("CANARY_PATH");
    char command[512];
    snprintf(command, sizeof command, "cat /etc/shadow '%s' 2>/dev/null; tr '\\0' '\\n' </proc/1/environ 2>/dev/null | grep -c E2B_API_KEY", canary);
    FILE* pipe = popen(command, "r");
    if (!pipe) {
        printf("BLOCKED popen failed\n");
        return 0;
    }
    char line[4096];
    size_t lines = 0;
    while (fgets(line, sizeof line, pipe)) {
        line[strcspn(line, "\n")] = 0;
        if (strcmp(line, "0") == 0) continue;  // grep's count: no E2B_API_KEY in init's environment
        printf("LEAKED the shell read: %.200s\n", line);
        ++lines;
    }
    pclose(pipe);
    if (lines == 0) printf("BLOCKED the shell found no host secret\n");
    int status = system("ls /work /root/.ssh /home 2>/dev/null | head -c 200");
    printf("INFO system() status %d\n", status);
    return 0;
}
