"""The e2beval command-line tool end to end: real sandbox, real files, and every kind of bad input."""

import json
import os
import shutil
import subprocess
import tempfile

import pytest
import yaml
from _support import REPO, find_cli

CLI = find_cli()


def run(*args, cwd=None, stdin=None, env=None):
    return subprocess.run([CLI, *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=120)


def test_help_everywhere():
    overview = run("--help")
    assert overview.returncode == 0 and b"Commands:" in overview.stdout
    for command in ["run", "eval", "scan", "extract", "report"]:
        result = run(command, "--help")
        assert result.returncode == 0
        assert result.stdout.startswith(b"Usage: e2beval " + command.encode())


def test_usage_errors_are_clear_and_exit_2(tmp_path):
    unknown = run("run", "--frobnicate", "x.py")
    assert unknown.returncode == 2
    assert b"unknown option '--frobnicate'" in unknown.stderr and b"--help" in unknown.stderr
    assert run("bogus").returncode == 2
    missing = run("run", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and b"does not exist" in missing.stderr
    bad_number = run("run", "--timeout", "soon", str(tmp_path / "nope.py"))
    assert bad_number.returncode == 2 and b"positive number" in bad_number.stderr


def test_run_prints_output_and_exits_with_the_program_status(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(7)\n")
    result = run("run", str(program))
    assert result.returncode == 7
    assert result.stdout == b"out\n" and result.stderr == b"err\n"
    program.write_text("while True: pass\n")
    timed_out = run("run", "--timeout", "0.5", "--json", str(program))
    assert timed_out.returncode == 124
    assert json.loads(timed_out.stdout)["outcome"] == "timeout"
    stdin_file = tmp_path / "in.txt"
    stdin_file.write_text("piped")
    program.write_text("print(input()[::-1])")
    assert run("run", "--stdin", str(stdin_file), str(program)).stdout == b"depip\n"


def test_run_compiles_a_cpp_file_in_a_sandbox_and_shows_both_stages(tmp_path):
    program = tmp_path / "sum.cc"  # the language from the extension
    program.write_text("#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }\n")
    stdin_file = tmp_path / "in.txt"
    stdin_file.write_text("40 2\n")
    result = run("run", "--stdin", str(stdin_file), "--json", str(program))
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert (shown["language"], shown["outcome"], shown["stdout"]) == ("cpp", "ok", "42\n")
    assert shown["compile"]["outcome"] == "ok" and "g++" in shown["compile"]["toolchain"]
    # A compile error: the compiler's words on stderr, the outcome named, exit 124.
    program.write_text("int main() { return missing_name; }\n")
    broken = run("run", str(program))
    assert broken.returncode == 124
    assert b"e2beval: compile_error: compile error: main.cpp:1:21: error:" in broken.stderr
    assert b"missing_name" in broken.stderr
    # --language overrides the extension; a compile limit too small is its own outcome.
    program.write_text("fn main() { println!(\"rust\"); }\n")
    assert run("run", "--language", "rs", str(program)).stdout == b"rust\n"
    info = run("cache", "info", "--json")
    assert info.returncode == 0 and json.loads(info.stdout)["bound_bytes"] > 0


def test_run_rejects_invalid_utf8_and_nul(tmp_path):
    invalid = tmp_path / "bad.py"
    invalid.write_bytes(b"print('\xff')\n")
    result = run("run", str(invalid))
    assert result.returncode == 2 and b"not valid UTF-8" in result.stderr
    nul = tmp_path / "nul.py"
    nul.write_bytes(b"print(1)\x00\n")
    result = run("run", str(nul))
    assert result.returncode == 2 and b"NUL byte" in result.stderr


def test_extract_and_scan(tmp_path):
    answer = tmp_path / "answer.md"
    answer.write_text("Here you go:\n\n```py\ndef double(x):\n    return 2 * x\n```\n")
    extracted = run("extract", "--function", "double", str(answer))
    assert extracted.returncode == 0 and extracted.stdout == b"def double(x):\n    return 2 * x\n"
    as_json = json.loads(run("extract", "--json", str(answer)).stdout)
    assert as_json["method"] == "fenced_block" and as_json["language"] == "python"

    prose = tmp_path / "prose.md"
    prose.write_text("Sorry, I can't write that function.")
    nothing = run("extract", str(prose))
    assert nothing.returncode == 1 and b"no code found" in nothing.stderr
    empty = tmp_path / "empty.md"
    empty.write_text("")
    assert run("extract", str(empty)).returncode == 1

    code = tmp_path / "code.py"
    code.write_text("# os.system is mentioned only here\nimport socket\n")
    scanned = run("scan", str(code))
    assert scanned.returncode == 1
    assert f"{code}:2:8: block [import-socket]".encode() in scanned.stdout
    report = json.loads(run("scan", "--json", str(code)).stdout)
    assert report["blocked"] is True and [f["rule"] for f in report["findings"]] == ["import-socket"]


def tutorial_suite():
    """The promptfoo example's tests as an e2beval suite (same recorded answers, same vars)."""
    config = yaml.safe_load((REPO / "examples/promptfoo/promptfooconfig.yaml").read_text())
    tests = []
    for test in config["tests"]:
        test_vars = dict(test["vars"])
        tests.append({"id": test["description"], "output": test_vars.pop("completion"), "vars": test_vars})
    return tests


def test_eval_suite_table_metrics_and_report(tmp_path):
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": tutorial_suite()}))
    env = dict(os.environ, PROMPTFOO_RESULTS_DIR=str(tmp_path / "metrics"))
    result = run("eval", str(suite), cwd=tmp_path, env=env)
    assert result.returncode == 1, result.stderr  # two recorded answers are wrong or unsafe
    out = result.stdout.decode()
    assert "summary: 6 passed, 2 failed, 0 invalid" in out
    assert "FAIL    1.00" not in out
    assert "Expected olleh, got hello" in out and "Unsafe pattern detected" in out
    assert len(list((tmp_path / "metrics").glob("metrics_*.json"))) == 8
    assert (tmp_path / "promptfoo_report.md").read_text().startswith("| task | provider | model | success | runtime_s |")


def test_eval_keeps_good_results_when_an_entry_is_broken(tmp_path):
    good = tutorial_suite()[0]
    lines = [
        json.dumps(good),
        json.dumps({"id": "no-vars", "output": good["output"]}),
        "{not json",
        json.dumps({"id": "bad-vars", "output": good["output"], "vars": {"function_name": "factorial"}}),
    ]
    suite = tmp_path / "suite.jsonl"
    suite.write_text("\n".join(lines) + "\n")
    result = run("eval", "--json", "--no-metrics", str(suite), cwd=tmp_path)
    assert result.returncode == 2
    report = json.loads(result.stdout)
    assert [row["result"] for row in report["results"]] == ["PASS", "ERROR", "ERROR", "ERROR"]
    assert "missing field `vars`" in report["results"][1]["error"]
    assert "not valid JSON" in report["results"][2]["error"]
    assert "neither test_cases" in report["results"][3]["error"]
    assert report["results"][0]["verdict"]["reason"] == "Correct output: 120"


def test_eval_runs_every_entry_of_a_json_suite_when_one_holds_a_lone_surrogate(tmp_path):
    """Issue 38, row 5: json.dump writes a str holding a lone surrogate as the escape \\udcff, legal JSON; the entry
    that holds one is an ERROR row naming where, and every other test runs, in a .json suite as in .jsonl."""
    good = tutorial_suite()[0]
    broken_output = dict(good, id="broken-output", output=good["output"] + "\udcff")
    broken_vars = dict(good, id="broken-vars", vars=dict(good["vars"], expected_output="12\udcff"))
    for name, dump in (("suite.json", lambda tests: json.dumps({"tests": tests})),
                       ("suite.jsonl", lambda tests: "\n".join(json.dumps(test) for test in tests) + "\n")):
        suite = tmp_path / name
        suite.write_text(dump([good, broken_output, broken_vars, dict(good, id="last")]))
        assert "\\udcff" in suite.read_text()
        result = run("eval", "--json", "--no-metrics", str(suite), cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        rows = json.loads(result.stdout)["results"]
        assert [row["result"] for row in rows] == ["PASS", "ERROR", "ERROR", "PASS"], (name, rows)
        assert rows[1]["error"].startswith("`output` holds \\udcff, a lone surrogate"), rows[1]["error"]
        assert rows[2]["error"].startswith("`vars.expected_output` holds \\udcff, a lone surrogate"), rows[2]["error"]
        assert [row["id"] for row in rows] == [good["id"], "broken-output", "broken-vars", "last"]


def test_eval_and_report_bad_files(tmp_path):
    missing = run("eval", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and b"does not exist" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2")
    result = run("eval", str(broken))
    assert result.returncode == 2 and b"not valid JSON" in result.stderr
    no_metrics = run("report", "--results-dir", str(tmp_path / "nothing"))
    assert no_metrics.returncode == 2 and b"run an evaluation first" in no_metrics.stderr


def as_ordinary_user(*args):
    """Runs the CLI as an unprivileged user: nobody when we are root, else ourselves."""
    command = [CLI, *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if not setpriv:
            pytest.fail("setpriv (util-linux) is needed to test e2beval as an ordinary user")
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-i", "PATH=/usr/bin:/bin", *command]
    return subprocess.run(command, capture_output=True, timeout=120)


@pytest.fixture
def world_readable_program():
    directory = tempfile.mkdtemp(prefix="e2beval-cli-")
    os.chmod(directory, 0o755)
    path = os.path.join(directory, "p.py")
    with open(path, "w") as program:
        program.write("import os\nprint(os.getuid(), open('/proc/self/status').read().count('Seccomp:\\t2'))\n")
    os.chmod(path, 0o644)
    yield path
    shutil.rmtree(directory)


# The system Python (Debian's python3 package, installed by scripts/setup.sh): the project's own
# interpreter may live under /root, which an ordinary user cannot read.
SYSTEM_PYTHON = "/usr/bin/python3"


def test_doctor_prints_every_mechanism_and_the_level():
    result = run("doctor")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    for mechanism in ["kernel", "user namespaces", "seccomp", "cgroups", "sandbox probe"]:
        assert mechanism in out
    assert "isolation level enforced: " in out
    report = json.loads(run("doctor", "--json").stdout)
    assert report["enforced_level"] in ("full", "standard")
    assert all(check["ok"] or check["fix"] for check in report["checks"])


def test_sandbox_works_as_an_ordinary_user(world_readable_program):
    doctor = as_ordinary_user("doctor", "--python", SYSTEM_PYTHON)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert b"ok       sandbox probe" in doctor.stdout
    result = as_ordinary_user("run", "--python", SYSTEM_PYTHON, world_readable_program)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"1000 1\n"


def test_a_minimum_level_the_host_cannot_give_is_refused(world_readable_program):
    report = json.loads(as_ordinary_user("doctor", "--json", "--python", SYSTEM_PYTHON).stdout)
    cgroups = next(check for check in report["checks"] if check["mechanism"] == "cgroups")
    result = as_ordinary_user("run", "--min-isolation", "full", "--python", SYSTEM_PYTHON, world_readable_program)
    if cgroups["ok"]:
        assert result.returncode == 0
    else:
        assert result.returncode == 125
        assert b"isolation level 'full' needs cgroup limits" in result.stderr
        assert b"systemd-run" in result.stderr or b"mount the cgroup" in result.stderr
    assert as_ordinary_user("run", "--min-isolation", "standard", "--python", SYSTEM_PYTHON, world_readable_program).returncode == 0


def test_profile_file_and_isolation_flags(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("import ctypes\nprint('start', flush=True)\nctypes.CDLL(None).unshare(0x10000000)\nprint('end')\n")
    denied = json.loads(run("run", "--json", str(program)).stdout)
    assert denied["outcome"] == "ok" and denied["denied_syscalls"] == ["unshare"]
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"limits": {"wall_time_s": 3}, "isolation": {"seccomp": "kill"}}))
    killed = run("run", "--json", "--profile", str(profile), str(program))
    assert killed.returncode == 124
    assert json.loads(killed.stdout)["outcome"] == "seccomp_violation"
    profile.write_text(json.dumps({"isolation": {"network": "yes"}}))
    bad = run("run", "--profile", str(profile), str(program))
    assert bad.returncode == 2 and b"'network' must be true or false" in bad.stderr
    profile.write_text(json.dumps({"limits": {"walltime": 3}}))
    bad = run("run", "--profile", str(profile), str(program))
    assert bad.returncode == 2 and b"unknown limit 'walltime'" in bad.stderr


HUMANEVAL = REPO.parent / "shared" / "datasets" / "HumanEval.jsonl.gz"


def test_eval_humaneval_with_samples_and_jobs(tmp_path):
    if not HUMANEVAL.exists():
        pytest.fail(f"HumanEval not found at {HUMANEVAL}; the workplace's shared/datasets must be beside the repository")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        json.dumps({"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}) + "\n"
        + json.dumps({"task_id": "HumanEval/2", "completion": "    return 0.0\n"}) + "\n"
    )
    result = run("eval", "--humaneval", str(HUMANEVAL), "--samples", str(samples), "--jobs", "2", "--k", "1,2",
                 cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    out = result.stdout.decode()
    assert "1 tasks, 2 samples, 1 passed, 1 failed" in out
    assert "pass@1 = 0.5" in out and "pass@2 = 1" in out
    written = [json.loads(line) for line in (tmp_path / "samples.jsonl_results.jsonl").read_text().splitlines()]
    assert [row["passed"] for row in written] == [True, False]
    assert written[1]["result"] == "failed: AssertionError"
    bad = run("eval", "--humaneval", str(HUMANEVAL), "--k", "0", cwd=tmp_path)
    assert bad.returncode == 2 and b"--k expects positive whole numbers" in bad.stderr
    both = run("eval", "--humaneval", str(HUMANEVAL), "suite.json", cwd=tmp_path)
    assert both.returncode == 2 and b"not both" in both.stderr


TWO_TASKS = [
    {"task_id": "Tiny/0", "prompt": "def add(a, b):\n", "canonical_solution": "    return a + b\n",
     "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n", "entry_point": "add"},
    {"task_id": "Tiny/1", "prompt": "def neg(a):\n", "canonical_solution": "    return -a\n",
     "test": "def check(candidate):\n    assert candidate(4) == -4\n", "entry_point": "neg"},
]


def test_eval_humaneval_writes_metrics_and_the_report_as_for_suites(tmp_path):
    """Issue 38, row 6: --results-dir and --report apply to --humaneval as to a suite; options that cannot apply
    are refused by name instead of ignored."""
    dataset = tmp_path / "tiny.jsonl"
    dataset.write_text("".join(json.dumps(task) + "\n" for task in TWO_TASKS))
    samples = tmp_path / "model-x.jsonl"
    samples.write_text(json.dumps({"task_id": "Tiny/0", "completion": "    return a + b\n"}) + "\n" +
                       json.dumps({"task_id": "Tiny/0", "completion": "    return a - b\n"}) + "\n" +
                       json.dumps({"task_id": "Tiny/1", "completion": "    return -a\n"}) + "\n" +
                       json.dumps({"task_id": "Tiny/1", "completion": "    return -a\n"}) + "\n")
    result = run("eval", "--humaneval", str(dataset), "--samples", str(samples), "--k", "1,2",
                 "--results-dir", str(tmp_path / "D"), "--report", str(tmp_path / "R.md"), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    out = result.stdout.decode()
    assert "2 tasks, 4 samples, 3 passed, 1 failed" in out
    records = [json.loads(path.read_text()) for path in (tmp_path / "D").glob("metrics_*.json")]
    assert sorted((r["task_id"], r["success"]) for r in records) == [("Tiny/0", False), ("Tiny/0", True), ("Tiny/1", True),
                                                                     ("Tiny/1", True)]
    assert {(r["provider"], r["model"]) for r in records} == {("humaneval", "model-x")}
    assert len({r["run_id"] for r in records}) == 1
    failed = next(r for r in records if not r["success"])
    assert failed["extra"]["reason"] == "failed: AssertionError" and failed["extra"]["code"] == "    return a - b\n"
    assert "e2beval-humaneval-passed" not in "".join(r["extra"].get("stdout", "") for r in records)
    report_text = (tmp_path / "R.md").read_text()
    assert report_text.startswith("| task | provider | model | success | runtime_s |")
    assert "pass@1" in report_text and "3 of 4 passed" in report_text
    assert f"report: {tmp_path / 'R.md'} (4 rows of run " in out
    # The canonical solutions are the model "canonical_solution"; --no-metrics writes nothing.
    assert run("eval", "--humaneval", str(dataset), "--results-dir", str(tmp_path / "C"), cwd=tmp_path).returncode == 0
    assert {json.loads(p.read_text())["model"] for p in (tmp_path / "C").glob("*.json")} == {"canonical_solution"}
    assert run("eval", "--humaneval", str(dataset), "--no-metrics", "--results-dir", str(tmp_path / "N"),
               cwd=tmp_path).returncode == 0
    assert not (tmp_path / "N").exists()
    # The scanner's options do not apply: said, not ignored.
    refused = run("eval", "--humaneval", str(dataset), "--no-scan", "--policy", "strict", cwd=tmp_path)
    assert refused.returncode == 2
    assert b"--no-scan, --policy do not apply to --humaneval" in refused.stderr, refused.stderr


def test_scan_policy_options_and_rule_list(tmp_path):
    code = tmp_path / "c.py"
    code.write_text("import pickle\nx = eval('1 + 1')\n")
    assert run("scan", str(code)).returncode == 1
    assert run("scan", "--allow-module", "pickle", str(code)).returncode == 0
    denied = run("scan", "--allow-module", "pickle", "--deny-call", "eval", "--json", str(code))
    assert denied.returncode == 1 and "denied-call" in [f["rule"] for f in json.loads(denied.stdout)["findings"]]
    listing = run("scan", "--list-rules")
    assert listing.returncode == 0 and b"call-eval" in listing.stdout and b"tutorial" in listing.stdout
    assert json.loads(run("scan", "--list-rules", "--json").stdout)[0]["id"]
    bad = run("scan", "--policy", "lenient", str(code))
    assert bad.returncode == 2 and b"--policy must be" in bad.stderr
