// e2beval's resident Java compile service (docs/sandbox.md, "Resident compilers"). It runs inside a compile
// sandbox like a cold `javac` (same namespaces, seccomp filter, rlimits, cgroup, read-only JDK, the tmpfs
// workspace /tmp its only writable place and its working directory) and keeps javac's classes loaded and
// compiled by the JIT across compiles, which is what a cold javac spends most of its time on.
//
// Compile-only: it calls javac through javax.tools with the arguments the host sends, which are the cold
// compile's (with -proc:none: no annotation processor, no plugin, nothing of the program runs here).
//
// Protocol on stdin/stdout: a message is a 4-byte big-endian count of fields, then each field as a 4-byte
// big-endian length and its bytes.
//   ready (once, at start):  ["ready"]
//   request:  [arguments joined by NUL, then per workspace file: relative path, octal mode, bytes]
//   reply:    [status, stdout, stderr, then per artifact: relative path, bytes]
// status is "exit N" (javac's exit status), "oom" (the JVM ran out of memory: the host kills this service and
// compiles cold), or "error TEXT" (this service failed; the host does the same). Each request's files are written
// into the workspace itself, so the compiler sees the same relative paths as a cold compile and its diagnostics
// name the same files; the workspace is emptied after each request (the requests of one service are serial).
//
// Started as `java [the cold javac's -J flags] ResidentJavac.java ARTIFACT OUTPUT_CAP` (the source-file
// launcher); it deletes its own source first, so the workspace starts empty.
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public class ResidentJavac {
    private static final Path WORKSPACE = Paths.get("").toAbsolutePath();

    // An output stream that keeps at most `cap` bytes and remembers that more came.
    static final class CappedOutput extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final int cap;
        CappedOutput(int cap) { this.cap = cap; }
        @Override public void write(int b) { if (kept.size() < cap + 1) kept.write(b); }
        @Override public void write(byte[] b, int off, int len) {
            final int room = Math.max(0, cap + 1 - kept.size());
            kept.write(b, off, Math.min(len, room));
        }
        byte[] bytes() { return kept.toByteArray(); }
    }

    static List<byte[]> readMessage(DataInputStream in) throws IOException {
        final int count;
        try {
            count = in.readInt();
        } catch (EOFException end) {
            return null;  // the host closed stdin: stop
        }
        if (count < 0 || count > 100000) throw new IOException("bad field count " + count);
        final List<byte[]> fields = new ArrayList<>(count);
        for (int i = 0; i < count; ++i) {
            final int length = in.readInt();
            if (length < 0) throw new IOException("bad field length " + length);
            final byte[] field = new byte[length];
            in.readFully(field);
            fields.add(field);
        }
        return fields;
    }

    static void writeMessage(DataOutputStream out, List<byte[]> fields) throws IOException {
        out.writeInt(fields.size());
        for (final byte[] field : fields) {
            out.writeInt(field.length);
            out.write(field);
        }
        out.flush();
    }

    static byte[] text(String value) { return value.getBytes(StandardCharsets.UTF_8); }

    // A relative path that stays inside the workspace, or an IOException.
    static Path inside(String relative) throws IOException {
        final Path path = WORKSPACE.resolve(relative).normalize();
        if (!path.startsWith(WORKSPACE) || path.equals(WORKSPACE)) throw new IOException("path outside the workspace: " + relative);
        return path;
    }

    static Set<PosixFilePermission> permissions(int mode) {
        final Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        final PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < order.length; ++bit)
            if ((mode & (1 << bit)) != 0) set.add(order[bit]);
        return set;
    }

    static void emptyWorkspace() throws IOException {
        try (Stream<Path> entries = Files.list(WORKSPACE)) {
            for (final Path entry : (Iterable<Path>) entries::iterator) {
                try (Stream<Path> tree = Files.walk(entry)) {
                    for (final Path path : (Iterable<Path>) tree.sorted(Comparator.reverseOrder())::iterator)
                        Files.deleteIfExists(path);
                }
            }
        }
    }

    static List<byte[]> compile(JavaCompiler javac, List<byte[]> request, String artifact, int outputCap) throws IOException {
        final String[] arguments = new String(request.get(0), StandardCharsets.UTF_8).split("\0", -1);
        emptyWorkspace();
        for (int i = 1; i + 2 < request.size(); i += 3) {
            final Path path = inside(new String(request.get(i), StandardCharsets.UTF_8));
            Files.createDirectories(path.getParent());
            Files.write(path, request.get(i + 2));
            Files.setPosixFilePermissions(path, permissions(Integer.parseInt(new String(request.get(i + 1), StandardCharsets.UTF_8), 8)));
        }
        // javac -d needs its directory, as the cold compile's workspace has it.
        if (artifact.endsWith("/")) Files.createDirectories(inside(artifact));
        final CappedOutput stdout = new CappedOutput(outputCap);
        final CappedOutput stderr = new CappedOutput(outputCap);
        final int status = javac.run(null, stdout, stderr, arguments);
        final List<byte[]> reply = new ArrayList<>();
        reply.add(text("exit " + status));
        reply.add(stdout.bytes());
        reply.add(stderr.bytes());
        final Path artifactPath = inside(artifact);
        // What a cold compile's init brings out of classes/: its regular files, one level, at most 512 (a class in
        // a package, one level deeper, is left behind there too).
        if (status == 0 && Files.isDirectory(artifactPath, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> tree = Files.list(artifactPath)) {
                int taken = 0;
                for (final Path path : (Iterable<Path>) tree.sorted()::iterator) {
                    if (!Files.isRegularFile(path, java.nio.file.LinkOption.NOFOLLOW_LINKS) || taken++ >= 512) continue;
                    reply.add(text(WORKSPACE.relativize(path).toString()));
                    reply.add(Files.readAllBytes(path));
                }
            }
        }
        emptyWorkspace();
        return reply;
    }

    public static void main(String[] args) throws Exception {
        final String artifact = args[0];
        final int outputCap = Integer.parseInt(args[1]);
        Files.deleteIfExists(WORKSPACE.resolve("ResidentJavac.java"));
        final DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        // Nothing but replies may reach stdout.
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            writeMessage(out, List.of(text("error this JDK has no system Java compiler (javax.tools)")));
            return;
        }
        writeMessage(out, List.of(text("ready")));
        for (;;) {
            final List<byte[]> request = readMessage(in);
            if (request == null || request.isEmpty()) return;
            List<byte[]> reply;
            try {
                reply = compile(javac, request, artifact, outputCap);
            } catch (OutOfMemoryError exhausted) {
                reply = null;
                writeMessage(out, List.of(text("oom")));
                System.exit(3);
            } catch (Throwable failure) {
                reply = List.of(text("error " + failure));
            }
            writeMessage(out, reply);
        }
    }
}
