"""`e2beval eval --multipl-e` on real MultiPL-E rows (../shared/datasets/multipl-e, read at test time, never copied):
real GPT answers judged in the sandbox, another task's answer failing this task's tests and an endless loop in every
language (nothing left running after it), raw continuations with pass@k, and broken input that fails alone. docs/languages.md has the assembly rules."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from _support import find_cli
from support import multipl_e
from support.waiting import until

FILES = {"javascript": "js", "bash": "sh", "typescript": "ts", "cpp": "cpp", "go": "go", "java": "java", "rust": "rs"}


def write_rows(path: Path, items: list) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def run_eval(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([find_cli(), "eval", *args], cwd=cwd, capture_output=True, timeout=600)


def results(completed: subprocess.CompletedProcess) -> dict:
    assert completed.stdout, completed.stderr.decode()
    return json.loads(completed.stdout)


# Rows whose GPT answer passes under MultiPL-E's own judge (bench/reference_judge.py), with the shapes the assembly
# handles: a repeated prompt, a later block of usage (js 0, sh 12, sh 27 with three blocks), top-level console.log
# examples (js 2, 3), the model's own main() with asserts cut (cpp and rust 0, 1, 2; java's main), a test package
# (go), a typed answer (typescript).
PASSING = {
    "javascript": ["HumanEval_0_has_close_elements", "HumanEval_2_truncate_number", "HumanEval_3_below_zero"],
    "bash": ["HumanEval_0_has_close_elements", "HumanEval_12_longest", "HumanEval_27_flip_case"],
    "cpp": ["HumanEval_0_has_close_elements", "HumanEval_1_separate_paren_groups", "HumanEval_2_truncate_number"],
    "rust": ["HumanEval_0_has_close_elements", "HumanEval_1_separate_paren_groups", "HumanEval_2_truncate_number"],
    "go": ["HumanEval_0_has_close_elements", "HumanEval_2_truncate_number", "HumanEval_3_below_zero"],
    "java": ["HumanEval_0_has_close_elements", "HumanEval_2_truncate_number", "HumanEval_3_below_zero"],
    "typescript": ["HumanEval_0_has_close_elements", "HumanEval_2_truncate_number", "HumanEval_3_below_zero"],
}

# An answer to HumanEval_53_add (add(x, y)) that never returns, in each MultiPL-E language: it compiles, then runs
# until the run's limit kills it.
ENDLESS = {
    "javascript": "```js\nfunction add(x, y) {\n  while (true) {}\n}\n```",
    "cpp": "```cpp\nlong add(long x, long y) {\n    volatile long n = 0;\n    while (true) { n = n + 1; }\n}\n```",
    "rust": "```rust\nfn add(x: isize, y: isize) -> isize {\n    loop {}\n}\n```",
    "go": "```go\nfunc add(x int, y int) int {\n\tn := 0\n\tfor {\n\t\tn++\n\t}\n}\n```",
    "java": "```java\nclass Problem {\n    public static long add(long x, long y) {\n        while (true) { }\n    }\n}\n```",
    "typescript": "```typescript\nfunction add(x: number, y: number): number {\n  while (true) {}\n}\n```",
    "bash": "```bash\nadd() {\n  while true; do :; done\n}\n```",
}
# The languages MultiPL-E's shared rows do not have: an endless program through `e2beval run`.
ENDLESS_PROGRAMS = {
    "c": ("loop.c", "int main(void) {\n    volatile unsigned long n = 0;\n    for (;;) n++;\n}\n"),
    "python": ("loop.py", "n = 0\nwhile True:\n    n += 1\n"),
}
RUN_TIMEOUT_S = "5"  # the run stage's limit for every row here: short, with room for a JVM's start on a busy host
WAIT_S = 120.0  # a bound on waiting for a condition, so that a stuck cleanup fails instead of hanging; never asserted
RUN_S = 900.0  # likewise, for a whole `e2beval` run of a language's rows


@pytest.fixture(scope="module")
def cgroup_parents() -> list:
    """Where this host's sandbox cgroups are made (as `e2beval doctor --json` reports them)."""
    doctor = subprocess.run([find_cli(), "doctor", "--json"], capture_output=True, text=True, timeout=300)
    found = json.loads(doctor.stdout)["cgroups"]["parents"]
    assert found, "this host gives e2beval no cgroups, so nothing left running could be counted; run where cgroups work"
    return found


def cgroups_of(pid: int, parents: list) -> list:
    """The sandbox cgroups the e2beval process `pid` made (named e2beval-PID-...)."""
    found = []
    for parent in parents:
        try:
            found += [os.path.join(parent, name) for name in os.listdir(parent) if name.startswith(f"e2beval-{pid}-")]
        except FileNotFoundError:
            pass
    return found


