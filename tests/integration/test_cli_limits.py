"""`e2beval run` with limits an interpreter cannot start in: refused up front, with the smallest workable value,
from the flag, a profile file and the Python API alike."""

import json
import subprocess

import pytest

import e2beval
from _support import find_cli

CLI = find_cli()


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("language, source", [("python", "print(1)\n"), ("javascript", "console.log(1)\n"), ("bash", "echo 1\n")])
def test_a_memory_limit_too_small_to_start_is_refused_with_the_smallest_value(tmp_path, language, source):
    program = tmp_path / "p"
    program.write_text(source)
    refused = run("run", "--language", language, "--memory", "1", str(program))
    assert refused.returncode == 2, refused
    assert "memory limit of 1 MiB is too small for an interpreter to start; the smallest is 16 MiB" in refused.stderr
    assert "--memory 16" in refused.stderr
    assert "failed to map segment" not in refused.stderr + refused.stdout

    at_floor = run("run", "--language", language, "--memory", "16", str(program))
    assert at_floor.returncode == 0, at_floor
    assert at_floor.stdout == "1\n"


def test_the_floor_holds_for_profiles_and_the_python_api(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"limits": {"memory_mb": 0.5}}))
    refused = run("run", "--profile", str(profile), str(program))
    assert refused.returncode == 2 and "the smallest is 16 MiB" in refused.stderr, refused
    with pytest.raises(e2beval.InputError, match="the smallest is 16 MiB"):
        e2beval.execute("print(1)", limits={"memory_mb": 4})


def test_the_output_limit_message_says_how_to_raise_it(tmp_path):
    """Issue 38, row 9: a program killed for its output is told which limit it hit and both names to raise it by."""
    program = tmp_path / "big.py"
    program.write_text("import sys\nsys.stdout.write('x' * 200_000)\n")
    result = run("run", "--output-limit", "100000", str(program))
    assert result.returncode == 124, result
    assert ("e2beval: output_limit: killed after writing more than 100000 bytes to stdout (the output limit per stream; "
            "raise it with --output-limit BYTES, or limits.output_bytes in Python, a promptfoo config or a --profile "
            "file)") in result.stderr, result.stderr
    detail = e2beval.execute("import sys\nsys.stderr.write('y' * 5000)\n", limits={"output_bytes": 1000}, pool=False)["detail"]
    assert detail.startswith("killed after writing more than 1000 bytes to stderr (the output limit per stream; "), detail
