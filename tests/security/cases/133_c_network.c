// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: native sockets to the runner's listeners: TCP and UDP on the host's 127.0.0.1 (HOST_PORT, HOST_UDP_PORT) and its abstract unix socket (HOST_ABSTRACT); the network namespace has no route to the host's loopback, seccomp denies AF_INET, and abstract sockets are per network namespace. The runner checks its listeners heard nothing.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(void) {
    struct sockaddr_in host = {0};
    host.sin_family = AF_INET;
    host.sin_port = htons((unsigned short)atoi(getenv("HOST_PORT")));
    inet_pton(AF_INET, "127.0.0.1", &host.sin_addr);
    int tcp = socket(AF_INET, SOCK_STREAM, 0);
    if (tcp < 0) printf("BLOCKED tcp socket: %s\n", strerror(errno));
    else if (connect(tcp, (struct sockaddr*)&host, sizeof host) < 0) printf("BLOCKED tcp connect: %s\n", strerror(errno));
    else printf("LEAKED connected to the host's TCP listener\n");

    host.sin_port = htons((unsigned short)atoi(getenv("HOST_UDP_PORT")));
    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    if (udp < 0) printf("BLOCKED udp socket: %s\n", strerror(errno));
    else if (sendto(udp, "x", 1, 0, (struct sockaddr*)&host, sizeof host) < 0) printf("BLOCKED udp sendto: %s\n", strerror(errno));
    else printf("INFO udp datagram sent (the runner checks its listener received nothing)\n");

    struct sockaddr_un abstract = {0};
    abstract.sun_family = AF_UNIX;
    const char* name = getenv("HOST_ABSTRACT");
    strncpy(abstract.sun_path + 1, name, sizeof abstract.sun_path - 2);
    int unix_socket = socket(AF_UNIX, SOCK_STREAM, 0);
    socklen_t length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    if (unix_socket < 0) printf("BLOCKED unix socket: %s\n", strerror(errno));
    else if (connect(unix_socket, (struct sockaddr*)&abstract, length) < 0) printf("BLOCKED abstract connect: %s\n", strerror(errno));
    else printf("LEAKED connected to the host's abstract socket\n");
    return 0;
}