def processes_of(pid: int) -> list:
    """Host processes in a cgroup of `pid`'s sandboxes, or its cgroup reaper: what would be left running."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cgroups = (entry / "cgroup").read_text()
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # it ended while we looked
        if f"/e2beval-{pid}-" in cgroups or (arguments[0] == b"e2beval-cgroup-reaper"
                                              and any(f"e2beval-{pid}-".encode() in a for a in arguments[1:])):
            found.append(f"pid {entry.name}: {b' '.join(arguments)[:200]!r}")
    return found


def run_and_count_leftovers(command: list, cwd: Path, parents: list) -> tuple:
    """Runs an e2beval command; returns (completed process, whether its sandboxes' cgroups were seen while it ran,
    the cgroups and processes of its sandboxes left once it has ended and its cleanup had WAIT_S to finish)."""
    out, err = cwd / "stdout", cwd / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, stdout=stdout, stderr=stderr)
        seen = []

        def ended():  # and, while it runs, whether its sandboxes' cgroups were seen
            seen.append(bool(cgroups_of(process.pid, parents)))
            return process.poll() is not None
        until(ended, f"{' '.join(map(str, command[:3]))} ... ending", timeout=RUN_S)
    left = lambda: cgroups_of(process.pid, parents) + processes_of(process.pid)  # noqa: E731
    until(lambda: not left(), "the cleanup of its sandboxes' cgroups and processes", timeout=WAIT_S, detail=left)
    seen = any(seen)
    completed = subprocess.CompletedProcess(command, process.returncode, out.read_bytes(), err.read_bytes())
    return completed, seen, cgroups_of(process.pid, parents) + processes_of(process.pid)


@pytest.mark.parametrize("language", sorted(PASSING))
def test_wrong_answers_fail_and_an_endless_loop_times_out_leaving_nothing(tmp_path, language, cgroup_parents):
    """In one run per language: real answers pass, each answer against another task's tests fails, and an endless
    loop ends in `timeout` with none of its processes or cgroups left."""
    chosen = multipl_e.rows_named(FILES[language], PASSING[language])
    swapped = []
    for index, row in enumerate(chosen):
        # The next row's answer against this row's tests: it defines another function, so it must fail.
        other = dict(row, gpt_solution=chosen[(index + 1) % len(chosen)]["gpt_solution"])
        other["name"] = row["name"] + "_swapped"
        swapped.append(other)
    endless = dict(multipl_e.rows_named(FILES[language], ["HumanEval_53_add"])[0], gpt_solution=ENDLESS[language])
    endless["name"] = "HumanEval_53_add_endless"
    dataset = write_rows(tmp_path / f"{language}.jsonl", chosen + swapped + [endless])
    completed, seen, left = run_and_count_leftovers(
        [find_cli(), "eval", "--multipl-e", str(dataset), "--completion-field", "gpt_solution", "--json", "--jobs", "2",
         "--timeout", RUN_TIMEOUT_S], tmp_path, cgroup_parents)
    assert completed.returncode == 1, completed.stderr.decode()
    report = results(completed)
    verdicts = {item["task_id"]: item for item in report["results"]}
    assert len(verdicts) == 2 * len(chosen) + 1
    for row in chosen:
        assert verdicts[row["name"]]["pass"], verdicts[row["name"]]
        assert verdicts[row["name"]]["outcome"] == "ok" and verdicts[row["name"]]["kind"] == "freeform"
        assert verdicts[row["name"] + "_swapped"]["pass"] is False, verdicts[row["name"] + "_swapped"]
        assert verdicts[row["name"] + "_swapped"]["outcome"] != "ok"
    loop = verdicts["HumanEval_53_add_endless"]
    assert loop["pass"] is False and loop["outcome"] == "timeout" and loop["stage"] == "run", loop
    assert {item["language"] for item in report["results"]} == {language}
    assert report["pass_at_k"][language]["1"] == pytest.approx(len(chosen) / (2 * len(chosen) + 1))
    assert b"multipl-e:" in completed.stderr  # progress
    assert seen, "no sandbox cgroup of the run was seen while it ran, so counting what is left proves nothing"
    assert left == [], left


@pytest.mark.parametrize("language", sorted(ENDLESS_PROGRAMS))
def test_an_endless_program_times_out_leaving_nothing(tmp_path, language, cgroup_parents):
    name, source = ENDLESS_PROGRAMS[language]
    (tmp_path / name).write_text(source, encoding="utf-8")
    completed, seen, left = run_and_count_leftovers(
        [find_cli(), "run", name, "--timeout", "3", "--json"], tmp_path, cgroup_parents)
    assert completed.returncode == 124, completed.stderr.decode()  # docs/cli.md: the program hit a limit
    shown = json.loads(completed.stdout)
    assert shown["outcome"] == "timeout", shown
    assert seen, "no sandbox cgroup of the run was seen while it ran, so counting what is left proves nothing"
    assert left == [], left


def test_continuations_from_a_completions_file_give_pass_at_k(tmp_path):
    """MultiPL-E's own shape: raw continuations of the prompt, cut at the first stop token, several per task."""
    row = multipl_e.rows_named("js", ["HumanEval_53_add"])[0]
    dataset = write_rows(tmp_path / "js.jsonl", [row])
    completions = write_rows(tmp_path / "completions.jsonl", [
        {"task_id": row["name"], "completion": "  return x + y;\n}\n\nfunction unused() {\n  return 1;\n}\n"},
        {"task_id": row["name"], "completion": "  return x - y;\n}\n"},
        {"task_id": row["name"], "completion": "  return y + x;\n}\n// a comment that the stop token cuts\nthrow 1;\n"},
    ])
    completed = run_eval("--multipl-e", str(dataset), "--completions", str(completions), "--answer-kind",
                         "continuation", "--k", "1,2", "--json", "--emit-programs", str(tmp_path / "programs"),
                         cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr.decode()
    report = results(completed)
    assert [item["pass"] for item in report["results"]] == [True, False, True]
    assert all(item["kind"] == "continuation" for item in report["results"])
    assert report["pass_at_k"]["javascript"]["1"] == pytest.approx(2 / 3)
    assert report["pass_at_k"]["javascript"]["2"] == pytest.approx(1.0)
    # The programs as judged: MultiPL-E's prompt + continuation cut at the first stop token + tests.
    emitted = tmp_path / "programs" / "javascript"
    assert sorted(path.name for path in emitted.iterdir()) == [row["name"], row["name"] + "-1", row["name"] + "-2"]
    first = (emitted / row["name"] / "prog.js").read_text()
    assert first == row["prompt"] + "  return x + y;\n}\n" + "\n" + row["tests"]


def test_broken_rows_and_completions_fail_alone(tmp_path):
    good = multipl_e.rows_named("sh", ["HumanEval_0_has_close_elements"])[0]
    no_tests = {key: value for key, value in good.items() if key != "tests"}
    no_tests["name"] = "HumanEval_X_no_tests"
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text(json.dumps(good) + "\n{not json\n" + json.dumps(no_tests) + "\n", encoding="utf-8")
    completed = run_eval("--multipl-e", str(dataset), "--completion-field", "gpt_solution", "--json", cwd=tmp_path)
    assert completed.returncode == 2
    report = results(completed)
    assert [(item["task_id"], item["pass"]) for item in report["results"]] == [(good["name"], True)]
    errors = {error["task_id"]: error["error"] for error in report["errors"]}
    assert "line 2 is not valid JSON" in " ".join(errors.values())
    assert "has no string field `tests`" in errors["HumanEval_X_no_tests"]
    stderr = completed.stderr.decode()
    assert "rows.jsonl line 3" in stderr

    completions = write_rows(tmp_path / "c.jsonl", [{"task_id": "HumanEval_999_nothing", "completion": "x"},
                                                    {"task_id": good["name"]}])
    completed = run_eval("--multipl-e", str(dataset), "--completions", str(completions), cwd=tmp_path)
    assert completed.returncode == 2
    stderr = completed.stderr.decode()
    assert "task 'HumanEval_999_nothing' is not a row of rows.jsonl" in stderr
    assert "no string field `completion`" in stderr

    missing = run_eval("--multipl-e", str(tmp_path / "absent.jsonl"), "--completion-field", "gpt_solution", cwd=tmp_path)
    assert missing.returncode == 2 and b"does not exist" in missing.stderr
    neither = run_eval("--multipl-e", str(dataset), cwd=tmp_path)
    assert neither.returncode == 2 and b"--completion-field FIELD" in neither.stderr
    kind = run_eval("--multipl-e", str(dataset), "--completion-field", "gpt_solution", "--answer-kind", "raw", cwd=tmp_path)
    assert kind.returncode == 2 and b"--answer-kind must be continuation, freeform or auto" in kind.stderr


def test_memory_is_two_gib_unless_memory_is_given(tmp_path):
    """MultiPL-E sets no memory limit (cpp HumanEval_129's correct answer peaks at 870 MiB); e2beval gives 2 GiB."""
    row = multipl_e.rows_named("js", ["HumanEval_53_add"])[0]
    answer = "```js\nfunction add(x, y) {\n  const big = Buffer.alloc(400 * 1024 * 1024, 1);\n  return x + y + big[0] - 1;\n}\n```"
    dataset = write_rows(tmp_path / "rows.jsonl", [dict(row, gpt_solution=answer)])
    default = results(run_eval("--multipl-e", str(dataset), "--completion-field", "gpt_solution", "--json", cwd=tmp_path))
    assert default["results"][0]["pass"], default["results"][0]
    capped = results(run_eval("--multipl-e", str(dataset), "--completion-field", "gpt_solution", "--memory", "256",
                              "--json", cwd=tmp_path))
    assert capped["results"][0]["pass"] is False, capped["results"][0]
