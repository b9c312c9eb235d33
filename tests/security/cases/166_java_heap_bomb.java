// expect-outcome: memory_limit
// limits: {"memory_mb": 256, "wall_time_s": 15, "cpu_time_s": 15}
// why: fills the Java heap with touched arrays without bound; the JVM's maximum heap (set from the memory limit) ends it with OutOfMemoryError, or the memory cgroup kills it, and the outcome says memory_limit.
import java.util.ArrayList;
import java.util.Arrays;

public class Main {
    public static void main(String[] args) {
        ArrayList<long[]> blocks = new ArrayList<>();
        for (;;) {
            long[] block = new long[2 << 20];
            Arrays.fill(block, 1L);
            blocks.add(block);
        }
    }
}
