// expect-outcome: ok|pids_limit|memory_limit|exit_nonzero
// forbid-stdout: LEAKED
// limits: {"max_processes": 64, "wall_time_s": 15}
// why: starts 10000 sleeping Java threads (each a native thread with its own stack); RLIMIT_NPROC and the pids cgroup refuse them near max_processes (OutOfMemoryError: unable to create native thread), and nothing is left running.
public class Main {
    public static void main(String[] args) throws Exception {
        int started = 0;
        try {
            for (; started < 10000; ++started) {
                Thread thread = new Thread(() -> {
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException ignored) {
                    }
                });
                thread.setDaemon(true);
                thread.start();
            }
            System.out.println("LEAKED started 10000 threads");
        } catch (Throwable error) {
            System.out.println("BLOCKED thread " + started + " not created: " + error);
        }
        System.exit(0);
    }
}
