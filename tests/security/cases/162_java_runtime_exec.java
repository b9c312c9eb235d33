// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: Runtime.exec runs a shell that reads host secrets (/etc/shadow, the runner's canary, init's environment) and tries bash's /dev/tcp to the runner's listener; the child shares the sandbox's namespaces and seccomp filter, so it finds and reaches nothing.
import java.io.*;

public class Main {
    public static void main(String[] args) throws Exception {
        String script = "cat /etc/shadow '" + System.getenv("CANARY_PATH") + "' 2>/dev/null; "
                + "tr '\\0' '\\n' </proc/1/environ 2>/dev/null | grep E2B_API_KEY; "
                + "(echo x >/dev/tcp/127.0.0.1/" + System.getenv("HOST_PORT") + ") 2>/dev/null && echo connected";
        Process process;
        try {
            process = Runtime.getRuntime().exec(new String[] {"/bin/bash", "-c", script});
        } catch (IOException error) {
            System.out.println("BLOCKED the shell did not start: " + error.getMessage());
            return;
        }
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream()));
        int lines = 0;
        for (String line; (line = reader.readLine()) != null; ++lines) System.out.println("LEAKED " + line);
        process.waitFor();
        if (lines == 0) System.out.println("BLOCKED the shell found no host secret and no network");
    }
}
