"""A session in the data-science template returns what E2B's code interpreter returns: a PNG result for a
matplotlib plot shown with plt.show() (and for a figure left open at the end of a cell), and `data` (with html)
for a pandas DataFrame; one-shot executions and `e2beval run --template` use the same environment."""
import base64
import subprocess

import pytest

import e2beval
from e2beval import Sandbox

from .conftest import cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

PLOT = """
import matplotlib.pyplot as plt
import numpy as np
x = np.linspace(0, 20, 100)
plt.plot(x, np.sin(x))
plt.show()
plt.plot(x, np.cos(x))
plt.show()
"""


@pytest.fixture(scope="module")
def sandbox(data_science):
    with Sandbox.create(data_science, timeout=120) as sandbox:
        yield sandbox


def test_plt_show_gives_one_png_result_per_figure(sandbox):
    execution = sandbox.run_code(PLOT)
    assert execution.error is None, execution.error
    pngs = [result for result in execution.results if result.png]
    assert len(pngs) == 2, execution.results  # two plt.show() calls, two figures, as in a notebook
    for result in pngs:
        assert base64.b64decode(result.png).startswith(PNG_SIGNATURE)
        assert result.is_main_result is False  # display data, as the inline backend sends it
        assert result.text.startswith("<Figure size")
    assert "png" in pngs[0].formats()


def test_a_figure_left_open_is_shown_at_the_end_of_the_cell(sandbox):
    execution = sandbox.run_code("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.bar(['a', 'b'], [3, 5])\nNone")
    assert execution.error is None, execution.error
    assert len([result for result in execution.results if result.png]) == 1, execution.results
    # Shown once: the next cell has no figure left over.
    assert sandbox.run_code("1 + 1").results[0].png is None


def test_a_dataframe_gives_data_and_html(sandbox):
    execution = sandbox.run_code("import pandas as pd\npd.DataFrame({'a': [1, 2, 3], 'b': [0.5, None, 2.0], 'c': ['x', 'y', 'z']})")
    assert execution.error is None, execution.error
    main = [result for result in execution.results if result.is_main_result]
    assert len(main) == 1, execution.results
    result = main[0]
    # E2B's e2b/data formatter: to_dict(orient="list"); NaN becomes null (JSON has no NaN).
    assert result.data == {"a": [1, 2, 3], "b": [0.5, None, 2.0], "c": ["x", "y", "z"]}
    assert "<table" in result.html
    assert "a" in result.text and "c" in result.text


def test_display_of_a_dataframe_is_not_the_main_result(sandbox):
    execution = sandbox.run_code("import pandas as pd\ndisplay(pd.DataFrame({'n': [7]}))\n'done'")
    shown = [result for result in execution.results if not result.is_main_result]
    assert [result.data for result in shown] == [{"n": [7]}]
    assert execution.text == "'done'"


def test_the_template_is_read_only_and_its_python_is_the_sessions(sandbox, data_science):
    prefix = sandbox.run_code("import sys; sys.prefix").text.strip("'")
    assert prefix.endswith(f"/templates/{data_science}/venv"), prefix
    attempt = sandbox.run_code(f"open({prefix!r} + '/new-file', 'w')")
    assert attempt.error is not None and "Read-only file system" in attempt.error.value
    # Commands find the template's Python first on PATH, as in a template with packages installed.
    assert sandbox.commands.run("python -c 'import pandas; print(pandas.__version__)'").stdout.strip() == "2.2.2"


def test_one_shot_execution_in_the_template(data_science):
    code = "import numpy, pandas, matplotlib\nprint(numpy.__version__, pandas.__version__, matplotlib.__version__)"
    for pool in (True, False):  # a warm zygote of the template, and a cold sandbox
        result = e2beval.execute(code, template=data_science, pool=pool)
        assert result["outcome"] == "ok", result
        assert result["stdout"].split() == ["1.26.4", "2.2.2", "3.8.4"]
    default = e2beval.execute("import sys; print(sys.prefix)")
    assert "/templates/" not in default["stdout"]


def test_cli_run_with_a_template(data_science, tmp_path):
    program = tmp_path / "corr.py"
    program.write_text("import pandas as pd\nprint(round(pd.Series([1, 2, 3]).corr(pd.Series([2, 4, 7])), 3))\n")
    run = subprocess.run([cli(), "run", "--template", data_science, str(program)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0.993"


def test_every_sandbox_of_a_template_runs_in_it_also_the_pooled_ones(data_science):
    # The first sandbox of a kind starts on its own and asks the pool to keep one like it ready; the later ones
    # come from that pool, which once started them in the default environment (the template was not kept).
    for attempt in range(3):
        with Sandbox.create(data_science, timeout=60) as sandbox:
            prefix = sandbox.run_code("import sys; sys.prefix").text
            assert f"/templates/{data_science}/venv" in prefix, (attempt, prefix)
