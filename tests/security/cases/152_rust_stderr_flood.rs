// expect-outcome: output_limit
// limits: {"output_bytes": 65536, "wall_time_s": 5}
// why: writes stderr forever (unbuffered in Rust); the supervisor caps the collected stderr at output_bytes, kills the program and says output_limit.
fn main() {
    let line = "E".repeat(1023);
    loop {
        eprintln!("{}", line);
    }
}
