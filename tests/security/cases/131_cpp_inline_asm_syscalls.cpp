// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: system calls made by inline assembly (the `syscall` instruction, no libc at all): unshare(CLONE_NEWUSER), mount, ptrace(PTRACE_TRACEME then ATTACH to 1), reboot; seccomp filters the instruction's calls exactly as libc's, so each returns an error.
#include <cstdio>

static long raw_syscall(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0) {
    long result;
    register long r10 asm("r10") = d;
    register long r8 asm("r8") = e;
    asm volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
    return result;
}

static void attempt(const char* what, long result) {
    if (result < 0) std::printf("BLOCKED %s: errno %ld\n", what, -result);
    else std::printf("LEAKED %s returned %ld\n", what, result);
}

int main() {
    attempt("unshare(CLONE_NEWUSER)", raw_syscall(272, 0x10000000));
    attempt("mount(none, /tmp, tmpfs)", raw_syscall(165, (long)"none", (long)"/tmp", (long)"tmpfs", 0, 0));
    attempt("ptrace(PTRACE_ATTACH, 1)", raw_syscall(101, 16, 1, 0, 0));
    attempt("reboot(RB_POWER_OFF)", raw_syscall(169, 0xfee1dead, 672274793, 0x4321fedc, 0));
    attempt("chroot(/)", raw_syscall(161, (long)"/"));
    return 0;
}
