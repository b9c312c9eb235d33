// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: a Java program reads host secrets at run time: /etc/shadow, the runner's canary in the host's /tmp, init's environment, the repository checkout, the E2B_API_KEY environment variable; the mount namespace shows none and the environment is scrubbed.
import java.nio.file.*;

public class Main {
    static void attempt(String path) {
        try {
            String text = new String(Files.readAllBytes(Paths.get(path))).replace('\0', ' ');
            if (path.endsWith("environ") && !text.contains("E2B_API_KEY")) System.out.println("BLOCKED " + path + " holds no secret");
            else System.out.println("LEAKED " + path + ": " + text.substring(0, Math.min(120, text.length())));
        } catch (Exception error) {
            System.out.println("BLOCKED " + path + ": " + error);
        }
    }

    public static void main(String[] args) {
        attempt("/etc/shadow");
        attempt(System.getenv("CANARY_PATH"));
        attempt("/proc/1/environ");
        attempt("/work/main/CMakeLists.txt");
        System.out.println(System.getenv("E2B_API_KEY") == null ? "BLOCKED no E2B_API_KEY" : "LEAKED E2B_API_KEY");
    }
}
