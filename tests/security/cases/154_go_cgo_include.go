// expect-outcome: compile_error
// why: cgo would run the C compiler on this file's preamble, which includes /etc/shadow and asks the linker for host flags; the compile stage builds with cgo off (and in the sandbox's view), so the build fails and no host file is read.
package main

// #cgo LDFLAGS: -Wl,--version
// #include "/etc/shadow"
import "C"

import "fmt"

func main() {
	fmt.Println("LEAKED cgo ran")
}
