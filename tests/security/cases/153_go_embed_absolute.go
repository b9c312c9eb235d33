// expect-outcome: compile_error
// why: //go:embed of host files (/etc/shadow, by an absolute pattern, which go refuses; the sandbox shows the compiler no host file either way); the compile fails and the runner finds no line of the host's shadow in any output.
package main

import (
	_ "embed"
	"fmt"
)

//go:embed /etc/shadow
var shadow string

func main() {
	fmt.Println("LEAKED", shadow)
}
