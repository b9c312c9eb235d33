"""The template store's bad inputs and life cycle, through the real CLI and the Python module: an unknown name
lists the known ones, a failing requirements file shows pip's error and leaves nothing, a second build with the
same requirements reuses the first, and a template removed while a sandbox uses it keeps that sandbox working
while new ones are refused."""
import json
import os
import shutil

import pytest

import e2beval
from e2beval import Sandbox
from e2beval.sandbox import NotFoundException

from .conftest import CACHE, template


def name_of_its_own(prefix: str, tmp_path) -> str:
    """A template name no other test uses (from the test's own temporary directory), valid as a template name."""
    return f"{prefix}-{tmp_path.name[-12:].strip('_').replace('_', '-')}"


@pytest.fixture
def tiny(tmp_path):
    """A small template of its own per test (no packages, one file); removed afterwards."""
    name = name_of_its_own("tiny", tmp_path)
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# nothing to install\n")
    data = tmp_path / "data.txt"
    data.write_text("from the template\n")
    built = template("build", name, "-r", str(requirements), "--file", f"{data}:input/data.txt")
    assert built.returncode == 0, built.stderr
    yield name, requirements, data
    template("rm", name)


def test_unknown_template_lists_the_known_ones(data_science):
    with pytest.raises(e2beval.InputError, match=r"unknown template 'no-such'.*data-science"):
        e2beval.execute("print(1)", template="no-such")
    with pytest.raises(NotFoundException, match=r"unknown template 'no-such'.*data-science"):
        Sandbox.create("no-such")
    removed = template("rm", "no-such")
    assert removed.returncode == 2 and "data-science" in removed.stderr, removed.stderr


def test_default_template_names_are_the_default_environment():
    for name in (None, "base", "e2beval"):
        with Sandbox.create(name, timeout=30) as sandbox:
            assert "/templates/" not in sandbox.run_code("import sys; sys.prefix").text
            assert sandbox.template_id == (name or "base")
    for name in ("base", "e2beval"):
        refused = template("build", name, "-r", "/dev/null")
        assert refused.returncode == 2 and "default environment" in refused.stderr, refused.stderr


def test_the_built_in_templates_names_are_refused_for_a_users_requirements():
    for name in ("code-interpreter-v1", "code-interpreter", "code-interpreter-beta"):
        refused = template("build", name, "-r", "/dev/null")
        assert refused.returncode == 2, refused.stderr
        assert f"'{name}' names e2beval's built-in template code-interpreter-v1" in refused.stderr, refused.stderr
    with_file = template("build", "code-interpreter-v1", "--file", "/dev/null")
    assert with_file.returncode == 2 and "it takes no --file" in with_file.stderr, with_file.stderr


def test_failing_requirements_show_pips_error_and_leave_nothing(tmp_path):
    requirements = tmp_path / "requirements.txt"
    # --no-index: pip looks nowhere, so this fails the same way offline as online.
    requirements.write_text("--no-index\ne2beval-no-such-package==1.0\n")
    store = CACHE / "templates"
    before = sorted(path.name for path in store.iterdir()) if store.exists() else []
    built = template("build", "broken", "-r", str(requirements))
    assert built.returncode == 125, built.stderr
    assert "No matching distribution found for e2beval-no-such-package==1.0" in built.stdout + built.stderr
    assert "nothing was kept" in built.stderr
    after = sorted(path.name for path in store.iterdir())
    assert [name for name in after if name not in before and not name.endswith(".lock")] == []
    assert "broken" not in [entry["name"] for entry in json.loads(template("list", "--json").stdout)]


def test_a_killed_builds_half_built_tree_is_removed_by_the_next_build_of_its_name(tmp_path):
    """A build killed with SIGKILL never cleans up: its tree (.building-NAME-PID) is left in the store. The next
    build of that name removes it and says so; another name's tree, and one whose name only starts alike, stay."""
    name = name_of_its_own("killed", tmp_path)
    store = CACHE / "templates"
    store.mkdir(parents=True, exist_ok=True)
    left = store / f".building-{name}-999999999"
    (left / "venv" / "lib").mkdir(parents=True)
    (left / "venv" / "lib" / "half-installed.py").write_text("# a package pip was unpacking\n")
    others = [store / f".building-{name}-longer-999999999", store / ".building-someone-else-999999999"]
    for other in others:
        other.mkdir()
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# nothing to install\n")
    try:
        built = template("build", name, "-r", str(requirements))
        assert built.returncode == 0, built.stderr
        assert not left.exists(), "the killed build's tree is still there"
        assert f"removing .building-{name}-999999999, left by a build of {name} that did not finish" in built.stderr
        assert all(other.is_dir() for other in others), "a tree of another name was removed"
    finally:
        template("rm", name)
        for path in [left, *others]:
            if path.exists():
                shutil.rmtree(path)


def test_building_twice_reuses_the_first_build(tiny):
    name, requirements, data = tiny
    first = json.loads(template("list", "--json").stdout)
    again = template("build", name, "-r", str(requirements), "--file", f"{data}:input/data.txt", "--json")
    assert again.returncode == 0, again.stderr
    assert f"already built {name}" in again.stderr
    manifest = json.loads(again.stdout)
    before = next(entry for entry in first if entry["name"] == name)
    assert manifest["built_at"] == before["built_at"] and manifest["requirements_hash"] == before["requirements_hash"]
    # A changed file is a different template: rebuilt.
    data.write_text("changed\n")
    rebuilt = template("build", name, "-r", str(requirements), "--file", f"{data}:input/data.txt", "--json")
    assert rebuilt.returncode == 0 and "already built" not in rebuilt.stderr
    assert json.loads(rebuilt.stdout)["requirements_hash"] != before["requirements_hash"]


def test_template_removed_while_a_sandbox_uses_it(tiny):
    name, _, _ = tiny
    listed = {entry["name"]: entry for entry in json.loads(template("list", "--json").stdout)}
    with Sandbox.create(name, timeout=60) as sandbox:
        # Where the template's files are inside: its directory's own path (under /run/e2beval/host-tmp when the
        # host keeps it under /tmp), named by $E2BEVAL_TEMPLATE_FILES.
        files = sandbox.run_code("import os; os.environ['E2BEVAL_TEMPLATE_FILES']").text.strip("'") + "/input/data.txt"
        host = os.path.realpath(listed[name]["directory"])  # the cache directory may be reached through a link
        assert files == (host if not host.startswith("/tmp/") else "/run/e2beval/host-tmp" + host[4:]) + "/files/input/data.txt"
        assert sandbox.run_code(f"open({files!r}).read()").text == repr("from the template\n")
        removed = template("rm", name)
        assert removed.returncode == 0, removed.stderr
        assert "stay until the sandboxes still running with it end" in removed.stdout  # this process uses it
        # The running sandbox keeps its template: its files and its Python's modules.
        assert sandbox.run_code(f"open({files!r}).read()").text == repr("from the template\n")
        assert sandbox.run_code("import json, csv; csv.__name__").text == "'csv'"
        # New sandboxes and executions no longer find it.
        with pytest.raises(NotFoundException, match=f"unknown template '{name}'"):
            Sandbox.create(name)
        with pytest.raises(e2beval.InputError, match=f"unknown template '{name}'"):
            e2beval.execute("print(1)", template=name)
    assert name not in [entry["name"] for entry in json.loads(template("list", "--json").stdout)]
