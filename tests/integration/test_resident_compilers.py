"""The resident compile services for Java and TypeScript (docs/sandbox.md, "Resident compilers"): the same
programs give the same verdict, first error and run output with them on and off (E2BEVAL_RESIDENT_COMPILERS);
a compile that does not end in time is compile_timeout, its service is replaced and the next compile works;
a compile-time read of a host path sees only the sandbox; and nothing is left behind when the process ends.

The compile cache is off in these tests (E2BEVAL_COMPILE_CACHE_BYTES=0): every compile reaches a compiler."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

e2beval = pytest.importorskip("e2beval")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "security"))
from host_evidence import make_canary, processes_with  # noqa: E402
from support.waiting import until  # noqa: E402

SERVICES = {"java": "ResidentJavac.java", "typescript": "resident_tsc.js"}


@pytest.fixture(autouse=True)
def compile_cache_off(monkeypatch):
    monkeypatch.setenv("E2BEVAL_COMPILE_CACHE_BYTES", "0")
    if not os.environ.get("E2BEVAL_JAVA_CLASSPATH"):
        jar = ROOT / "tools" / "java" / "javatuples-1.2.jar"
        assert jar.exists(), "javatuples is missing: run `bash scripts/setup.sh --tests` (it installs the toolchains)"
        monkeypatch.setenv("E2BEVAL_JAVA_CLASSPATH", str(jar))


def descends_from_us(pid: int) -> bool:
    while pid > 1:
        if pid == os.getpid():
            return True
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return False
        pid = int(fields[1])
    return False


def service_pids(language: str) -> set:
    """This process's live services of `language` (the pid of the process running the service's program)."""
    found = set()
    for line in processes_with([SERVICES[language]]):
        pid = int(line.split()[1].rstrip(":"))
        if descends_from_us(pid):
            found.add(pid)
    return found


def execute(code, language, resident, **options):
    os.environ["E2BEVAL_RESIDENT_COMPILERS"] = "1" if resident else "0"
    try:
        return e2beval.execute(code, language=language, **options)
    finally:
        os.environ.pop("E2BEVAL_RESIDENT_COMPILERS", None)


def essentials(result):
    compile_stage = result["compile"]
    return {"outcome": result["outcome"], "stdout": result["stdout"], "exit_code": result["exit_code"],
            "compile_outcome": compile_stage["outcome"], "compile_detail": compile_stage["detail"],
            "compiler_stdout": compile_stage["stdout"], "compiler_stderr": compile_stage["stderr"],
            "compile_exit": compile_stage["exit_code"], "detail": result["detail"]}


PROGRAMS = {
    "java ok": ("java", 'public class Main { public static void main(String[] a) { System.out.println("sum " + (2 + 3)); } }\n'),
    "java compile error": ("java", 'public class Main {\n  public static void main(String[] a) {\n    int x = "s";\n  }\n}\n'),
    "java two errors": ("java", 'class Main {\n  public static void main(String[] a) {\n    undefined();\n    String s = 1;\n  }\n}\n'),
    "java public class not named Main": (
        "java", 'import java.util.*;\npublic class Problem {\n  public static void main(String[] a) {\n'
                '    System.out.println(new ArrayList<>(List.of(3, 1, 2)));\n  }\n}\n'),
    "java javatuples": (
        "java", 'import org.javatuples.Pair;\nclass Main {\n  public static void main(String[] a) {\n'
                '    System.out.println(Pair.with(1, "one"));\n  }\n}\n'),
    "typescript ok": ("typescript", 'function add(a: number, b: number): number { return a + b; }\nconsole.log(add(2, 3));\n'),
    "typescript type error": ("typescript", 'const x: number = "s";\nconsole.log(x);\n'),
    # A script's global that the standard library declares too: the service checks the library again.
    "typescript global clash": ("typescript", 'const name = 5;\nconsole.log(name);\n'),
    "typescript module": ("typescript", 'export function f(xs: number[]): number { return xs.reduce((a, b) => a + b, 0); }\n'
                                        'console.log(f([1, 2, 3]));\n'),
    "typescript reference to /etc/shadow": ("typescript", '/// <reference path="/etc/shadow" />\nconsole.log(1);\n'),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_same_verdict_with_and_without_the_resident_service(name):
    language, code = PROGRAMS[name]
    resident = execute(code, language, True)
    assert service_pids(language), f"no resident {language} service of this process after a compile"
    cold = execute(code, language, False)
    assert essentials(resident) == essentials(cold)
    assert resident["compile"]["peak_memory_bytes"] is None and cold["compile"]["peak_memory_bytes"] is not None


def test_the_resident_outcomes_are_the_expected_ones():
    outcomes = {name: execute(code, language, True) for name, (language, code) in PROGRAMS.items()}
    assert outcomes["java ok"]["stdout"] == "sum 5\n"
    assert outcomes["java javatuples"]["stdout"] == "[1, one]\n"
    assert outcomes["java public class not named Main"]["stdout"] == "[3, 1, 2]\n"
    assert outcomes["java compile error"]["compile"]["detail"] == "Main.java:3: error: incompatible types: String cannot be converted to int"
    assert outcomes["typescript ok"]["stdout"] == "5\n"
    assert outcomes["typescript module"]["stdout"] == "6\n"
    assert outcomes["typescript type error"]["compile"]["detail"] == "main.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'."
    assert outcomes["typescript global clash"]["outcome"] == "compile_error"
    assert "TS2451" in outcomes["typescript global clash"]["compile"]["detail"]
    assert outcomes["typescript reference to /etc/shadow"]["compile"]["detail"].startswith("main.ts(1,22): error TS6231")


def test_a_compile_time_read_of_a_host_file_sees_only_the_sandbox():
    path, text = make_canary("resident-")
    try:
        declaration = Path(path).with_suffix(".ts")
        Path(path).rename(declaration)
        code = f'/// <reference path="{declaration}" />\nconsole.log(typeof leaked);\n'
        declaration.write_text(f'declare const leaked: "{text}";\nconst broken: number = "{text}";\n')
        resident = execute(code, "typescript", True)
        cold = execute(code, "typescript", False)
        assert essentials(resident) == essentials(cold)
        assert resident["outcome"] == "compile_error"
        assert text not in repr(resident) and text not in repr(cold)
    finally:
        for leftover in (path, str(Path(path).with_suffix(".ts"))):
            if os.path.exists(leftover):
                os.unlink(leftover)


HUGE = {
    "java": "class Main {\n" + "".join(f"  static int m{i}(int x) {{ return x * {i} + m{max(i - 1, 0)}(x - 1); }}\n" for i in range(60000))
            + "  public static void main(String[] a) { System.out.println(m1(1)); }\n}\n",
    "typescript": "".join(f"function f{i}(x: number): number {{ return x * {i} + f{max(i - 1, 0)}(x - 1); }}\n" for i in range(60000))
                  + "console.log(f1(1));\n",
}
SMALL = {"java": PROGRAMS["java ok"][1], "typescript": PROGRAMS["typescript ok"][1]}


@pytest.mark.parametrize("language", ["java", "typescript"])
def test_a_compile_past_its_limit_is_compile_timeout_and_the_service_is_replaced(language):
    execute(SMALL[language], language, True)
    before = service_pids(language)
    assert before
    # 60,000 functions for a compile limit of one second: the compiler is nowhere near done when it is killed.
    result = execute(HUGE[language], language, True, compile_timeout=1)
    assert result["outcome"] == "compile_timeout", result["detail"]
    assert result["compile"]["detail"].startswith("the compiler was killed after the compile stage's 1 s wall-clock limit")
    cold = execute(HUGE[language], language, False, compile_timeout=1)
    assert (cold["outcome"], cold["compile"]["detail"]) == (result["outcome"], result["compile"]["detail"])
    # The service that compiled it was killed (any other one of the pool may live on).
    assert len(service_pids(language) & before) < len(before), "the service whose compile ran out of time is still alive"
    after = execute(SMALL[language], language, True)
    assert after["outcome"] == "ok" and after["stdout"] == {"java": "sum 5\n", "typescript": "5\n"}[language]
    assert service_pids(language) - before


def cgroups_of(pid: int) -> list:
    prefix = f"e2beval-{pid}-"
    found = []
    for top, directories, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(top, name) for name in directories if name.startswith(prefix)]
        if top.count("/") > 6:
            directories.clear()
    return found


def process_identity(pid: int):
    """(pid, start time) while the process lives, else None: a pid the kernel reuses is another process."""
    try:
        return pid, Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def test_nothing_is_left_when_the_process_ends():
    # The child names its own services (their inits, host pids): other processes' services, a parallel test
    # worker's among them, are none of this test's business.
    script = (
        "import e2beval, json, os\n"
        f"for language, code in {list(SMALL.items())!r}:\n"
        "    assert e2beval.execute(code, language=language)['outcome'] == 'ok'\n"
        "services = [s['pid'] for s in e2beval.resident_compilers()]\n"
        "print(json.dumps({'pid': os.getpid(), 'services': services}), flush=True)\n"
        "import sys; sys.stdin.readline()\n")  # exits once the test has seen its services alive
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "E2BEVAL_RESIDENT_COMPILERS": "1"})
    first_line = child.stdout.readline()
    report = json.loads(first_line)
    services = [identity for identity in map(process_identity, report["services"]) if identity]
    assert len(report["services"]) >= 2 and len(services) == len(report["services"]), report  # alive before the exit
    _, errors = child.communicate("exit\n", timeout=600)
    assert child.returncode == 0, errors
    # Services end soon after their owner (docs/sandbox.md); wait for that, boundedly.
    left = lambda: ([identity for identity in services if process_identity(identity[0]) == identity]  # noqa: E731
                    + cgroups_of(report["pid"]))
    until(lambda: not left(), "the resident compilers' services and cgroups ending with their owner", detail=left)
