// expect-outcome: memory_limit
// limits: {"memory_mb": 128, "wall_time_s": 10}
// why: grows vectors of touched memory without bound; the memory cgroup (OOM kill) or RLIMIT_DATA/AS (Rust aborts on the failed allocation) stops it near memory_mb, and the outcome says memory_limit.
fn main() {
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    loop {
        blocks.push(vec![1u8; 16 << 20]);
        std::hint::black_box(&blocks); // -O may not drop the touched memory
    }
}
