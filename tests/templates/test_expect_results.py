"""The promptfoo assertion's `expect_results` (docs/promptfoo.md, "Rich results"): the answer runs as one cell of a
session in the config's template and must display what the config expects. Called as promptfoo calls it
(get_assert(output, context)), graded in this process (E2BEVAL_DAEMON=0; the daemon's path is the same grade(), run
under real promptfoo by test_template_sdk_and_promptfoo.py), against real sandboxes."""
import base64
import json

import pytest

from e2beval import promptfoo, report, rich_results

PLOT = """```python
import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [3, 1, 2])
plt.show()
```"""


@pytest.fixture(autouse=True)
def in_this_process(monkeypatch):
    monkeypatch.setenv("E2BEVAL_DAEMON", "0")


def grade(output, config, vars=None, results_dir=None):
    config = {"metrics": False, **config} if results_dir is None else {**config, "results_dir": str(results_dir)}
    return promptfoo.get_assert(output, {"vars": vars or {"task": "plot"}, "config": config})


def test_a_plot_passes_and_its_png_is_in_the_metadata_and_the_metrics_record(data_science, tmp_path):
    graded = grade(PLOT, {"template": data_science, "expect_results": ["png"]}, results_dir=tmp_path)
    assert graded["pass"] is True, graded["reason"]
    assert graded["reason"].startswith("The cell produced a png result (all results: "), graded["reason"]
    [png] = graded["metadata"]["png_results"]
    assert base64.b64decode(png).startswith(b"\x89PNG\r\n\x1a\n")
    assert any("png" in kinds for kinds in graded["metadata"]["results"])
    [record_file] = tmp_path.glob("*.json")
    record = json.loads(record_file.read_text())
    assert record["success"] is True
    assert record["extra"]["png_results"] == [png]

    # The HTML report of that run shows the plot inline in the case's detail.
    page = tmp_path / "report.html"
    assert report.gen_report(tmp_path, page, format="html") == 1
    assert f'<img src="data:image/png;base64,{png}"' in page.read_text(encoding="utf-8")


def test_an_answer_that_draws_nothing_fails_naming_what_was_expected_and_produced(data_science):
    printed = grade("```python\nprint('y = 2x')\n```", {"template": data_science, "expect_results": ["png"]})
    assert printed["pass"] is False
    assert printed["reason"] == "expected a png result; the cell produced: no results"
    assert printed["metadata"]["stdout"] == "y = 2x\n"

    frame = grade("```python\nimport pandas as pd\npd.DataFrame({'x': [1, 2]})\n```",
                  {"template": data_science, "expect_results": {"png": 1, "data": 1}})
    assert frame["pass"] is False
    assert frame["reason"].startswith("expected a png result; the cell produced: "), frame["reason"]
    assert "data" in frame["reason"].split("produced: ")[1]

    two = grade(PLOT, {"template": data_science, "expect_results": {"png": 2}})
    assert two["pass"] is False
    assert two["reason"].startswith("expected 2 png results; the cell produced: "), two["reason"]


def test_a_cell_that_raises_fails_with_the_error(data_science):
    graded = grade("```python\nimport matplotlib.pyplot as plt\nplt.plot([1])\n1 / 0\n```",
                   {"template": data_science, "expect_results": ["png"]})
    assert graded["pass"] is False
    assert graded["reason"].startswith("Execution error: ZeroDivisionError: division by zero (expected a png result"), \
        graded["reason"]


def test_with_a_test_shape_the_tests_run_first_and_the_cell_includes_test_code(data_science):
    answer = ("```python\nimport matplotlib.pyplot as plt\n\ndef draw(points):\n    plt.plot(points)\n    plt.show()\n"
              "    return len(points)\n```")
    vars = {"testCode": "print(draw([1, 4, 2]))", "expectedOutput": "3"}
    config = {"template": data_science, "expect_results": ["png"]}
    both = grade(answer, config, vars)
    assert both["pass"] is True, both["reason"]
    assert both["componentResults"][-1]["reason"].startswith("rich results: The cell produced a png result")
    assert len(both["metadata"]["png_results"]) == 1

    undrawn = grade(answer.replace("    plt.show()\n", "    plt.close()\n"), config, vars)
    assert undrawn["pass"] is False
    assert undrawn["score"] == 0.5  # its one test case passed, the rich results did not
    assert undrawn["reason"] == "expected a png result; the cell produced: no results"

    wrong = grade(answer.replace("len(points)", "len(points) + 1"), config, vars)
    assert wrong["pass"] is False
    assert wrong["reason"].startswith("Expected 3, got 4"), wrong["reason"]
    assert "png_results" not in wrong["metadata"]  # a failed test is reason enough: the cell never ran


def test_blocked_code_never_runs_in_a_cell(data_science):
    graded = grade("```python\nimport os\nos.system('id')\n```", {"template": data_science, "expect_results": ["png"]})
    assert graded["pass"] is False
    assert graded["reason"].startswith("Unsafe pattern detected in generated code: os-system")
    assert graded["namedScores"]["safety"] == 0.0
    assert "png_results" not in graded["metadata"]


def test_config_errors_name_the_valid_kinds(data_science):
    graded = grade(PLOT, {"expect_results": ["png", "plot"]})
    assert graded["pass"] is False
    assert graded["reason"] == ("Invalid e2beval config: expect_results: unknown result kind 'plot'; valid kinds: "
                                "text, html, markdown, svg, png, jpeg, pdf, latex, json, javascript, data, chart")
    unknown = grade(PLOT, {"template": "no-such-template", "expect_results": ["png"]})
    assert unknown["reason"].startswith("Invalid test: unknown template 'no-such-template'"), unknown["reason"]
    provider = promptfoo.call_api(PLOT, {"config": {"expect_results": ["png"]}})
    assert provider["error"].startswith("Invalid e2beval config: expect_results is an assertion setting")


def test_png_results_are_bounded_per_case_with_a_note_the_report_shows(data_science, tmp_path):
    six = "```python\nimport matplotlib.pyplot as plt\nfor n in range(6):\n    plt.plot([n, 1])\n    plt.show()\n```"
    graded = grade(six, {"template": data_science, "expect_results": {"png": 6}}, results_dir=tmp_path)
    assert graded["pass"] is True, graded["reason"]
    assert len(graded["metadata"]["png_results"]) == rich_results.PNG_RESULTS_PER_CASE == 4
    assert graded["metadata"]["png_results_note"] == "2 more PNG result(s) not kept (at most 4 per case)"
    page = tmp_path / "report.html"
    report.gen_report(tmp_path, page, format="html")
    html = page.read_text(encoding="utf-8")
    assert html.count('<img src="data:image/png;base64,') == 4
    assert "2 more PNG result(s) not kept (at most 4 per case)" in html


def test_png_bounds_drop_oversized_images_and_what_is_not_base64():
    small = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 100).decode()
    huge = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * rich_results.PNG_RESULT_MAX_BYTES).decode()
    kept, note = rich_results.png_results_bounded([small, huge, "not base64!", small])
    assert kept == [small, small]
    assert note == "1 PNG result(s) over 1 MiB not kept"
