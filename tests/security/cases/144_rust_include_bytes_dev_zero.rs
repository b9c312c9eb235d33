// expect-outcome: compile_memory_limit|compile_timeout|compile_error
// compile-limits: {"memory_mb": 256, "wall_time_s": 20}
// why: include_bytes!("/dev/zero") asks rustc to read an endless file; the compile stage's memory and time limits stop it (or rustc refuses a file that is not regular), and nothing is left running.
const ZEROS: &[u8] = include_bytes!("/dev/zero");
fn main() {
    println!("{}", ZEROS.len());
}
