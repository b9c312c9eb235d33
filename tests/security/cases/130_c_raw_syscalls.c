// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: raw system calls through syscall(2), around libc's wrappers: unshare of a user namespace, mount, ptrace of init, setns, io_uring_setup, bpf, kexec_load, keyctl; seccomp (and the missing capabilities) must refuse every one.
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>

static void attempt(const char* what, long result) {
    if (result < 0) printf("BLOCKED %s: %s\n", what, strerror(errno));
    else printf("LEAKED %s returned %ld\n", what, result);
}

int main(void) {
    attempt("unshare(CLONE_NEWUSER)", syscall(SYS_unshare, CLONE_NEWUSER));
    attempt("unshare(CLONE_NEWNS)", syscall(SYS_unshare, CLONE_NEWNS));
    attempt("mount(tmpfs, /tmp)", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0L, 0L));
    attempt("ptrace(PTRACE_ATTACH, 1)", syscall(SYS_ptrace, 16L, 1L, 0L, 0L));
    attempt("setns(/proc/1/ns/mnt)", syscall(SYS_setns, 3L, 0L));
    unsigned char params[120];
    memset(params, 0, sizeof params);
    attempt("io_uring_setup(8)", syscall(SYS_io_uring_setup, 8L, params));
    attempt("bpf(BPF_PROG_LOAD)", syscall(SYS_bpf, 5L, params, 72L));
    attempt("kexec_load", syscall(SYS_kexec_load, 0L, 0L, 0L, 0L));
    attempt("keyctl(KEYCTL_GET_KEYRING_ID)", syscall(SYS_keyctl, 0L, -4L, 0L));
    return 0;
}
