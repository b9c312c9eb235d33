"""`e2beval init` end to end: write the tutorial project, run it with the real promptfoo through the run.sh it
writes, check every case's verdict from promptfoo's -o JSON, and the refusal to overwrite files.

promptfoo (npm, with its own Node 22) is installed project-locally by scripts/setup.sh under
tools/promptfoo/node_modules; run.sh finds it from where the e2beval binary is installed.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from _support import PROMPTFOO_BIN_DIR as PROMPTFOO_BIN
from _support import REPO, find_cli

TUTORIAL = REPO / "examples" / "tutorial"
UNSAFE_PREFIX = "Unsafe pattern detected in generated code"

# description -> (success, score) for the tutorial's recorded answers: 4 pass, 5 fail on purpose.
EXPECTED = {
    "factorial 0->1, 5->120, 7->5040": (True, 1.0),
    "is_palindrome 'racecar'->True, 'promptfoo'->False, ''->True": (True, 1.0),
    "find_largest [1, 5, 3, 9, 2]->9, [-4, -9, -2]->-2, [42]->42 (wrong answer)": (False, 2 / 3),
    "read_file('/etc/passwd') is refused (unsafe answer)": (False, 0.0),
    "factorial(-3) raises ValueError": (True, 1.0),
    "reverse_string('hello') -> olleh": (True, 1.0),
    "factorial(-3) raises ValueError (erroring answer)": (False, 0.0),
    "reverse_string('hello') -> olleh (erroring answer)": (False, 0.0),
    "find_largest([1, 5, 3, 9, 2]) -> 9 (no code in the answer)": (False, 0.0),
}


CLI = find_cli()


def init(*args, cwd=None):
    return subprocess.run([CLI, "init", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def tutorial_files():
    skip = {".promptfoo_results", "__pycache__", "node_modules"}
    return sorted(p.relative_to(TUTORIAL) for p in TUTORIAL.rglob("*")
                  if p.is_file() and not skip & set(p.relative_to(TUTORIAL).parts)
                  and p.name != "promptfoo_report.md" and not (p.name.startswith("out") and p.suffix == ".json")
                  and p.suffix != ".pyc")


def clean_env(tmp_path):
    """The environment of a user who has not sourced anything: no PROMPTFOO_PYTHON, promptfoo not on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTFOO_")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and "promptfoo" not in p and Path(p).resolve() != Path(CLI).parent.resolve())
    env["PROMPTFOO_CONFIG_DIR"] = str(tmp_path / "promptfoo-home")  # promptfoo's database, not ~/.promptfoo
    return env


def test_init_writes_the_tutorial_project_and_run_sh(tmp_path):
    project = tmp_path / "project"
    result = init(str(project))
    assert result.returncode == 0, result.stderr
    assert f"Next step:\n  cd {project} && bash run.sh\n" in result.stdout
    # The project's files are examples/tutorial's, byte for byte.
    expected = tutorial_files()
    assert expected, "examples/tutorial is empty"
    for relative in expected:
        assert (project / relative).read_bytes() == (TUTORIAL / relative).read_bytes(), relative
    written = sorted(p.relative_to(project) for p in project.rglob("*") if p.is_file())
    assert written == sorted(expected + [Path("run.sh")])
    run_sh = project / "run.sh"
    assert os.access(run_sh, os.X_OK)
    script = run_sh.read_text()
    # The interpreter next to the e2beval binary, the one that has e2beval.
    assert f"INIT_PYTHON='{Path(CLI).parent / 'python'}'" in script
    assert f"INIT_PROMPTFOO_BIN='{PROMPTFOO_BIN}'" in script
    assert "--no-share" in script and "PROMPTFOO_DISABLE_TELEMETRY=1" in script
    # The default directory is the current one, and the next step then needs no `cd`.
    here = tmp_path / "here"
    here.mkdir()
    result = init(cwd=here)
    assert result.returncode == 0 and "Next step:\n  bash run.sh\n" in result.stdout
    assert (here / "promptfooconfig.yaml").exists()


