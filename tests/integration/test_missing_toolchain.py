"""A host without a language's toolchain (docs/toolchains.md, "Without the test command"): `e2beval run` says which
package to install and exits non-zero; `e2beval eval --multipl-e` judges every other language's answers as usual
and reports the missing language's as not judged, with the package; `e2beval doctor` lists the language as missing
with its install command. The toolchains are made missing for real, in the CLI's environment: the compilers'
directories are taken off PATH and each override variable (E2BEVAL_GO, ...) points where nothing is."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from _support import find_cli
from support import multipl_e


# language: (its binary on PATH, the variable that overrides it, the install command docs/languages.md gives: the
# Debian package, or for TypeScript the pinned npm package)
MISSING = {
    "go": ("go", "E2BEVAL_GO", "apt-get install golang-go"),
    "rust": ("rustc", "E2BEVAL_RUSTC", "apt-get install rustc"),
    "java": ("javac", "E2BEVAL_JAVAC", "apt-get install openjdk-17-jdk-headless"),
    "typescript": ("tsc", "E2BEVAL_TSC", "npm install --prefix tools/typescript typescript@5.9.3"),
}
PROGRAMS = {
    "go": ("prog.go", 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hi") }\n'),
    "rust": ("prog.rs", 'fn main() { println!("hi"); }\n'),
    "java": ("Main.java", 'public class Main { public static void main(String[] a) { System.out.println("hi"); } }\n'),
    "typescript": ("prog.ts", 'const greeting: string = "hi";\nconsole.log(greeting);\n'),
}
SYSTEM_DIRECTORIES = {"/usr/bin", "/bin", "/usr/sbin", "/sbin"}


def environment_without(tmp_path: Path, *languages: str) -> dict:
    """This environment with `languages`' toolchains unreachable: the override variables name a path where nothing
    is (a binary in /usr/bin, which the CLI also needs, cannot be taken off PATH any other way), and every directory
    outside the system's own that holds one of the binaries is off PATH."""
    env = dict(os.environ)
    binaries = [MISSING[language][0] for language in languages]
    kept = [directory for directory in env.get("PATH", "").split(os.pathsep)
            if directory in SYSTEM_DIRECTORIES or not any((Path(directory) / binary).exists() for binary in binaries)]
    env["PATH"] = os.pathsep.join(kept)
    for language in languages:
        env[MISSING[language][1]] = str(tmp_path / "nowhere" / MISSING[language][0])
    return env


def cli(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([find_cli(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("language", sorted(MISSING))
def test_run_names_the_package_to_install(tmp_path, language):
    name, source = PROGRAMS[language]
    (tmp_path / name).write_text(source, encoding="utf-8")
    env = environment_without(tmp_path, language)
    completed = cli("run", name, cwd=tmp_path, env=env)
    assert completed.returncode == 125, (completed.stdout, completed.stderr)  # docs/cli.md: the sandbox could not be built
    binary, variable, install = MISSING[language]
    assert install in completed.stderr, completed.stderr
    assert variable in completed.stderr and completed.stdout == ""
    # The same program with the toolchain there: it is the environment, not the program, that failed.
    present = cli("run", name, cwd=tmp_path, env=dict(os.environ))
    assert present.returncode == 0 and present.stdout == "hi\n", present.stderr


def test_eval_keeps_the_present_languages_verdicts_and_reports_the_missing_ones(tmp_path):
    go = multipl_e.rows_named("go", ["HumanEval_53_add", "HumanEval_2_truncate_number"])
    js = multipl_e.rows_named("js", ["HumanEval_0_has_close_elements", "HumanEval_53_add"])
    wrong = dict(js[1], gpt_solution="```js\nfunction add(x, y) {\n  return x - y;\n}\n```", name="HumanEval_53_add_wrong")
    dataset = tmp_path / "mixed.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in [go[0], js[0], go[1], js[1], wrong]), encoding="utf-8")
    env = environment_without(tmp_path, "go")
    completed = cli("eval", "--multipl-e", str(dataset), "--completion-field", "gpt_solution", "--json", cwd=tmp_path,
                    env=env)
    assert completed.returncode == 1, completed.stderr
    report = json.loads(completed.stdout)
    verdicts = [(item["task_id"], item["language"], item["pass"], item["outcome"]) for item in report["results"]]
    assert verdicts == [
        ("HumanEval_53_add", "go", False, "toolchain_missing"),
        ("HumanEval_0_has_close_elements", "javascript", True, "ok"),
        ("HumanEval_2_truncate_number", "go", False, "toolchain_missing"),
        ("HumanEval_53_add", "javascript", True, "ok"),
        ("HumanEval_53_add_wrong", "javascript", False, "exit_nonzero"),
    ], report["results"]
    for item in report["results"]:
        if item["language"] == "go":
            assert "apt-get install golang-go" in item["detail"] and item["stage"] == "compile", item
    # Not judged is neither a pass nor a failure: Go has no pass@k, JavaScript's counts its own answers only.
    assert "go" not in report["pass_at_k"]
    assert report["pass_at_k"]["javascript"]["1"] == pytest.approx(2 / 3)
    assert "2 go answers not judged" in completed.stderr and "apt-get install golang-go" in completed.stderr
    # The text report says it too.
    text = cli("eval", "--multipl-e", str(dataset), "--completion-field", "gpt_solution", cwd=tmp_path, env=env)
    assert text.returncode == 1
    assert "toolchain_missing" in text.stdout and "2 go answers not judged" in text.stderr


def test_doctor_lists_missing_toolchains_with_their_install_commands(tmp_path):
    env = environment_without(tmp_path, *MISSING)
    listed = json.loads(cli("doctor", "--json", cwd=tmp_path, env=env).stdout)["interpreters"]
    text = cli("doctor", cwd=tmp_path, env=env).stdout
    for language, (binary, variable, install) in MISSING.items():
        assert listed[language].startswith("not available: "), (language, listed[language])
        assert install in listed[language], (language, listed[language])
        assert install in text, (language, text)
    assert listed["cpp"].startswith("available: "), listed["cpp"]  # the others are still there
    present = json.loads(cli("doctor", "--json", cwd=tmp_path, env=dict(os.environ)).stdout)["interpreters"]
    for language in MISSING:
        assert present[language].startswith("available: "), (language, present[language])
