// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: Rust's asm! issues raw system calls with no libc: unshare(CLONE_NEWUSER), mount, ptrace(PTRACE_ATTACH, 1), io_uring_setup, setns; seccomp and the missing capabilities refuse every one.
use std::arch::asm;

unsafe fn raw_syscall(number: i64, a: i64, b: i64, c: i64) -> i64 {
    let result: i64;
    asm!("syscall", inlateout("rax") number => result, in("rdi") a, in("rsi") b, in("rdx") c,
         in("r10") 0i64, in("r8") 0i64, lateout("rcx") _, lateout("r11") _, options(nostack));
    result
}

fn attempt(what: &str, result: i64) {
    if result < 0 {
        println!("BLOCKED {}: errno {}", what, -result);
    } else {
        println!("LEAKED {} returned {}", what, result);
    }
}

fn main() {
    let params = [0u8; 120];
    unsafe {
        attempt("unshare(CLONE_NEWUSER)", raw_syscall(272, 0x10000000, 0, 0));
        attempt("mount(none, /tmp, tmpfs)", raw_syscall(165, b"none\0".as_ptr() as i64, b"/tmp\0".as_ptr() as i64,
                                                        b"tmpfs\0".as_ptr() as i64));
        attempt("ptrace(PTRACE_ATTACH, 1)", raw_syscall(101, 16, 1, 0));
        attempt("io_uring_setup", raw_syscall(425, 8, params.as_ptr() as i64, 0));
        attempt("setns(0, 0)", raw_syscall(308, 0, 0, 0));
    }
}
