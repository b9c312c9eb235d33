// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: Go's net package (its own resolver and sockets, no libc) dials the runner's TCP and UDP listeners on the host's 127.0.0.1 and its abstract unix socket, and resolves a name; the network namespace and seccomp stop each. The runner checks its listeners heard nothing.
package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+os.Getenv("HOST_PORT"), 2*time.Second); err != nil {
		fmt.Println("BLOCKED tcp dial:", err)
	} else {
		conn.Close()
		fmt.Println("LEAKED connected to the host's TCP listener")
	}
	if conn, err := net.Dial("udp", "127.0.0.1:"+os.Getenv("HOST_UDP_PORT")); err != nil {
		fmt.Println("BLOCKED udp dial:", err)
	} else if _, err := conn.Write([]byte("x")); err != nil {
		fmt.Println("BLOCKED udp write:", err)
	} else {
		fmt.Println("INFO udp datagram sent (the runner checks its listener received nothing)")
	}
	if conn, err := net.Dial("unix", "@"+os.Getenv("HOST_ABSTRACT")); err != nil {
		fmt.Println("BLOCKED abstract unix dial:", err)
	} else {
		conn.Close()
		fmt.Println("LEAKED connected to the host's abstract socket")
	}
	if addresses, err := net.LookupHost("example.com"); err != nil {
		fmt.Println("BLOCKED dns:", err)
	} else {
		fmt.Println("LEAKED resolved example.com to", addresses)
	}
}
