"""`e2beval run` remembers what it learned about the interpreter (docs/cli.md, "The interpreter cache").

The interpreter here is a pyenv layout built in a scratch directory: a shim exactly as `pyenv rehash` writes it,
and a `pyenv` that appends a line to a log each time it is started, then picks the version as pyenv does
(PYENV_VERSION, else the nearest .python-version, else $PYENV_ROOT/version). The versions are copies of this
test's real interpreter binary. A run that starts the interpreter to discover it adds a line to the log; a run
served by the cache does not."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from _support import find_cli

CLI = find_cli()

PYENV = """#!/usr/bin/env bash
set -e
echo started >> "{log}"
[ "$1" = exec ] || exit 1
program="$2"; shift 2
version="${{PYENV_VERSION:-}}"
if [ -z "$version" ]; then
  dir="$PWD"
  while [ -n "$dir" ]; do
    if [ -f "$dir/.python-version" ]; then version=$(head -n1 "$dir/.python-version"); break; fi
    dir="${{dir%/*}}"
  done
  [ -n "$version" ] || [ ! -f /.python-version ] || version=$(head -n1 /.python-version)
fi
[ -n "$version" ] || version=$(head -n1 "$PYENV_ROOT/version")
exec "$PYENV_ROOT/versions/$version/bin/$program" "$@"
"""

# What `pyenv rehash` writes (pyenv 2.x), with this layout's root.
SHIM = """#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="${{0##*/}}"

