"""Where the e2beval daemon's socket may live (daemon_client.runtime_directory): a directory only this user can
enter, created safely, and refused when it is not ours, not 0700, a symlink, or in a parent another user can
change. A refused directory means no daemon: the assertion is graded in its own process."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from e2beval import daemon_client


@pytest.fixture
def parent(tmp_path: Path, monkeypatch) -> Path:
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(directory))
    return directory


def test_created_private_under_xdg_runtime_dir(parent):
    path = Path(daemon_client.runtime_directory())
    assert path == parent / "e2beval"
    status = path.lstat()
    assert stat.S_ISDIR(status.st_mode) and stat.S_IMODE(status.st_mode) == 0o700 and status.st_uid == os.getuid()
    assert daemon_client.socket_path().startswith(str(path) + "/daemon-")


def test_without_xdg_runtime_dir_a_per_uid_directory_in_tmp(monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    assert daemon_client.runtime_directory() == f"/tmp/e2beval-{os.getuid()}"


def test_a_symlink_is_refused(parent, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (parent / "e2beval").symlink_to(elsewhere)
    with pytest.raises(daemon_client.UnsafeDirectory, match="not a directory"):
        daemon_client.runtime_directory()


def test_a_directory_open_to_others_is_refused(parent):
    (parent / "e2beval").mkdir(mode=0o700)
    os.chmod(parent / "e2beval", 0o755)
    with pytest.raises(daemon_client.UnsafeDirectory, match="mode 755, not 700"):
        daemon_client.runtime_directory()


def test_a_directory_of_another_user_is_refused(parent):
    if os.getuid() != 0:
        pytest.fail("giving a directory to another user needs root (the test suite runs as root here)")
    (parent / "e2beval").mkdir(mode=0o700)
    os.chown(parent / "e2beval", 65534, 65534)
    with pytest.raises(daemon_client.UnsafeDirectory, match="belongs to uid 65534"):
        daemon_client.runtime_directory()


def test_a_parent_others_can_write_is_refused(parent):
    os.chmod(parent, 0o777)
    with pytest.raises(daemon_client.UnsafeDirectory, match="can be changed by other users"):
        daemon_client.runtime_directory()


def test_a_refused_directory_means_grading_in_the_assertions_process(parent, tmp_path):
    """The assertion still gets its (same) GradingResult, graded in its own process, and says why."""
    (parent / "e2beval").symlink_to(tmp_path)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(parent)}
    env.pop("E2BEVAL_DAEMON", None)
    script = ("import json, sys\nfrom e2beval.promptfoo import get_assert\n"
              "r = get_assert('```python\\ndef f(x):\\n    return x * 2\\n```', {'vars': {'function_name': 'f', "
              "'test_input': '21', 'expected_output': '42'}, 'config': {'metrics': False}})\n"
              "print(json.dumps([r['pass'], 'e2beval._core' in sys.modules]))\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [True, True]
    assert "not using the daemon" in done.stderr and "not a directory" in done.stderr


@pytest.mark.parametrize("variable", ["E2BEVAL_DAEMON_IDLE_S", "E2BEVAL_DAEMON_REPLY_TIMEOUT_S"])
@pytest.mark.parametrize("bad", ["soon", "0", "-5", "nan", "inf"])
def test_a_bad_daemon_duration_is_refused_with_its_name(monkeypatch, variable, bad):
    monkeypatch.setenv(variable, bad)
    with pytest.raises(ValueError, match=f"{variable} must be a positive number of seconds, got {bad!r}"):
        daemon_client.seconds_setting(variable, 30.0)
    monkeypatch.setenv(variable, "2.5")
    assert daemon_client.seconds_setting(variable, 30.0) == 2.5
    monkeypatch.delenv(variable)
    assert daemon_client.seconds_setting(variable, 30.0) == 30.0


def test_an_assertion_with_a_bad_daemon_duration_says_what_to_fix(tmp_path):
    # A fresh process (the fast path needs the compiled core not yet loaded), as promptfoo starts one per call.
    script = ("import time\nfrom e2beval import daemon_client\n"
              "daemon_client.grade('x', {'vars': {}, 'config': {}}, time.time())\n")
    env = dict(os.environ, E2BEVAL_DAEMON_IDLE_S="soon", XDG_RUNTIME_DIR=str(tmp_path))
    env.pop("E2BEVAL_DAEMON", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode != 0
    assert "E2BEVAL_DAEMON_IDLE_S must be a positive number of seconds, got 'soon'" in done.stderr
    assert not (tmp_path / "e2beval").exists()  # no daemon was started with it
