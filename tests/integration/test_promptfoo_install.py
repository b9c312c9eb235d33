"""promptfoo as scripts/setup.sh installs it (docs/promptfoo.md): without its optional packages, but with the native
bindings it needs, which tools/promptfoo/native-bindings.cjs picks from the lock for this machine; a lock that has
none for this machine is a clear error, not an install that fails later with "libsql binding not found"."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from _support import PROMPTFOO_BIN_DIR, REPO

TOOLS = REPO / "tools" / "promptfoo"
PICKER = TOOLS / "native-bindings.cjs"
NODE = PROMPTFOO_BIN_DIR / "node"


def pick(lock: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(NODE), str(PICKER), str(lock)], capture_output=True, text=True, timeout=60)


def test_the_picker_names_this_machines_libsql_and_esbuild_at_the_locks_versions():
    lock = json.loads((TOOLS / "package-lock.json").read_text())["packages"]
    picked = pick(TOOLS / "package-lock.json")
    assert picked.returncode == 0, picked.stderr
    names = picked.stdout.split()
    assert sorted(name.split("/")[0] for name in names) == ["@esbuild", "@libsql"], names
    for spec in names:
        name, version = spec.rsplit("@", 1)
        assert lock[f"node_modules/{name}"]["version"] == version, spec
        assert (TOOLS / "node_modules" / name / "package.json").is_file(), f"{name} is not installed"


def test_promptfoos_optional_packages_are_not_installed():
    lock = json.loads((TOOLS / "package-lock.json").read_text())["packages"]
    picked = set(pick(TOOLS / "package-lock.json").stdout.split())
    optional = [path for path, entry in lock.items() if entry.get("optional") and path.count("node_modules/") == 1]
    installed = [path for path in optional if (TOOLS / path).is_dir()
                 and f"{path.removeprefix('node_modules/')}@{lock[path]['version']}" not in picked]
    assert len(optional) > 100 and installed == [], installed[:20]


def test_a_lock_without_a_binding_for_this_machine_is_a_clear_error(tmp_path):
    lock = json.loads((TOOLS / "package-lock.json").read_text())
    lock["packages"] = {path: entry for path, entry in lock["packages"].items()
                        if not path.startswith(("node_modules/@libsql/linux", "node_modules/@esbuild/"))}
    stripped = tmp_path / "package-lock.json"
    stripped.write_text(json.dumps(lock))
    picked = pick(stripped)
    assert picked.returncode == 1 and picked.stdout == ""
    assert "no libsql or esbuild package for linux-" in picked.stderr, picked.stderr
