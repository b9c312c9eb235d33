// expect-outcome: compile_error
// why: include_str!("/etc/shadow") reads a host file into the program at compile time; rustc runs in the sandbox, whose /etc has no shadow, so the compile fails and the runner finds no line of the host's shadow in any output.
const SHADOW: &str = include_str!("/etc/shadow");
fn main() {
    println!("LEAKED {}", SHADOW);
}
