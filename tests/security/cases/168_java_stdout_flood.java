// expect-outcome: output_limit
// limits: {"output_bytes": 65536, "wall_time_s": 10}
// why: prints to stdout forever; the supervisor caps the collected stdout at output_bytes, kills the JVM and says output_limit.
public class Main {
    public static void main(String[] args) {
        String line = "J".repeat(1023);
        for (;;) System.out.println(line);
    }
}
