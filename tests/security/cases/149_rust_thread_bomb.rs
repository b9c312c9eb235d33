// expect-outcome: ok|pids_limit|memory_limit|exit_nonzero|signaled
// forbid-stdout: LEAKED
// limits: {"max_processes": 64, "wall_time_s": 10}
// why: spawns 10000 sleeping threads with std::thread::Builder (an error, not a panic, when the kernel refuses); RLIMIT_NPROC and the pids cgroup stop thread creation near max_processes. A thread's start may also find the memory cgroup full first: glibc then aborts the process ("failed to register TLS destructor: out of memory", SIGABRT, CI run K), contained all the same; what must never happen is LEAKED.
use std::thread;
use std::time::Duration;

fn main() {
    let mut handles = Vec::new();
    for started in 0..10000 {
        match thread::Builder::new().spawn(|| thread::sleep(Duration::from_secs(2))) {
            Ok(handle) => handles.push(handle),
            Err(error) => {
                println!("BLOCKED thread {} not created: {}", started, error);
                break;
            }
        }
    }
    if handles.len() >= 10000 {
        println!("LEAKED started 10000 threads");
    }
    for handle in handles {
        let _ = handle.join();
    }
}
