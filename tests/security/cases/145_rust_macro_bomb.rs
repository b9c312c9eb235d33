// expect-outcome: compile_memory_limit|compile_timeout|compile_error
// compile-limits: {"memory_mb": 256, "wall_time_s": 20}
// why: a macro that doubles its input at every step of its recursion (2^128 tokens before rustc's recursion limit); the compile stage's memory and time limits stop rustc, and nothing is left running.
macro_rules! double {
    ($($t:tt)*) => { double!($($t)* $($t)*) };
}
fn main() {
    double!(x);
}
