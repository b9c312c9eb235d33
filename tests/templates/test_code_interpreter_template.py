"""The built-in template code-interpreter-v1 (docs/templates.md, "code-interpreter-v1"): E2B's code-interpreter
packages at E2B's pins, built once per test run into the tests' cache (tests/template_cache.py), given by
`e2beval.Sandbox.create("code-interpreter-v1")` (and E2B's older names for it), while `Sandbox.create()` and
"base" stay the bare default environment."""
import json
import re

import pytest

from e2beval import Sandbox

from .conftest import REPO, template

PINS = REPO / "src" / "local" / "templates" / "code-interpreter-v1.txt"
DATA_CORE = ("numpy", "pandas", "matplotlib", "pillow", "scipy", "scikit-learn", "seaborn", "plotly", "requests",
             "beautifulsoup4", "openpyxl", "sympy")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict:
    """name -> version, as src/local/templates/code-interpreter-v1.txt pins them."""
    found = {}
    for line in PINS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            found[normalized(name)] = version
    return found


def test_the_pins_are_e2bs_and_cover_the_data_core():
    pinned = pins()
    for name in DATA_CORE + ("ipython", "e2b-charts"):
        assert pinned.get(normalized(name)), f"{name} is not pinned in {PINS}"
    assert pinned["ipython"] == "9.15.0" and pinned["numpy"] == "2.3.5" and pinned["pandas"] == "2.2.3"


def test_its_packages_are_installed_at_the_pinned_versions(code_interpreter):
    listed = {entry["name"]: entry for entry in json.loads(template("list", "--json").stdout)}
    manifest = listed[code_interpreter]
    installed = {normalized(name): version for name, version in manifest["packages"].items()}
    assert {name: installed.get(name) for name in pins()} == pins()
    assert manifest["size_bytes"] > 0 and manifest["build_seconds"] > 0


def test_a_second_build_reuses_the_first(code_interpreter):
    before = {entry["name"]: entry for entry in json.loads(template("list", "--json").stdout)}[code_interpreter]
    again = template("build", code_interpreter, "--json")
    assert again.returncode == 0, again.stderr
    assert f"already built {code_interpreter}" in again.stderr
    assert json.loads(again.stdout)["built_at"] == before["built_at"]
    assert again.stdout.lstrip().startswith("{"), "the builder's log must stay on stderr"


def test_sandbox_gets_e2bs_environment_and_its_rich_results(code_interpreter):
    with Sandbox.create(code_interpreter, timeout=120) as sandbox:
        assert sandbox.template_id == code_interpreter
        assert "/templates/code-interpreter-v1/venv" in sandbox.run_code("import sys; sys.prefix").text
        versions = sandbox.run_code("import numpy, pandas, matplotlib\n"
                                    "(numpy.__version__, pandas.__version__, matplotlib.__version__)")
        assert versions.error is None, versions.error
        assert versions.text == "('2.3.5', '2.2.3', '3.10.9')"

        frame = sandbox.run_code("import pandas as pd\npd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']})")
        [result] = frame.results
        assert result.is_main_result and result.data == {"a": [1, 2, 3], "b": ["x", "y", "z"]}
        assert "<table" in result.html

        plot = sandbox.run_code("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.show()")
        [figure] = plot.results
        assert figure.png and figure.text.startswith("<Figure size") and not figure.is_main_result


@pytest.mark.parametrize("name", ["code-interpreter", "code-interpreter-beta"])
def test_e2bs_older_names_give_the_same_template(code_interpreter, name):
    with Sandbox.create(name, timeout=60) as sandbox:
        assert "/templates/code-interpreter-v1/venv" in sandbox.run_code("import sys; sys.prefix").text


def test_the_default_and_base_stay_bare(code_interpreter):
    for name in (None, "base"):
        with Sandbox.create(name, timeout=60) as sandbox:
            missing = sandbox.run_code("import pandas")
            assert missing.error is not None and missing.error.name == "ModuleNotFoundError", name