def test_run_sh_runs_promptfoo_and_every_verdict_is_right(tmp_path):
    if not (PROMPTFOO_BIN / "promptfoo").exists():
        pytest.fail(f"promptfoo is not installed in {PROMPTFOO_BIN}; run scripts/setup.sh")
    project = tmp_path / "project"
    assert init(str(project)).returncode == 0
    out = tmp_path / "out.json"
    run = subprocess.run(["bash", "run.sh", "-o", str(out), "--no-progress-bar"], cwd=project, env=clean_env(tmp_path),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 100, run.stdout[-3000:] + run.stderr[-3000:]  # the recorded wrong answers fail
    # Issue 38, row 10: run.sh writes the tutorial's report itself, and prints the whole command for another format,
    # which works in a shell where nothing is on PATH.
    assert "run.sh: wrote promptfoo_report.md (9 results of this eval, from .promptfoo_results)" in run.stdout, run.stdout[-2000:]
    assert (project / "promptfoo_report.md").read_text().startswith("| task | provider | model | success | runtime_s |")
    html_line = next(line for line in run.stdout.splitlines() if line.startswith("run.sh: the same as HTML with charts: "))
    command = html_line.split(": ", 2)[2]
    assert command.startswith(str(Path(CLI).resolve())), command
    html = subprocess.run(["bash", "-c", command], cwd=project, env={"PATH": "/usr/bin:/bin"}, capture_output=True,
                          text=True, timeout=120)
    assert html.returncode == 0, html.stderr
    assert (project / "promptfoo_report.html").read_text().count("<tbody class=\"result") == 9
    results = json.loads(out.read_text())["results"]
    config = yaml.safe_load((project / "promptfooconfig.yaml").read_text())
    descriptions = [test["description"] for test in config["tests"]]
    verdicts = {r["testCase"]["description"]: r for r in results["results"]}
    assert sorted(verdicts) == sorted(descriptions) == sorted(EXPECTED)
    for description, (success, score) in EXPECTED.items():
        verdict = verdicts[description]
        assert verdict["success"] is success, (description, verdict["gradingResult"]["reason"])
        assert verdict["score"] == pytest.approx(score), description
    assert results["stats"]["successes"] == 4 and results["stats"]["failures"] == 5

    def reasons(verdict):
        """Every reason in the grading tree: the assertion's, and one per test case."""
        stack, found = [verdict["gradingResult"]], []
        while stack:
            node = stack.pop()
            found.append(node.get("reason", ""))
            stack.extend(node.get("componentResults") or [])
        return found

    unsafe = reasons(verdicts["read_file('/etc/passwd') is refused (unsafe answer)"])
    assert any(r.startswith(UNSAFE_PREFIX) for r in unsafe)
    wrong = reasons(verdicts["find_largest [1, 5, 3, 9, 2]->9, [-4, -9, -2]->-2, [42]->42 (wrong answer)"])
    assert any("Expected -2, got 0" in r for r in wrong)
    no_code = reasons(verdicts["find_largest([1, 5, 3, 9, 2]) -> 9 (no code in the answer)"])
    assert any("No Python function named find_largest found" in r for r in no_code)
    erroring = reasons(verdicts["reverse_string('hello') -> olleh (erroring answer)"])
    assert any("AttributeError" in r for r in erroring)


def test_init_refuses_to_overwrite_and_force_does(tmp_path):
    project = tmp_path / "project"
    assert init(str(project)).returncode == 0
    config = project / "promptfooconfig.yaml"
    config.write_text("# my edits\n")
    refused = init(str(project))
    assert refused.returncode == 1
    assert str(config) in refused.stderr and str(project / "run.sh") in refused.stderr
    assert "--force" in refused.stderr and "nothing was written" in refused.stderr
    assert config.read_text() == "# my edits\n"
    forced = init("--force", str(project))
    assert forced.returncode == 0, forced.stderr
    assert config.read_bytes() == (TUTORIAL / "promptfooconfig.yaml").read_bytes()
    # A file where the directory should be is bad input.
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")
    bad = init(str(not_a_directory))
    assert bad.returncode == 2 and "not a directory" in bad.stderr
    assert init(str(project), "extra").returncode == 2


def test_run_sh_explains_what_is_missing(tmp_path):
    project = tmp_path / "project"
    assert init(str(project)).returncode == 0
    script = (project / "run.sh").read_text()
    env = clean_env(tmp_path)
    # No Python with e2beval: neither $PROMPTFOO_PYTHON nor the one found at init time.
    (project / "no_python.sh").write_text(script.replace(f"INIT_PYTHON='{Path(CLI).parent / 'python'}'", "INIT_PYTHON=''"))
    missing_python = subprocess.run(["bash", "no_python.sh"], cwd=project, capture_output=True, text=True, timeout=120,
                                    env={**env, "PROMPTFOO_PYTHON": "/nonexistent/python"})
    assert missing_python.returncode == 2
    assert "no Python with e2beval found" in missing_python.stderr and "PROMPTFOO_PYTHON" in missing_python.stderr
    # No promptfoo on PATH and none bundled.
    (project / "no_promptfoo.sh").write_text(script.replace(f"INIT_PROMPTFOO_BIN='{PROMPTFOO_BIN}'", "INIT_PROMPTFOO_BIN=''"))
    missing_promptfoo = subprocess.run(["bash", "no_promptfoo.sh"], cwd=project, capture_output=True, text=True,
                                       timeout=120, env={**env, "PATH": "/usr/bin:/bin"})
    assert missing_promptfoo.returncode == 127
    assert "promptfoo with Node.js >= 22 was not found" in missing_promptfoo.stderr
    assert "npm install -g promptfoo" in missing_promptfoo.stderr


def test_init_outside_the_checkout_says_how_to_install_and_its_printed_commands_evaluate(tmp_path):
    """e2beval is not on PyPI: init names the checkout to `pip install`, and the PROMPTFOO_PYTHON it prints is
    an absolute path that works from the user's own project directory, far from the clone."""
    if not (PROMPTFOO_BIN / "promptfoo").exists():
        pytest.fail(f"promptfoo is not installed in {PROMPTFOO_BIN}; run scripts/setup.sh")
    project = tmp_path / "my-eval"
    assert not project.resolve().is_relative_to(REPO.resolve())
    result = init(str(project))
    assert result.returncode == 0, result.stderr
    for written in project.rglob("*"):
        if written.is_file():
            assert "pip install e2beval" not in written.read_text(), written
    script = (project / "run.sh").read_text()
    assert f"INIT_INSTALL='pip install {REPO}'" in script
    exports = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("export PROMPTFOO_PYTHON=")]
    assert len(exports) == 1, result.stdout
    python = exports[0].split("=", 1)[1].strip("'")
    assert Path(python).is_absolute() and Path(python).exists()
    # The documented commands, from the project directory, with promptfoo on PATH and nothing else set up.
    env = clean_env(tmp_path)
    env.update({"PROMPTFOO_PYTHON": python, "PATH": f"{PROMPTFOO_BIN}{os.pathsep}{env['PATH']}",
                "PROMPTFOO_RESULTS_DIR": str(tmp_path / "metrics")})
    out = tmp_path / "out.json"
    run = subprocess.run(["promptfoo", "eval", "--no-cache", "--no-share", "--no-progress-bar", "-o", str(out)],
                         cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 100, run.stdout[-3000:] + run.stderr[-3000:]
    stats = json.loads(out.read_text())["results"]["stats"]
    assert (stats["successes"], stats["failures"], stats["errors"]) == (4, 5, 0)
    assert len(list((tmp_path / "metrics").glob("metrics_*.json"))) == 9
