// Compiled languages in the local sandbox (src/local/compile_stage.cpp): each language's compile and run stages,
// compile errors, limits and the compile cache, and that the compiler sees only the sandbox.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2b/one_shot.hpp"
#include "local/compile_stage.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_compile_stage {

using namespace e2beval;
using namespace std::chrono_literals;

namespace {

ExecResult run(Language language, const std::string& code, const std::string& stdin_data = {},
               std::optional<Limits> compile_limits = std::nullopt) {
    ExecRequest request;
    request.language = language;
    request.code = code;
    request.stdin_data = stdin_data;
    request.compile_limits = compile_limits;
    return testing::test_sandbox().execute(request);
}

// TypeScript's compiler comes from npm (tools/typescript, or E2BEVAL_TSC); the other toolchains from Debian's
// packages, which the test command installs.
bool typescript_available() {
    if (const char* tsc = std::getenv("E2BEVAL_TSC"); tsc && *tsc) return true;
    return std::filesystem::exists(std::string(E2BEVAL_SOURCE_DIR) + "/tools/typescript/node_modules/typescript/lib/tsc.js") ||
           ::access("/usr/bin/tsc", X_OK) == 0 || ::access("/usr/local/bin/tsc", X_OK) == 0;
}

struct Sample {
    Language language;
    const char* hello;       // prints "hello"
    const char* echo;        // copies stdin to stdout
    const char* broken;      // does not compile
    const char* failing;     // compiles, then fails at run time (non-zero exit)
};

const Sample kSamples[] = {
    {Language::c, "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
     "#include <stdio.h>\nint main(void) { int c; while ((c = getchar()) != EOF) putchar(c); return 0; }\n",
     "int main(void) { return undefined_name; }\n", "int main(void) { return 3; }\n"},
    {Language::cpp, "#include <iostream>\nint main() { std::cout << \"hello\" << std::endl; }\n",
     "#include <iostream>\n#include <string>\nint main() { std::string line; while (std::getline(std::cin, line)) std::cout << line << '\\n'; }\n",
     "int main() { undefined_name(); }\n", "#include <stdexcept>\nint main() { throw std::runtime_error(\"boom\"); }\n"},
    {Language::go, "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
     "package main\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() { io.Copy(os.Stdout, os.Stdin) }\n",
     "package main\n\nfunc main() { undefinedName() }\n", "package main\n\nfunc main() { panic(\"boom\") }\n"},
    {Language::rust, "fn main() { println!(\"hello\"); }\n",
     "use std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap(); print!(\"{}\", s); }\n",
     "fn main() { undefined_name(); }\n", "fn main() { panic!(\"boom\"); }\n"},
    {Language::java, "public class Hello { public static void main(String[] args) { System.out.println(\"hello\"); } }\n",
     "import java.io.*;\nclass Problem {\n  public static void main(String[] a) throws IOException {\n    BufferedReader r = new BufferedReader(new InputStreamReader(System.in));\n"
     "    String line; while ((line = r.readLine()) != null) System.out.println(line);\n  }\n}\n",
     "public class Main { public static void main(String[] args) { undefinedName(); } }\n",
     "public class Main { public static void main(String[] args) { throw new RuntimeException(\"boom\"); } }\n"},
    {Language::typescript, "const greeting: string = \"hello\";\nconsole.log(greeting);\n",
     "declare var require: any;\ndeclare var process: any;  // no @types/node: as in MultiPL-E's tests\nconst data: string = require('fs').readFileSync(0, 'utf8');\nprocess.stdout.write(data);\n",
     "const n: number = \"not a number\";\nconsole.log(n);\n", "throw new Error(\"boom\");\n"},
};

}  // namespace

