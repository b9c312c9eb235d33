"""The data-science template through the other faces: the official e2b_code_interpreter SDK against a real
`e2beval serve` (templateID), and the promptfoo example of examples/templates under a real `promptfoo eval`."""
import base64
import sys
from pathlib import Path

import pytest

from support.environment import environment

REPO = Path(__file__).resolve().parents[2]
sys.path.append(str(REPO / "tests" / "serve"))  # serve_process, imported by name, not tests/serve/conftest.py
from serve_process import ServeProcess  # noqa: E402


@pytest.fixture(scope="module")
def serve(data_science):
    server = ServeProcess("--max-sandboxes", "3")
    with environment(server.env):
        yield server
        server.stop()


def test_official_sdk_gets_png_and_data_from_a_template(serve, data_science):
    from e2b_code_interpreter import Sandbox

    sandbox = Sandbox.create(template=data_science, timeout=120)
    try:
        plot = sandbox.run_code("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [4, 1, 5])\nplt.show()")
        assert plot.error is None, plot.error
        assert len(plot.results) == 1 and plot.results[0].png, plot.results
        assert base64.b64decode(plot.results[0].png).startswith(b"\x89PNG")
        assert plot.results[0].is_main_result is False
        frame = sandbox.run_code("import pandas as pd\npd.DataFrame({'x': [1, 2], 'y': ['a', 'b']})")
        assert frame.error is None, frame.error
        assert frame.results[0].is_main_result is True
        assert frame.results[0].data == {"x": [1, 2], "y": ["a", "b"]}
        assert "<table" in frame.results[0].html
    finally:
        sandbox.kill()


def test_official_sdk_default_and_unknown_templates(serve):
    from e2b_code_interpreter import Sandbox
    from e2b.exceptions import SandboxException

    sandbox = Sandbox.create(template="base", timeout=30)
    try:
        assert "/templates/" not in sandbox.run_code("import sys; sys.prefix").text
    finally:
        sandbox.kill()
    with pytest.raises(SandboxException, match=r"404.*template 'no-such-template' not found.*data-science"):
        Sandbox.create(template="no-such-template", timeout=30)


def test_promptfoo_data_science_example_runs_in_the_template(data_science, tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "integration"))
    try:
        from _support import require_importable_e2beval, run_promptfoo
    finally:
        sys.path.pop(0)
    require_importable_e2beval()
    run = run_promptfoo(REPO / "examples" / "templates" / "promptfooconfig.yaml", tmp_path)
    assert run.proc.returncode == 100, run.log  # one wrong answer, one plot never drawn
    assert (run.stats["successes"], run.stats["failures"]) == (2, 2), run.log
    good = run.row("Data Science Code Evaluation: correlation of two DataFrame columns")
    assert good["success"] is True, run.log
    wrong = run.row("Data Science Code Evaluation: correlation (covariance instead)")
    assert wrong["success"] is False
    assert "Expected 0.7746, got 1.5" in wrong["gradingResult"]["reason"], wrong["gradingResult"]["reason"]

    # expect_results: [png] — the plot's cell displayed a PNG, which the assertion's metadata carries.
    plot = run.row("Data Science Code Evaluation: scatter plot of two DataFrame columns")
    assert plot["success"] is True, plot["gradingResult"]
    own = plot["gradingResult"]["componentResults"][0]
    assert own["reason"].startswith("The cell produced a png result"), own["reason"]
    [png] = own["metadata"]["png_results"]
    assert base64.b64decode(png).startswith(b"\x89PNG")
    drawn_nothing = run.row("Data Science Code Evaluation: scatter plot (numbers printed, nothing drawn)")
    assert drawn_nothing["success"] is False
    assert drawn_nothing["gradingResult"]["reason"] == "expected a png result; the cell produced: no results"

    # The HTML report of promptfoo's -o JSON shows the plot in that case's detail.
    from e2beval import report
    page = tmp_path / "report.html"
    report.gen_report(run.out_json, page, format="html")
    assert f'<img src="data:image/png;base64,{png}"' in page.read_text(encoding="utf-8")


def test_promptfoo_assertion_with_an_unknown_template_fails_saying_so(tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "integration"))
    try:
        from _support import run_promptfoo
    finally:
        sys.path.pop(0)
    example = (REPO / "examples" / "templates" / "promptfooconfig.yaml").read_text(encoding="utf-8")
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(example.replace("template: data-science", "template: no-such-template"), encoding="utf-8")
    for name in ("recorded_answer.txt", "e2beval_assert.py"):
        (tmp_path / name).write_text((REPO / "examples" / "templates" / name).read_text(encoding="utf-8"))
    work = tmp_path / "work"
    work.mkdir()
    run = run_promptfoo(config, work)
    for row in run.rows:
        assert row["success"] is False
        assert "unknown template 'no-such-template'" in (row["gradingResult"] or {}).get("reason", "") + str(row.get("error")), run.log
