"""Python cells in IPython's own shell, as on E2B (its kernel is ipykernel): a template whose Python has IPython
(code-interpreter-v1, E2B's pins) runs each cell through InteractiveShell, so `!cmd`, magics, display(), rich
reprs, Out/_ and E2B's formatters (DataFrame `data`, figures as `png` with their `chart`, lists and dicts as
`json`, PIL images saved to a file) come back as E2B's server gives them. Through the official Python SDK
against a real `e2beval serve`, as users of E2B run them (issue 33)."""
import base64
import sys
from pathlib import Path

import pytest

from support.environment import environment

REPO = Path(__file__).resolve().parents[2]
sys.path.append(str(REPO / "tests" / "serve"))  # serve_process, imported by name, not tests/serve/conftest.py
from serve_process import ServeProcess  # noqa: E402


@pytest.fixture(scope="module")
def serve(code_interpreter):
    server = ServeProcess("--max-sandboxes", "3")
    with environment(server.env):
        yield server
        server.stop()


@pytest.fixture
def sandbox(serve, code_interpreter):
    from e2b_code_interpreter import Sandbox

    created = Sandbox.create(template=code_interpreter, timeout=180)
    yield created
    created.kill()


def stdout(execution) -> str:
    assert execution.error is None, execution.error
    return "".join(execution.logs.stdout)


def test_shell_escapes_and_magics(sandbox):
    # E2B's test_bash.py / test_cwd.py: `!pwd` in a Python cell is the shell's, in the cell's working directory
    # (E2B's is /home/user; which directory that is here is the file layout's business, not the kernel's).
    assert stdout(sandbox.run_code("!pwd")).strip() == sandbox.run_code("import os\nos.getcwd()").text
    assert sandbox.run_code("!exit 3\n_exit_code").text == "3"
    listed = sandbox.run_code("files = !ls /\nlen(files) > 3 and 'home' in files")
    assert listed.error is None and listed.text == "True"
    assert "per loop" in stdout(sandbox.run_code("%timeit -n1 -r1 sum(range(10))"))
    assert sandbox.run_code("%%bash\necho from bash\necho $((6 * 7))").logs.stdout == ["from bash\n42\n"]
    assert stdout(sandbox.run_code("%pip --version")).startswith("pip ")
    assert sandbox.run_code("%cd /tmp\nimport os\nos.getcwd()").text == "/tmp"


def test_values_display_and_rich_reprs(sandbox):
    assert sandbox.run_code("40 + 2").text == "42"
    assert sandbox.run_code("_ + 1").text == "43"  # IPython's output cache
    assert sandbox.run_code("Out[1] * 2").text == "84"
    assert sandbox.run_code("x = 1;").results == []  # a trailing semicolon hides the value, as in IPython
    rich = sandbox.run_code(
        "from IPython.display import HTML, Markdown, Latex, display\n"
        "class Card:\n    def _repr_html_(self): return '<b>card</b>'\n    def _repr_markdown_(self): return '**card**'\n"
        "display(HTML('<i>h</i>'))\ndisplay(Markdown('# m'))\ndisplay(Latex(r'$x^2$'))\nCard()")
    assert rich.error is None, rich.error
    assert [(result.is_main_result, result.html, result.markdown, result.latex) for result in rich.results] == [
        (False, "<i>h</i>", None, None), (False, None, "# m", None), (False, None, None, "$x^2$"),
        (True, "<b>card</b>", "**card**", None)]
    listed = sandbox.run_code("{'a': [1, 2.5, None], 3: 'x'}")
    assert listed.results[0].json == {"a": [1, 2.5, None], "3": "x"}  # E2B's JSON formatter for dicts and lists
    assert listed.text == "{'a': [1, 2.5, None], 3: 'x'}"


def test_e2b_formatters_for_data_figures_and_images(sandbox):
    frame = sandbox.run_code("import pandas as pd\npd.DataFrame({'x': [1, 2], 't': pd.to_datetime(['2024-01-01', "
                             "'2024-01-02'])})")
    assert frame.error is None, frame.error
    assert frame.results[0].data == {"x": [1, 2], "t": ["2024-01-01T00:00:00", "2024-01-02T00:00:00"]}
    assert "<table" in frame.results[0].html
    plot = sandbox.run_code("import matplotlib.pyplot as plt\nplt.bar(['a', 'b'], [3, 5])\nplt.title('T')\nplt.show()")
    assert plot.error is None, plot.error
    assert len(plot.results) == 1 and plot.results[0].is_main_result is False
    assert base64.b64decode(plot.results[0].png).startswith(b"\x89PNG")
    chart = plot.results[0].chart  # e2b_charts' extraction, which the SDK turns into its chart classes
    assert type(chart).__name__ == "BarChart" and chart.title == "T"
    assert [(bar.label, bar.value) for bar in chart.elements] == [("a", 3), ("b", 5)]
    left_open = sandbox.run_code("plt.plot([1, 2], [2, 1])\nNone")
    assert [bool(result.png) for result in left_open.results] == [True]  # flushed after the cell, as inline
    figure = sandbox.run_code("fig, ax = plt.subplots()\nax.plot([1, 2])\nplt.close(fig)\nfig")
    assert figure.results[0].is_main_result is True and figure.results[0].png
    image = sandbox.run_code("from PIL import Image\nImage.new('RGB', (4, 4), 'red').save('red.png')")
    assert image.error is None and len(image.results) == 1 and image.results[0].png  # E2B's 0003_images.py
    assert sandbox.files.exists("/home/user/red.png")


def test_errors_are_ipythons_and_show_nothing_of_the_kernel(sandbox):
    failed = sandbox.run_code("def f():\n    return 1 / 0\nf()")
    assert (failed.error.name, failed.error.value) == ("ZeroDivisionError", "division by zero")
    assert "Cell In[1], line 3" in failed.error.traceback and "----> 2     return 1 / 0" in failed.error.traceback
    syntax = sandbox.run_code("x = (")
    assert syntax.error.name == "SyntaxError"
    usage = sandbox.run_code("%no_such_magic")
    assert usage.error.name == "UsageError"
    from e2b.exceptions import TimeoutException

    with pytest.raises(TimeoutException):
        sandbox.run_code("import time\ntime.sleep(600)", timeout=2)
    after = sandbox.run_code("import signal, os\nos.kill(os.getpid(), signal.SIGINT)")
    assert after.error.name == "KeyboardInterrupt"
    assert "on_sigint" not in after.error.traceback and "<string>" not in after.error.traceback
    assert sandbox.run_code("'alive'").text == "alive"
    assert sandbox.run_code("exit()").error is None  # the context stays, as ipykernel's does
    assert sandbox.run_code("1").text == "1"


def test_the_shell_leaves_nothing_in_the_home_and_output_is_joined(sandbox):
    names = {entry.name for entry in sandbox.files.list("/home/user")}
    assert not {".ipython", "db"} & names, names
    assert sandbox.run_code("print(1)\nprint(2)").logs.stdout == ["1\n2\n"]
    assert sandbox.run_code("import sys\nprint('e', file=sys.stderr)\nprint('o')").logs.stderr == ["e\n"]
