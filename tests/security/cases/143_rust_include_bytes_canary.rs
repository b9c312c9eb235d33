// expect-outcome: compile_error
// why: include_bytes! of the runner's canary in the host's /tmp (its path written in place of the placeholder); the compiler sees the sandbox's own /tmp, so the compile fails and the canary's text appears nowhere.
const CANARY: &[u8] = include_bytes!("{{CANARY_PATH}}");
fn main() {
    println!("LEAKED {}", String::from_utf8_lossy(CANARY));
}