export PYENV_ROOT="{root}"
SHIM_PATH=${{0%/*}}
if [[ $SHIM_PATH != "{root}/shims" ]]; then
  export _PYENV_SHIM_PATH="$SHIM_PATH"
fi
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""


class Layout:
    def __init__(self, base: Path):
        self.root = base / "pyenv"
        self.log = base / "discoveries.log"
        self.project = base / "project"
        self.cache_home = base / "cache"
        self.cache_dir = self.cache_home / "e2beval"
        self.cache_file = self.cache_dir / "interpreters.json"
        self.program = base / "hello.py"
        self.program.write_text("print('hello from the sandbox')\n")
        real_python = os.path.realpath(sys.executable)
        for version in ("a", "b"):
            bin_dir = self.root / "versions" / version / "bin"
            bin_dir.mkdir(parents=True)
            shutil.copy2(real_python, bin_dir / "python3")
        (self.root / "version").write_text("a\n")
        (self.root / "libexec").mkdir()
        (self.root / "shims").mkdir()
        self.write_executable(self.root / "libexec" / "pyenv", PYENV.format(log=self.log))
        self.shim = self.root / "shims" / "python3"
        self.write_executable(self.shim, SHIM.format(root=self.root))
        self.project.mkdir()
        (self.project / ".python-version").write_text("a\n")

    @staticmethod
    def write_executable(path: Path, text: str) -> None:
        path.write_text(text)
        path.chmod(0o755)

    def discoveries(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0

    def run(self, cwd: Path = None, python: Path = None, **env_changes: str) -> subprocess.CompletedProcess:
        env = {name: value for name, value in os.environ.items() if not name.startswith("PYENV")}
        env.pop("E2BEVAL_NO_CACHE", None)
        env.update(XDG_CACHE_HOME=str(self.cache_home), PWD=str(cwd or self.project), **env_changes)
        result = subprocess.run([CLI, "run", "--python", str(python or self.shim), str(self.program)], cwd=cwd or self.project,
                                env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "hello from the sandbox\n"
        return result

    def cached_executables(self) -> list:
        return [entry["interpreter"]["executable"] for entry in json.loads(self.cache_file.read_text())["entries"]]


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path)


def test_a_second_run_does_not_start_the_interpreter_and_the_cache_is_private(layout):
    layout.run()
    assert layout.discoveries() == 1
    layout.run()
    layout.run()
    assert layout.discoveries() == 1
    assert stat.S_IMODE(layout.cache_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(layout.cache_file.stat().st_mode) == 0o600
    assert layout.cached_executables() == [str(layout.root / "versions" / "a" / "bin" / "python3")]
    assert not [name for name in os.listdir(layout.cache_dir) if name != "interpreters.json"]  # no temporaries left


def test_touching_the_binary_or_the_shim_invalidates_the_entry(layout):
    layout.run()
    os.utime(layout.root / "versions" / "a" / "bin" / "python3")
    layout.run()
    assert layout.discoveries() == 2
    layout.run()
    assert layout.discoveries() == 2  # remembered again
    os.utime(layout.shim)
    layout.run()
    assert layout.discoveries() == 3


def test_what_makes_pyenv_choose_another_version_is_noticed(layout):
    layout.run()
    (layout.project / ".python-version").write_text("b\n")
    layout.run()
    assert layout.discoveries() == 2
    assert layout.cached_executables()[0] == str(layout.root / "versions" / "b" / "bin" / "python3")
    layout.run(PYENV_VERSION="a")
    assert layout.discoveries() == 3
    assert layout.cached_executables()[0] == str(layout.root / "versions" / "a" / "bin" / "python3")
    # A nearer .python-version, in a directory below the project, wins over the project's.
    nested = layout.project / "nested"
    nested.mkdir()
    layout.run(cwd=nested)
    assert layout.discoveries() == 3  # same version file found from there: the entry holds
    (nested / ".python-version").write_text("a\n")
    layout.run(cwd=nested)
    assert layout.discoveries() == 4
    # Without any .python-version the global file decides, and editing it is noticed.
    elsewhere = layout.root.parent / "elsewhere"
    elsewhere.mkdir()
    layout.run(cwd=elsewhere)
    (layout.root / "version").write_text("b\n")
    layout.run(cwd=elsewhere)
    assert layout.discoveries() == 6
    assert layout.cached_executables()[0] == str(layout.root / "versions" / "b" / "bin" / "python3")


def test_a_cache_file_writable_by_others_is_ignored_and_replaced(layout):
    layout.run()
    layout.cache_file.chmod(0o666)
    layout.run()
    assert layout.discoveries() == 2
    assert stat.S_IMODE(layout.cache_file.stat().st_mode) == 0o600  # replaced by a private one
    layout.run()
    assert layout.discoveries() == 2


def test_a_cache_directory_writable_by_others_is_neither_read_nor_written(layout):
    layout.run()
    layout.cache_dir.chmod(0o777)
    before = layout.cache_file.read_bytes()
    layout.run()
    layout.run()
    assert layout.discoveries() == 3
    assert layout.cache_file.read_bytes() == before


def test_a_cache_file_owned_by_someone_else_is_ignored(layout):
    # Giving a file away needs root, which these tests run as (the sandbox tests need it too).
    layout.run()
    os.chown(layout.cache_file, 65534, 65534)
    layout.run()
    assert layout.discoveries() == 2
    assert layout.cache_file.stat().st_uid == os.geteuid()


@pytest.mark.parametrize("content", [
    "{not json",
    '{"format": "e2beval-interpreter-cache", "version": 1, "entries": [{"path": 3}]}',
    '{"format": "e2beval-interpreter-cache", "version": 1, "entries": "none"}',
])
def test_a_corrupt_cache_is_ignored_and_rewritten(layout, content):
    layout.cache_dir.mkdir(parents=True, mode=0o700)
    layout.cache_file.write_text(content)
    layout.cache_file.chmod(0o600)
    layout.run()
    assert layout.discoveries() == 1
    assert layout.cached_executables() == [str(layout.root / "versions" / "a" / "bin" / "python3")]


def test_an_entry_naming_paths_that_do_not_exist_is_not_used(layout):
    layout.run()
    document = json.loads(layout.cache_file.read_text())
    document["entries"][0]["interpreter"]["read_only_paths"] = ["/nonexistent/prefix"]
    layout.cache_file.write_text(json.dumps(document))
    layout.run()
    assert layout.discoveries() == 2
    assert "/nonexistent/prefix" not in layout.cache_file.read_text()


def test_e2beval_no_cache_turns_it_off(layout):
    layout.run(E2BEVAL_NO_CACHE="1")
    layout.run(E2BEVAL_NO_CACHE="1")
    assert layout.discoveries() == 2
    assert not layout.cache_file.exists()


def test_a_wrapper_script_that_is_not_a_pyenv_shim_is_asked_every_time(layout):
    wrapper = layout.root.parent / "bin" / "python3"
    wrapper.parent.mkdir()
    Layout.write_executable(wrapper, f'#!/bin/sh\necho started >> "{layout.log}"\n'
                                     f'exec "{layout.root}/versions/a/bin/python3" "$@"\n')
    layout.run(python=wrapper)
    layout.run(python=wrapper)
    assert layout.discoveries() == 2


def test_a_binary_interpreter_is_remembered_by_its_size_and_times(layout):
    binary = layout.root / "versions" / "b" / "bin" / "python3"
    layout.run(python=binary)
    entry = json.loads(layout.cache_file.read_text())["entries"][0]
    assert entry["kind"] == "binary" and entry["interpreter"]["executable"] == str(binary)
    witness = next(w for w in entry["witnesses"] if w["path"] == str(binary))
    assert witness["mtime_ns"] == binary.stat().st_mtime_ns and witness["size"] == binary.stat().st_size
    os.utime(binary, ns=(1_000_000_000, 1_000_000_000))
    layout.run(python=binary)
    entry = json.loads(layout.cache_file.read_text())["entries"][0]
    assert next(w for w in entry["witnesses"] if w["path"] == str(binary))["mtime_ns"] == 1_000_000_000
