"""code-interpreter-v1, the official SDK's default template, is E2B's environment under `e2beval serve`: the
built-in template with E2B's packages (docs/templates.md), built before the server listens (here: once per test
run, tests/template_cache.py). What code-interpreter's own tests (test_data, test_display_data, charts/, images/)
ask of it, through the official SDK: a DataFrame's `data`, a plot's PNG as display data, an image's PNG; "base"
stays the bare environment, and `--bare-code-interpreter` serves code-interpreter-v1 bare."""
import os
import subprocess

from serve_process import ServeProcess, serve_binary
from e2b_code_interpreter import Sandbox

from support.environment import environment


def test_the_default_template_is_e2bs_environment(sandbox):
    assert sandbox.get_info().template_id == "code-interpreter-v1"
    versions = sandbox.run_code("import numpy, pandas, matplotlib, sklearn, scipy\n"
                                "(numpy.__version__, pandas.__version__, matplotlib.__version__)")
    assert versions.error is None, versions.error
    assert versions.text == "('2.3.5', '2.2.3', '3.10.9')"
    assert "/templates/code-interpreter-v1/venv" in sandbox.commands.run("python -c 'import sys; print(sys.prefix)'").stdout


def test_a_dataframe_gives_its_data(sandbox):
    execution = sandbox.run_code("import pandas as pd\npd.DataFrame({'a': [1, 2, 3]})")
    [result] = execution.results
    assert result.is_main_result
    assert result.data == {"a": [1, 2, 3]}
    assert "data" in result.formats() and "html" in result.formats()


def test_a_plot_shown_is_display_data_with_its_png(sandbox):
    execution = sandbox.run_code("import matplotlib.pyplot as plt\nimport numpy as np\n"
                                 "x = np.linspace(0, 20, 100)\nplt.plot(x, np.sin(x))\nplt.show()")
    [result] = execution.results
    assert not result.is_main_result
    assert result.png and result.text.startswith("<Figure size")
    assert not result.extra


def test_an_image_as_the_last_expression_gives_its_png(sandbox):
    execution = sandbox.run_code("from PIL import Image\nImage.new('RGB', (8, 8), 'red')")
    [result] = execution.results
    assert result.is_main_result and result.png


def test_a_bar_plot_gives_its_chart(sandbox):
    execution = sandbox.run_code("import matplotlib.pyplot as plt\nplt.bar(['a', 'b'], [1, 2])\nplt.show()")
    [result] = execution.results
    assert result.chart is not None and result.chart.type.value == "bar"


def test_base_stays_the_bare_environment(serve):
    sandbox = Sandbox.create("base", timeout=60)
    try:
        assert sandbox.get_info().template_id == "base"
        missing = sandbox.run_code("import pandas")
        assert missing.error is not None and missing.error.name == "ModuleNotFoundError"
    finally:
        sandbox.kill()


def test_bare_code_interpreter_serves_the_default_template_bare():
    server = ServeProcess("--max-sandboxes", "2", "--bare-code-interpreter")
    with environment(server.env):
        try:
            sandbox = Sandbox.create(timeout=60)
            try:
                assert sandbox.get_info().template_id == "code-interpreter-v1"
                assert "/templates/" not in sandbox.run_code("import sys; sys.prefix").text
                assert sandbox.run_code("import pandas").error.name == "ModuleNotFoundError"
            finally:
                sandbox.kill()
        finally:
            assert server.stop() == 0


def test_a_server_whose_template_cannot_be_built_says_how_to_serve_without_it(tmp_path):
    """A first start where pip cannot install (here: no index at all) stops before listening, with pip's error and
    the way out, and keeps nothing half-built."""
    env = {name: value for name, value in os.environ.items() if name != "PIP_FIND_LINKS"}
    env.update({"E2BEVAL_CACHE_DIR": str(tmp_path / "cache"), "PIP_NO_INDEX": "1"})
    started = subprocess.run([serve_binary(), "serve", "--port", "0"], env=env, capture_output=True, text=True,
                             timeout=600)
    assert started.returncode == 125, started.stderr
    assert started.stdout == "", "it printed export lines, so it listened"
    assert "No matching distribution found" in started.stderr
    assert "building template 'code-interpreter-v1' failed" in started.stderr
    assert "`e2beval serve --bare-code-interpreter` serves without it" in started.stderr
    assert [path.name for path in (tmp_path / "cache" / "templates").iterdir() if not path.name.startswith(".")] == []
