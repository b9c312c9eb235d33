// JavaScript (Node.js) and bash programs in the real local sandbox: the same isolation, limits and outcomes
// as Python. Each test runs both languages (warm and cold suites alike: only Python uses the pool).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "local/cgroup.hpp"
#include "local/interpreters.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_polyglot {

using namespace e2beval;
using namespace std::chrono_literals;

namespace {

LocalSandbox& sandbox() { return testing::test_sandbox(); }

ExecResult run(Language language, const std::string& code, Limits limits = {}, std::string stdin_data = {},
               std::map<std::string, std::string> env = {}) {
    ExecRequest request;
    request.language = language;
    request.code = code;
    request.limits = limits;
    request.stdin_data = std::move(stdin_data);
    request.env = std::move(env);
    return sandbox().execute(request);
}

ExecResult js(const std::string& code, Limits limits = {}) { return run(Language::javascript, code, limits); }
ExecResult sh(const std::string& code, Limits limits = {}) { return run(Language::bash, code, limits); }

std::string describe(const ExecResult& result) {
    return std::string(to_string(result.outcome)) + " (" + result.detail + ")\nstdout: " + result.stdout_data.substr(0, 500) +
           "\nstderr: " + result.stderr_data.substr(0, 1500);
}

// Runs `argv` as uid/gid 65534 with `input` on stdin; returns (wait status, stdout). An unprivileged
// e2beval gets no writable cgroup, so this exercises the rlimit-only path in a fresh process.
std::pair<int, std::string> run_as_nobody(const std::vector<std::string>& arguments, const std::vector<std::string>& environment,
                                          const std::string& input) {
    std::vector<char*> argv, envp;
    for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
    envp.push_back(nullptr);
    int to_child[2], from_child[2];
    REQUIRE(::pipe2(to_child, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(from_child, O_CLOEXEC) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {  // only async-signal-safe calls until execve
        const gid_t group = 65534;
        if (::dup2(to_child[0], 0) < 0 || ::dup2(from_child[1], 1) < 0 || ::chdir("/") != 0 || ::setgroups(1, &group) != 0 ||
            ::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
            ::_exit(126);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    for (std::size_t written = 0; written < input.size();) {
        const ssize_t n = ::write(to_child[1], input.data() + written, input.size() - written);
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
    }
    ::close(to_child[1]);
    std::string output;
    char buffer[4096];
    for (ssize_t n; (n = ::read(from_child[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        output.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(from_child[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return {status, output};
}

}  // namespace

TEST_SUITE("polyglot") {

TEST_CASE("JavaScript and bash programs run: output, exit status, no denied calls, never from the pool") {
    const auto hello = js("console.log('hello from', typeof process.versions.node);\nconsole.error('to stderr');\n");
    CHECK_MESSAGE(hello.outcome == Outcome::ok, describe(hello));
    CHECK(hello.stdout_data == "hello from string\n");
    CHECK(hello.stderr_data == "to stderr\n");
    CHECK(hello.exit_code == 0);
    CHECK_FALSE(hello.warm);
    // libuv must not try io_uring (which seccomp denies): a plain program reports no denied calls.
    CHECK(hello.denied_syscalls.empty());
    CHECK(hello.detail.empty());
    // Nor does kill mode end every Node at start-up.
    ExecRequest strict;
    strict.language = Language::javascript;
    strict.code = "console.log(require('os').cpus().length > 0);\n";
    strict.isolation.seccomp = SeccompMode::kill;
    const auto killed = sandbox().execute(strict);
    CHECK_MESSAGE(killed.outcome == Outcome::ok, describe(killed));
    CHECK(killed.stdout_data == "true\n");

    const auto exits = js("console.log('partial');\nprocess.exitCode = 3;\n");
    CHECK(exits.outcome == Outcome::exit_nonzero);
    CHECK(exits.exit_code == 3);
    CHECK(exits.stdout_data == "partial\n");

    const auto bash = sh("echo \"hello from $0\"\necho 'to stderr' >&2\nexit 4\n");
    CHECK_MESSAGE(bash.outcome == Outcome::exit_nonzero, describe(bash));
    CHECK(bash.exit_code == 4);
    CHECK(bash.stdout_data == "hello from /tmp/main.sh\n");
    CHECK(bash.stderr_data == "to stderr\n");
    CHECK(bash.denied_syscalls.empty());
    CHECK_FALSE(bash.warm);

    // Not a login shell, nothing special set: no profile was read, errexit is off.
    const auto shell = sh("false\n[[ $- == *e* ]] && echo errexit || echo no-errexit\n"
                          "shopt -q login_shell && echo login || echo not-login\n");
    CHECK(shell.outcome == Outcome::ok);
    CHECK(shell.stdout_data == "no-errexit\nnot-login\n");
}

TEST_CASE("stdin reaches JavaScript and bash programs") {
    const auto node = run(Language::javascript, "const text = require('fs').readFileSync(0, 'utf8');\nconsole.log(text.toUpperCase());\n",
                          {}, "abc\ndef");
    CHECK_MESSAGE(node.outcome == Outcome::ok, describe(node));
    CHECK(node.stdout_data == "ABC\nDEF\n");

    const auto bash = run(Language::bash, "while read -r line; do echo \"got $line\"; done\n", {}, "one\ntwo\n");
    CHECK(bash.outcome == Outcome::ok);
    CHECK(bash.stdout_data == "got one\ngot two\n");
}

TEST_CASE("an uncaught JavaScript exception is exit_nonzero with the error and main.js in stderr") {
    const auto result = js("function f() {\n  throw new TypeError('boom');\n}\nf();\n");
    CHECK_MESSAGE(result.outcome == Outcome::exit_nonzero, describe(result));
    CHECK(result.exit_code == 1);
    CHECK(result.stderr_data.find("TypeError: boom") != std::string::npos);
    CHECK(result.stderr_data.find("/tmp/main.js:2") != std::string::npos);

    const auto rejected = js("Promise.reject(new Error('async boom'));\n");
    CHECK(rejected.outcome == Outcome::exit_nonzero);
    CHECK(rejected.stderr_data.find("async boom") != std::string::npos);

    const auto syntax = js("let = = 1;\n");
    CHECK(syntax.outcome == Outcome::exit_nonzero);
    CHECK(syntax.stderr_data.find("SyntaxError") != std::string::npos);

    const auto missing = sh("no_such_command_here\n");
    CHECK(missing.outcome == Outcome::exit_nonzero);
    CHECK(missing.exit_code == 127);
    CHECK(missing.stderr_data.find("no_such_command_here: command not found") != std::string::npos);
}

TEST_CASE("JavaScript and bash infinite loops end at the wall-clock timeout") {
    Limits limits;
    limits.wall_time = 1s;
    limits.cpu_time = 30s;
    for (const auto& result : {js("while (true) {}\n", limits), sh("while :; do :; done\n", limits),
                               js("setInterval(() => {}, 1000);\n", limits), sh("sleep 60\n", limits)}) {
        CHECK_MESSAGE(result.outcome == Outcome::timeout, describe(result));
        CHECK(result.detail.find("wall-clock") != std::string::npos);
    }
}

TEST_CASE("JavaScript and bash memory hogs end with memory_limit") {
    Limits limits;
    limits.memory_bytes = 128 * kMiB;
    limits.wall_time = 30s;
    limits.cpu_time = 30s;
    // Objects on the V8 heap, Buffers outside it, and a bash string doubling.
    for (const auto& result : {js("const a = [];\nwhile (true) a.push(new Array(1e6).fill(1.5));\n", limits),
                               js("const a = [];\nwhile (true) a.push({x: Math.random(), y: [1, 2, 3]});\n", limits),
                               js("const a = [];\nwhile (true) a.push(Buffer.alloc(8 << 20, 1));\n", limits),
                               sh("s=xxxxxxxxxxxxxxxx\nwhile :; do s=\"$s$s\"; done\n", limits)}) {
        CHECK_MESSAGE(result.outcome == Outcome::memory_limit, describe(result));
        if (result.peak_memory_bytes) CHECK(*result.peak_memory_bytes <= 200 * kMiB);
    }
}

TEST_CASE("without a cgroup JavaScript and bash memory hogs still end with memory_limit (rlimits, V8's heap limit)") {
    if (local::cgroup_support().version == local::CgroupSupport::Version::none) {
        // This process already runs without cgroups: the memory-hog test above covered the rlimit path.
        CHECK(js("console.log(1)").cgroup_version == "none");
        return;
    }
    if (::geteuid() != 0) {
        MESSAGE("cgroups are in use and this test cannot drop privileges to run without them; skipped");
        return;
    }
    // A fresh e2beval process as an unprivileged user finds no writable cgroup.
    const auto cli = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "e2beval";
    if (!std::filesystem::exists(cli)) {
        MESSAGE("no e2beval CLI next to the test binary (" << cli.string() << "); skipped");
        return;
    }
    const auto node = local::discover_node(local::configured_node({}));
    const std::vector<std::pair<std::string, std::string>> hogs = {
        {"javascript", "const a = [];\nwhile (true) a.push(new Array(1e6).fill(1.5));\n"},
        {"javascript", "const a = [];\nwhile (true) a.push(Buffer.alloc(8 << 20, 1));\n"},
        {"bash", "s=xxxxxxxxxxxxxxxx\nwhile :; do s=\"$s$s\"; done\n"},
    };
    for (const auto& [language, code] : hogs) {
        CAPTURE(code);
        const auto [status, output] = run_as_nobody(
            {cli.string(), "run", "--language", language, "--memory", "128", "--timeout", "30", "--cpu", "30", "--json", "-"},
            {"PATH=/usr/bin:/bin", "E2BEVAL_PYTHON=/usr/bin/python3", "E2BEVAL_NODE=" + node.executable}, code);
        REQUIRE_MESSAGE(WIFEXITED(status), "status " << status);
        boost::system::error_code ec;
        const auto parsed = boost::json::parse(output, ec);
        REQUIRE_MESSAGE(!ec, "exit " << WEXITSTATUS(status) << ", output: " << output);
        const auto& result = parsed.as_object();
        if (result.at("outcome") == "sandbox_error") {
            MESSAGE("an unprivileged e2beval cannot build a sandbox here: " << boost::json::serialize(result.at("detail")) << "; skipped");
            return;
        }
        CHECK(result.at("cgroup_version") == "none");
        CHECK_MESSAGE(result.at("outcome") == "memory_limit", output.substr(0, 2000));
        CHECK(WEXITSTATUS(status) == 124);  // `e2beval run`: a limit was hit
    }
}

TEST_CASE("JavaScript and bash output floods are capped and the program is stopped") {
    for (const auto& result : {js("const chunk = 'x'.repeat(1 << 20);\nfor (let i = 0; i < 100; i++) process.stdout.write(chunk);\n"),
                               sh("yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n")}) {
        CHECK_MESSAGE(result.outcome == Outcome::output_limit, describe(result));
        CHECK(result.stdout_truncated);
        CHECK(result.stdout_data.size() == Limits{}.output_bytes);
    }
}

TEST_CASE("a bash fork bomb is contained and nothing of it survives on the host") {
    const auto token = testing::unique_token();
    Limits limits;
    limits.max_processes = 16;
    limits.wall_time = 8s;
    // Every level also starts a sleeper named after the token, so survivors would show on the host. The
    // main shell forks its own sleeper first, then counts the sandbox's processes with builtins only.
    const auto result = sh("bomb() { (exec -a " + token + " sleep 30) & bomb | bomb & }\n"
                           "sleep 2 & sleeper=$!\n"
                           "bomb 2>/dev/null &\n"
                           "wait $sleeper\n"
                           "procs=(/proc/[0-9]*)\n"
                           "echo \"processes ${#procs[@]}\"\n",
                           limits);
    CHECK_MESSAGE((result.outcome == Outcome::ok || result.outcome == Outcome::pids_limit || result.outcome == Outcome::timeout ||
                   result.outcome == Outcome::exit_nonzero),
                  describe(result));
    if (result.outcome == Outcome::ok) {
        const auto count = std::stoi(result.stdout_data.substr(result.stdout_data.find(' ') + 1));
        CHECK(count <= static_cast<int>(limits.max_processes) + 1);  // + the sandbox's init
    }
    CHECK(testing::processes_with(token) == 0);

    // Node: spawning children until it cannot is a pids_limit, not a crash.
    Limits few;
    few.max_processes = 8;
    const auto spawner = js("const { spawn, execSync } = require('child_process');\n"
                            "for (let i = 0; i < 20; i++) spawn('/bin/sleep', ['5']);\n"
                            "execSync('/bin/sleep 5');\n",
                            few);
    CHECK_MESSAGE(spawner.outcome == Outcome::pids_limit, describe(spawner));
}

TEST_CASE("JavaScript and bash cannot connect to a port listening on the host's 127.0.0.1") {
    const testing::LoopbackListener listener;
    const auto port = listener.port();
    const auto node = js("const socket = require('net').connect(" + port + ", '127.0.0.1');\n"
                         "socket.on('connect', () => { console.log('connected'); socket.destroy(); });\n"
                         "socket.on('error', (error) => console.log('refused', error.code));\n");
    CHECK_MESSAGE(node.outcome == Outcome::ok, describe(node));
    CHECK(node.stdout_data.rfind("refused", 0) == 0);

    const auto bash = sh("if exec 3<>/dev/tcp/127.0.0.1/" + port + "; then echo connected; else echo refused; fi\n");
    CHECK_MESSAGE(bash.outcome == Outcome::ok, describe(bash));
    CHECK(bash.stdout_data == "refused\n");
}

TEST_CASE("JavaScript and bash see none of the host's files and can write only the workspace") {
    const auto node = js(
        "const fs = require('fs');\n"
        "for (const path of ['/etc/shadow', '/root/.ssh', '/work/main/src', '/work/shared', '/home'])\n"
        "  console.log(path, fs.existsSync(path));\n"
        "for (const path of ['/usr/evil', '/evil', '/etc/evil']) {\n"
        "  try { fs.writeFileSync(path, 'x'); console.log(path, 'written'); } catch (error) { console.log(path, 'denied'); }\n"
        "}\n"
        "fs.writeFileSync('ok.txt', 'fine');\n"
        "console.log(process.cwd(), fs.readFileSync('ok.txt', 'utf8'), process.getuid());\n");
    CHECK_MESSAGE(node.outcome == Outcome::ok, describe(node));
    CHECK(node.stdout_data ==
          "/etc/shadow false\n/root/.ssh false\n/work/main/src false\n/work/shared false\n/home false\n"
          "/usr/evil denied\n/evil denied\n/etc/evil denied\n/tmp fine 1000\n");

    const auto bash = sh(
        "for path in /etc/shadow /root/.ssh /work/main/src /work/shared /home; do\n"
        "  if [ -e \"$path\" ]; then echo \"$path visible\"; else echo \"$path absent\"; fi\n"
        "done\n"
        "for path in /usr/evil /evil /etc/evil; do\n"
        "  if echo x 2>/dev/null > \"$path\"; then echo \"$path written\"; else echo \"$path denied\"; fi\n"
        "done\n"
        "echo fine > ok.txt\necho \"$PWD $(cat ok.txt) $(id -u)\"\n");
    CHECK_MESSAGE(bash.outcome == Outcome::ok, describe(bash));
    CHECK(bash.stdout_data ==
          "/etc/shadow absent\n/root/.ssh absent\n/work/main/src absent\n/work/shared absent\n/home absent\n"
          "/usr/evil denied\n/evil denied\n/etc/evil denied\n/tmp fine 1000\n");
}

TEST_CASE("the host's environment reaches neither JavaScript nor bash; the request's env does") {
    ::setenv("E2B_API_KEY", "e2b_secret_from_the_host", 1);
    const auto node = run(Language::javascript, "console.log(process.env.E2B_API_KEY, process.env.GREETING);\n"
                                                "console.log(Object.keys(process.env).sort().join(','));\n",
                          {}, {}, {{"GREETING", "hello"}});
    const auto bash = run(Language::bash, "echo \"${E2B_API_KEY:-unset} $GREETING\"\nenv\n", {}, {}, {{"GREETING", "hello"}});
    ::unsetenv("E2B_API_KEY");
    CHECK_MESSAGE(node.outcome == Outcome::ok, describe(node));
    CHECK(node.stdout_data.rfind("undefined hello\n", 0) == 0);
    CHECK(node.stdout_data.find("e2b_secret") == std::string::npos);
    CHECK(bash.outcome == Outcome::ok);
    CHECK(bash.stdout_data.rfind("unset hello\n", 0) == 0);
    CHECK(bash.stdout_data.find("e2b_secret") == std::string::npos);
}

TEST_CASE("JavaScript can run child processes inside the sandbox") {
    const auto result = js("const { execSync } = require('child_process');\n"
                           "process.stdout.write(execSync('echo $((6 * 7)); id -u', { encoding: 'utf8' }));\n");
    CHECK_MESSAGE(result.outcome == Outcome::ok, describe(result));
    CHECK(result.stdout_data == "42\n1000\n");
}

TEST_CASE("bad JavaScript and bash requests and a missing Node.js give clear errors") {
    CHECK_THROWS_AS(js(std::string("console.log(1)\0", 15)), input_error);
    CHECK_THROWS_AS(sh(std::string("echo 1\0", 7)), input_error);

    LocalSandboxOptions options;
    options.pool.enabled = false;
    options.node_executable = "/nonexistent/node";
    LocalSandbox without_node(options);
    ExecRequest request;
    request.language = Language::javascript;
    request.code = "console.log(1)";
    try {
        without_node.execute(request);
        FAIL("a missing node must be refused");
    } catch (const sandbox_error& failure) {
        const std::string what = failure.what();
        CHECK(what.find("/nonexistent/node") != std::string::npos);
        CHECK(what.find("E2BEVAL_NODE") != std::string::npos);
    }
    // Python still runs in that sandbox.
    request.language = Language::python;
    request.code = "print(1)";
    CHECK(without_node.execute(request).stdout_data == "1\n");
}

}  // TEST_SUITE

TEST_CASE("a loader that cannot map the interpreter for lack of memory reports the memory limit, in every language") {
    // What ld.so prints when the address-space limit is below what the interpreter's libraries need.
    const std::string loader = "/usr/bin/python3.11: error while loading shared libraries: libpython3.11.so.1.0: failed to "
                               "map segment from shared object\n";
    for (const auto language : {Language::python, Language::javascript, Language::bash}) {
        CHECK(local::stderr_reports_limit(language, local::LimitKind::memory, loader));
        CHECK_FALSE(local::stderr_reports_limit(language, local::LimitKind::processes, loader));
    }
    CHECK_FALSE(local::stderr_reports_limit(Language::python, local::LimitKind::memory, "ValueError: bad segment\n"));
}

}  // namespace e2beval_test_polyglot
