// expect-outcome: ok
// limits: {"wall_time_s": 10}
// why: ProcessBuilder starts a shell that ignores SIGHUP and SIGTERM and sleeps 60 s with TOKEN in its argv, and the JVM exits without waiting (System.exit); the pid namespace's end kills it, and the runner finds no host process with TOKEN.
public class Main {
    public static void main(String[] args) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", "trap '' HUP TERM; sleep 60", System.getenv("TOKEN"));
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process daemon = builder.start();
        System.out.println("INFO daemon started " + daemon.pid());
        System.exit(0);
    }
}
