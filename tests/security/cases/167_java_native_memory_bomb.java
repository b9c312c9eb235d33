// expect-outcome: memory_limit
// limits: {"memory_mb": 256, "wall_time_s": 15, "cpu_time_s": 15}
// why: allocates native memory outside the Java heap (sun.misc.Unsafe.allocateMemory, touched) without bound, which no -Xmx limits; the memory cgroup (OOM kill) or RLIMIT_DATA (the JVM's native allocation fails) stops it, and the outcome says memory_limit.
import java.lang.reflect.Field;

public class Main {
    public static void main(String[] args) throws Exception {
        Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        field.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) field.get(null);
        long block = 16L << 20;
        for (long total = 0;; total += block) {
            long address = unsafe.allocateMemory(block);
            unsafe.setMemory(address, block, (byte) 1);
            if (total > (8L << 30)) System.out.println("LEAKED allocated 8 GiB of native memory");
        }
    }
}
