// expect-outcome: memory_limit|signaled
// limits: {"memory_mb": 128, "wall_time_s": 10}
// why: grows vectors of touched memory without bound; the memory cgroup (OOM kill: memory_limit) or RLIMIT_DATA/AS (Rust's allocation-failure handler aborts: signaled) stops it near memory_mb.
fn main() {
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    loop {
        blocks.push(vec![1u8; 16 << 20]);
        std::hint::black_box(&blocks); // -O may not drop the touched memory
    }
}