TEST_CASE("each compiled language compiles in a sandbox, then runs: hello, stdin, a compile error, a runtime failure") {
    for (const auto& sample : kSamples) {
        const auto& language = describe(sample.language);
        CAPTURE(language.name);
        if (sample.language == Language::typescript && !typescript_available()) {
            // The test command installs every toolchain and says so (E2BEVAL_REQUIRE_TOOLCHAINS=1): there, a
            // missing tsc is a defect of the set-up. Elsewhere (a developer's ctest) it is a visible skip.
            const char* required = std::getenv("E2BEVAL_REQUIRE_TOOLCHAINS");
            if (required && std::string_view(required) == "1")
                FAIL_CHECK("TypeScript cannot be tested: no tsc (tools/typescript or E2BEVAL_TSC), and E2BEVAL_REQUIRE_TOOLCHAINS=1 "
                           "(scripts/test.sh) requires every toolchain; run scripts/setup.sh --tests, which installs it");
            else
                MESSAGE("SKIPPED: TypeScript not tested: no tsc (tools/typescript or E2BEVAL_TSC); scripts/setup.sh --tests installs "
                        "it (under scripts/test.sh, E2BEVAL_REQUIRE_TOOLCHAINS=1 makes this a failure)");
            continue;
        }
        const auto hello = run(sample.language, sample.hello);
        CAPTURE(hello.detail);
        CAPTURE(hello.stderr_data);
        REQUIRE(hello.compile.has_value());
        CAPTURE(hello.compile->stderr_data);
        CHECK(hello.compile->outcome == Outcome::ok);
        CHECK_FALSE(hello.compile->toolchain.empty());
        CHECK(hello.outcome == Outcome::ok);
        CHECK(hello.stdout_data == "hello\n");

        const auto echo = run(sample.language, sample.echo, "one\ntwo\n");
        CAPTURE(echo.detail);
        CAPTURE(echo.stderr_data);
        CHECK(echo.outcome == Outcome::ok);
        CHECK(echo.stdout_data == "one\ntwo\n");

        const auto broken = run(sample.language, sample.broken);
        CHECK(broken.outcome == Outcome::compile_error);
        REQUIRE(broken.compile.has_value());
        CHECK(broken.compile->outcome == Outcome::compile_error);
        CHECK(broken.compile->exit_code != 0);
        CHECK(broken.stdout_data.empty());  // the program never ran
        // The verdict's reason quotes the compiler's first error, which names the undefined thing.
        CHECK(broken.detail.starts_with("compile error: "));
        const bool names_it = broken.detail.find("undefined") != std::string::npos || broken.detail.find("Undefined") != std::string::npos ||
                              broken.detail.find("TS2322") != std::string::npos || broken.detail.find("cannot find symbol") != std::string::npos;
        CHECK_MESSAGE(names_it, broken.detail);

        const auto failing = run(sample.language, sample.failing);
        CAPTURE(failing.stderr_data);
        CHECK(failing.compile->outcome == Outcome::ok);
        CHECK((failing.outcome == Outcome::exit_nonzero || failing.outcome == Outcome::signaled));
        CHECK(failing.exit_code != 0);
    }
}

TEST_CASE("the same program compiles once: the second execution takes the compile cache") {
    const auto code = "#include <stdio.h>\nint main(void) { puts(\"" + testing::unique_token() + "\"); return 0; }\n";
    const auto first = run(Language::c, code);
    REQUIRE(first.compile.has_value());
    CHECK(first.outcome == Outcome::ok);
    CHECK_FALSE(first.compile->cached);
    const auto second = run(Language::c, code);
    REQUIRE(second.compile.has_value());
    CHECK(second.outcome == Outcome::ok);
    CHECK(second.compile->cached);
    CHECK(second.stdout_data == first.stdout_data);
    // A compile error is the program's own: cached too, with its diagnostics.
    const auto broken = "int main(void) { return " + testing::unique_token().substr(0, 0) + "missing_" +
                        std::to_string(::getpid()) + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "; }\n";
    const auto error = run(Language::c, broken);
    CHECK(error.outcome == Outcome::compile_error);
    CHECK_FALSE(error.compile->cached);
    const auto again = run(Language::c, broken);
    CHECK(again.outcome == Outcome::compile_error);
    CHECK(again.compile->cached);
    CHECK(again.detail == error.detail);
}

TEST_CASE("a compile that runs out of time is compile_timeout, and is not cached") {
    // 2^24 distinct instantiations: minutes of compiling.
    const std::string code =
        "template <int N, unsigned long long K> struct A { static constexpr int v = A<N - 1, 2 * K>::v + A<N - 1, 2 * K + 1>::v; };\n"
        "template <unsigned long long K> struct A<0, K> { static constexpr int v = 1; };\n"
        "int main() { return A<24, " + std::to_string(::getpid()) + ">::v; }\n";
    Limits limits = describe(Language::cpp).compile_limits;
    limits.wall_time = 1s;
    const auto result = run(Language::cpp, code, {}, limits);
    CHECK(result.outcome == Outcome::compile_timeout);
    REQUIRE(result.compile.has_value());
    CHECK(result.compile->outcome == Outcome::compile_timeout);
    CHECK(result.detail.find("compile stage") != std::string::npos);
    const auto again = run(Language::cpp, code, {}, limits);
    CHECK_FALSE(again.compile->cached);
}

