"""Every thread the library starts is listed in docs/architecture.md ("Event loops and threads"), and no other
appears: statically (each source line in src/ that starts a thread is in a file the table names, and each file
the table names still starts one) and in a real process (its threads counted through /proc/self/task around the
Python module's calls that start them: executions cold and warm, a batch, sessions, a resident compiler).

The counts run in a fresh interpreter each: the test process itself may hold threads of earlier tests (a keeper
from their sessions, zygotes), and "the keeper's thread appears with the first session" needs a process that has
had none. Nothing here is timed; a thread that ends asynchronously is waited for as a condition, with a bound."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO / "docs" / "architecture.md"

# What starts a thread in C++: a std::thread or std::jthread made or declared (not std::thread::hardware_concurrency),
# an Asio thread pool, a POSIX thread, std::async (which may start one), and an Asio resolve (its io_context's first
# starts Asio's resolver thread, which runs getaddrinfo).
THREAD_START = re.compile(r"\bstd::j?thread\b(?!::)|\bthread_pool\b|\bpthread_create\b|\bstd::async\b|\bboost::thread\b"
                          r"|\basync_resolve\b")

# How long a thread that ends after the call that ended its work may take to go: a bound against a hang, never a
# timing assertion.
SETTLE_S = 60.0


def threads_table() -> dict:
    """The table of threads in docs/architecture.md: {path named in its "where" column: its "threads" cell}."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Event loops and threads", 1)[1].split("\n## ", 1)[0]
    rows, in_table = {}, False
    for line in section.splitlines():
        if line.startswith("| where | threads |"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        if in_table and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip("|").split(" | ")]
            path = re.match(r"`(src/[^`]+)`", cells[0])
            assert path, f"a row of the threads table names no file under src/: {line}"
            rows[path.group(1)] = cells[1]
    assert rows, "docs/architecture.md has no table of threads (a '| where | threads | what | why |' table)"
    return rows


def stem(path: str) -> str:
    """A source and its header are one place: engine.hpp declares the thread that engine.cpp starts."""
    return re.sub(r"\.(cpp|hpp|h)$", "", path)


def code_of(line: str) -> str:
    """The line without its comment, and nothing of an #include."""
    if line.lstrip().startswith("#"):
        return ""
    return line.split("//", 1)[0]


def thread_starts() -> dict:
    """{file: [its lines that start a thread]} over the C++ sources of src/ and include/."""
    found = {}
    for path in sorted([*REPO.glob("src/**/*.[ch]pp"), *REPO.glob("src/**/*.h"), *REPO.glob("include/**/*.hpp")]):
        relative = path.relative_to(REPO).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if THREAD_START.search(code_of(line)):
                found.setdefault(relative, []).append(f"{relative}:{number}: {line.strip()}")
    return found


def test_every_source_line_that_starts_a_thread_is_in_a_file_the_table_names():
    listed = {stem(path) for path in threads_table()}
    starts = thread_starts()
    assert len(starts) >= 5, f"only {sorted(starts)} start threads: is the pattern still right?"
    unlisted = [line for path, lines in starts.items() if stem(path) not in listed for line in lines]
    assert not unlisted, ("threads started in files docs/architecture.md's table of threads does not name "
                          "(add a row: where, how many, what, why):\n" + "\n".join(unlisted))


def test_every_file_the_table_names_still_starts_a_thread():
    starting = {stem(path) for path in thread_starts()}
    for path in threads_table():
        assert (REPO / path).exists(), f"docs/architecture.md's table of threads names {path}, which does not exist"
    stale = [path for path in threads_table() if stem(path) not in starting]
    assert not stale, f"docs/architecture.md lists threads in files that start none now: {stale}"


def test_the_pattern_sees_each_way_of_starting_a_thread_and_nothing_else():
    for line in ("std::thread([this] { serve(); })", "std::jthread worker(f);", "boost::asio::thread_pool mover_{1};",
                 "::pthread_create(&id, nullptr, run, arg);", "auto done = std::async(std::launch::async, f);",
                 "std::vector<std::thread> threads;", "co_await resolver.async_resolve(host, port, token);"):
        assert THREAD_START.search(code_of(line)), line
    for line in ("std::max(1u, std::thread::hardware_concurrency())", "#include <thread>",
                 "#include <boost/asio/thread_pool.hpp>", "x = 1;  // one std::thread per call", "std::this_thread::yield();"):
        assert not THREAD_START.search(code_of(line)), line


# The rows these counts rely on, and what each says of its threads: the test fails when a row changes its count
# without the counts here changing with it.
ROWS = {
    "src/local/session_keeper.cpp": "1 per process",
    "src/local/session_pool.cpp": "1 per session pool",
    "src/local/deferred_reap.cpp": "1 per process",
    "src/local/zygote.hpp": "1 per live warm-pool zygote, started at its first standby move (cgroup v2 only",
    "src/local/resident_compiler.cpp": "up to `resident_pool_size()`",
}


def test_the_rows_the_counts_rely_on_say_what_the_counts_expect():
    table = threads_table()
    for path, count in ROWS.items():
        assert path in table, f"docs/architecture.md's table of threads has no row for {path}"
        assert table[path].startswith(count), f"{path}: the table says {table[path]!r}, the counts below expect {count!r}"


