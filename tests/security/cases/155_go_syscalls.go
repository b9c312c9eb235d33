// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: Go's syscall package makes raw system calls with its own assembly (no libc): unshare(CLONE_NEWUSER), mount, ptrace(PTRACE_ATTACH, 1), io_uring_setup, chroot, reboot; seccomp and the missing capabilities refuse every one.
package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

func attempt(what string, r1 uintptr, errno syscall.Errno) {
	if errno != 0 {
		fmt.Printf("BLOCKED %s: %v\n", what, errno)
	} else {
		fmt.Printf("LEAKED %s returned %d\n", what, r1)
	}
}

func main() {
	r1, _, errno := syscall.RawSyscall(syscall.SYS_UNSHARE, 0x10000000, 0, 0)
	attempt("unshare(CLONE_NEWUSER)", r1, errno)
	if err := syscall.Mount("none", "/tmp", "tmpfs", 0, ""); err != nil {
		fmt.Printf("BLOCKED mount: %v\n", err)
	} else {
		fmt.Println("LEAKED mounted a tmpfs")
	}
	if err := syscall.PtraceAttach(1); err != nil {
		fmt.Printf("BLOCKED ptrace(PTRACE_ATTACH, 1): %v\n", err)
	} else {
		fmt.Println("LEAKED attached to pid 1")
	}
	var params [120]byte
	r1, _, errno = syscall.RawSyscall(425, 8, uintptr(unsafe.Pointer(&params[0])), 0)
	attempt("io_uring_setup", r1, errno)
	if err := syscall.Chroot("/"); err != nil {
		fmt.Printf("BLOCKED chroot: %v\n", err)
	} else {
		fmt.Println("LEAKED chroot succeeded")
	}
	if err := syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF); err != nil {
		fmt.Printf("BLOCKED reboot: %v\n", err)
	} else {
		fmt.Println("LEAKED reboot returned")
	}
}