TEST_CASE("the compiler sees only the sandbox: an #include or include_str! of a host file fails to compile") {
    // A file only the host has, in a directory the sandbox never mounts.
    const auto directory = std::filesystem::path(E2BEVAL_SOURCE_DIR) / "build" / ("include-probe-" + testing::unique_token());
    std::filesystem::create_directories(directory);
    const auto secret = testing::unique_token();
    std::ofstream(directory / "secret.h") << "#error " << secret << "\n";
    for (const auto& include : {(directory / "secret.h").string(), std::string("/etc/shadow")}) {
        CAPTURE(include);
        const auto result = run(Language::cpp, "#include \"" + include + "\"\nint main() {}\n");
        CHECK(result.outcome == Outcome::compile_error);
        REQUIRE(result.compile.has_value());
        CHECK(result.compile->stderr_data.find("No such file") != std::string::npos);
        CHECK(result.compile->stderr_data.find(secret) == std::string::npos);
    }
    // Rust reads files at compile time too: include_str! of the same file finds nothing.
    const auto rust = run(Language::rust, "const S: &str = include_str!(\"" + (directory / "secret.h").string() +
                                              "\");\nfn main() { println!(\"{}\", S); }\n");
    CHECK(rust.outcome == Outcome::compile_error);
    REQUIRE(rust.compile.has_value());
    CHECK(rust.compile->stderr_data.find("No such file") != std::string::npos);
    CHECK(rust.compile->stderr_data.find(secret) == std::string::npos);
    CHECK(rust.stdout_data.find(secret) == std::string::npos);
    std::filesystem::remove_all(directory);
}

TEST_CASE("collected paths leave the sandbox only as regular files beneath the workspace") {
    ExecRequest request;
    request.code =
        "import os\n"
        "open('plain.txt', 'w').write('data')\n"
        "os.symlink('/etc/passwd', 'link')\n"
        "os.mkfifo('fifo')\n"
        "os.mkdir('dir')\n"
        "open('dir/a.txt', 'w').write('a')\n"
        "os.symlink('/etc/hosts', 'dir/b.txt')\n";
    request.collect = {"plain.txt", "link", "fifo", "missing", "dir/"};
    const auto result = testing::test_sandbox().execute(request);
    REQUIRE(result.outcome == Outcome::ok);
    REQUIRE(result.collected.size() == 2);
    CHECK(result.collected[0].path == "plain.txt");
    CHECK(result.collected[0].data == "data");
    CHECK(result.collected[1].path == "dir/a.txt");
    CHECK(result.collected[1].data == "a");
    request.collect = {"../etc/passwd"};
    CHECK_THROWS_AS(testing::test_sandbox().execute(request), input_error);
}

TEST_CASE("workspace files reach the program with their modes") {
    ExecRequest request;
    request.code = "import os\nprint(open('data/in.txt').read(), oct(os.stat('run.sh').st_mode & 0o777))\n";
    request.files = {{"data/in.txt", "payload", 0644}, {"run.sh", "#!/bin/sh\n", 0755}};
    const auto result = testing::test_sandbox().execute(request);
    CAPTURE(result.stderr_data);
    CHECK(result.outcome == Outcome::ok);
    CHECK(result.stdout_data == "payload 0o755\n");
}

TEST_CASE("a compiled language's first error line is found in each compiler's words") {
    using local::first_compiler_error;
    CHECK(first_compiler_error("main.cpp: In function 'int main()':\nmain.cpp:1:14: error: 'x' was not declared\n    1 | x\n", "") ==
          "main.cpp:1:14: error: 'x' was not declared");
    CHECK(first_compiler_error("# command-line-arguments\n./main.go:3:15: undefined: x\n", "") == "./main.go:3:15: undefined: x");
    CHECK(first_compiler_error("", "main.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n") ==
          "main.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.");
    CHECK(first_compiler_error("error[E0425]: cannot find function `x` in this scope\n --> main.rs:1:13\n", "") ==
          "error[E0425]: cannot find function `x` in this scope");
}

TEST_CASE("the e2b backend refuses a compiled language, naming the local one") {
    CHECK_THROWS_WITH_AS(e2b::check_language_runs_on_e2b(Language::cpp), doctest::Contains("local"), input_error);
    CHECK_NOTHROW(e2b::check_language_runs_on_e2b(Language::python));
}

}  // namespace e2beval_test_compile_stage
