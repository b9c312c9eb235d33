// expect-outcome: compile_timeout|compile_error
// compile-limits: {"wall_time_s": 4, "cpu_time_s": 4}
// why: a constant expression that takes billions of steps, each loop below the compiler's per-loop limit; the compile stage's time limits must end g++ (or g++ gives up at its own operation limit), and nothing is left running.
constexpr long spin() {
    long total = 0;
    for (long i = 0; i < 200000; ++i)
        for (long j = 0; j < 200000; ++j) total += (i ^ j) & 1;
    return total;
}
constexpr long value = spin();
int main() { return value == 0; }
