// expect-outcome: ok
// forbid-stdout: LEAKED
// limits: {"wall_time_s": 5}
// why: os/exec runs a shell that reads host secrets, then starts a daemon in a new session (Setsid) that ignores SIGHUP/SIGTERM with TOKEN in its argv and returns without waiting; the shell finds no host file, and the pid namespace's end kills the daemon (the runner finds no TOKEN process).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

func main() {
	script := "cat /etc/shadow '" + os.Getenv("CANARY_PATH") + "' 2>/dev/null; tr '\\0' '\\n' </proc/1/environ 2>/dev/null | grep E2B_API_KEY"
	output, _ := exec.Command("/bin/sh", "-c", script).Output()
	if text := strings.TrimSpace(string(output)); text != "" {
		fmt.Println("LEAKED", text)
	} else {
		fmt.Println("BLOCKED the shell found no host secret")
	}
	daemon := exec.Command("/bin/sh", "-c", "trap '' HUP TERM; sleep 60", os.Getenv("TOKEN"))
	daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := daemon.Start(); err != nil {
		fmt.Println("INFO no daemon:", err)
	} else {
		fmt.Println("INFO daemon started", daemon.Process.Pid)
	}
}
