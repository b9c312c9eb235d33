// expect-outcome: ok|pids_limit|exit_nonzero|signaled|memory_limit|output_limit
// limits: {"max_processes": 64, "wall_time_s": 10}
// why: 5000 goroutines each locked to an OS thread and blocked in a system call force the Go runtime to start 5000 threads; RLIMIT_NPROC and the pids cgroup refuse them near max_processes (the runtime dies with "failed to create new OS thread"), and nothing is left running. The dying runtime prints every goroutine's stack (thousands), which may pass the output cap first: output_limit, contained as well.
package main

import (
	"fmt"
	"runtime"
	"syscall"
)

func main() {
	for i := 0; i < 5000; i++ {
		go func() {
			runtime.LockOSThread()
			sleep := syscall.Timespec{Sec: 5}
			syscall.Nanosleep(&sleep, nil) // blocks this OS thread in the kernel
		}()
	}
	sleep := syscall.Timespec{Sec: 1}
	syscall.Nanosleep(&sleep, nil)
	fmt.Println("INFO the runtime survived: threads were capped without a crash")
}