# The child: each step prints {"step", "threads", ...}; expectations are checked by the test, except where a
# thread ends asynchronously (then the child waits for the count it is told, up to SETTLE_S, and reports it).
CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    import e2beval
    from e2beval import Sandbox

    def threads():
        return len(os.listdir("/proc/self/task"))

    def report(step, **extra):
        print(json.dumps({"step": step, "threads": threads(), **extra}), flush=True)

    def settle(target, bound):
        deadline = time.monotonic() + bound
        while threads() != target and time.monotonic() < deadline:
            time.sleep(0.01)

    e2beval.rules()  # loads the compiled core
    report("loaded")
    assert e2beval.execute("print(1)", pool=False)["stdout"] == "1\\n"
    report("cold execute")
    assert e2beval.execute("print(2)", pool=False)["stdout"] == "2\\n"
    report("second cold execute")
    child = os.fork()
    if child == 0:  # the parent's reaper thread does not exist here: the child's first reap starts its own
        stdout = e2beval.execute("print(7)", pool=False)["stdout"]
        report("cold execute in a forked child")
        sys.exit(0 if stdout == "7\\n" else 1)  # a normal exit: the child's reaper is joined (atexit)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    report("forked child ended")
    e2beval.warm_up(2)
    report("warm up", zygotes=len(e2beval.pool_info()))
    assert e2beval.execute("print(3)")["stdout"] == "3\\n"
    report("warm execute", zygotes=len(e2beval.pool_info()))
    verdicts = e2beval.evaluate_many([("```python\\nprint(%d)\\n```" % n, {"expectedOutput": str(n)}) for n in range(4)],
                                     jobs=4)
    assert all(verdict["pass"] for verdict in verdicts), verdicts
    report("evaluate", zygotes=len(e2beval.pool_info()))
    sandbox = Sandbox.create(timeout=120)
    assert sandbox.run_code("print(4)").logs.stdout == ["4\\n"]
    report("first session", zygotes=len(e2beval.pool_info()))
    sandbox.kill()
    with Sandbox.create(timeout=120) as sandbox:
        assert sandbox.commands.run("echo 5").stdout == "5\\n"
    report("second session", zygotes=len(e2beval.pool_info()))
    before = threads()
    result = e2beval.execute("public class Main { public static void main(String[] a) { System.out.println(6); } }",
                             language="java")
    assert result["stdout"] == "6\\n", result
    report("java compile", zygotes=len(e2beval.pool_info()), services=len(e2beval.resident_compilers()))
    e2beval.end_resident_compilers()
    settle(before, float(sys.argv[1]))
    report("resident compilers ended", zygotes=len(e2beval.pool_info()), services=len(e2beval.resident_compilers()))
    """
)


def cgroup_v2_sandboxes():
    """Whether this host's sandboxes get v2 cgroups (e2beval doctor, asked in a process of its own: it runs sandboxes,
    which would start the counted process's reaper early)."""
    asked = subprocess.run([sys.executable, "-c", "import e2beval, json; print(json.dumps(e2beval.doctor()['checks']))"],
                           capture_output=True, text=True, timeout=300)
    assert asked.returncode == 0, asked.stderr
    cgroups = next(check for check in json.loads(asked.stdout) if check["mechanism"] == "cgroups")
    return cgroups["ok"] and cgroups["status"].startswith("v2")


@pytest.mark.exclusive  # it counts the sandboxes of a warm pool and a session pool, and compiles with a JVM
def test_the_threads_of_a_real_process_are_the_ones_the_table_allows(tmp_path):
    environment = dict(os.environ, E2BEVAL_COMPILE_CACHE_BYTES="0", E2BEVAL_RESIDENT_COMPILERS="1",
                       E2BEVAL_SESSION_POOL="1")
    script = tmp_path / "threads_child.py"
    script.write_text(CHILD, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script), str(SETTLE_S)], capture_output=True, text=True,
                         env=environment, timeout=600)
    assert run.returncode == 0, f"the child failed:\n{run.stdout}\n{run.stderr}"
    steps = {}
    for line in run.stdout.splitlines():
        record = json.loads(line)
        steps[record.pop("step")] = record
    base = steps["loaded"]["threads"]
    described = "\n".join(f"  {step}: {record}" for step, record in steps.items())

    def expect(step, count, why):
        assert steps[step]["threads"] == count, f"after {step}: {steps[step]['threads']} threads, {count} expected ({why}):\n{described}"

    assert base == 1, f"loading the core started threads:\n{described}"
    expect("cold execute", base + 1, "the deferred reaper")
    expect("second cold execute", base + 1, "the same reaper: none per execution")
    expect("cold execute in a forked child", base + 1, "the child's own reaper (fork copies only the calling thread)")
    expect("forked child ended", base + 1, "the parent's reaper, untouched by the child's exit")
    zygotes = steps["warm up"]["zygotes"]
    assert zygotes == 2, described
    # A zygote's mover thread exists only where the supervisor moves standbys (cgroup v2); on v1 they join alone.
    movers_per_zygote = 1 if cgroup_v2_sandboxes() else 0

    def movers(step):
        return movers_per_zygote * steps[step]["zygotes"]

    expect("warm up", base + 1 + movers("warm up"), "the reaper, and one mover per zygote on cgroup v2")
    expect("warm execute", base + 1 + movers("warm execute"), "none per warm execution")
    expect("evaluate", base + 1 + movers("evaluate"), "a batch runs on the calling thread")
    expect("first session", base + 1 + movers("first session") + 2, "the keeper and the session pool's filler")
    expect("second session", base + 1 + movers("second session") + 2, "none per session")
    services = steps["java compile"]["services"]
    assert services == 1, described
    expect("java compile", base + 1 + movers("java compile") + 2 + services, "one worker per resident service")
    assert steps["resident compilers ended"]["services"] == 0, described
    expect("resident compilers ended", base + 1 + movers("resident compilers ended") + 2, "their workers ended")
