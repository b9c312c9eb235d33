"""The public Python API over the real sandbox: extract, scan, execute, evaluate, metrics, report."""

import json
import os

import pytest

import e2beval

FACTORIAL = """Sure! Here it is:

```python
def factorial(n):
    if n < 0:
        raise ValueError("negative")
    return 1 if n <= 1 else n * factorial(n - 1)
```
"""


def test_extract_returns_code_and_how_it_was_found():
    found = e2beval.extract(FACTORIAL, function_name="factorial")
    assert found["code"].startswith("def factorial(n):")
    assert found["language"] == "python"
    assert found["method"] == "fenced_block"
    assert found["blocks_used"] == [0]


def test_extract_without_code_raises_extraction_error():
    with pytest.raises(e2beval.ExtractionError, match="no code found"):
        e2beval.extract("I would rather not.")
    with pytest.raises(e2beval.Error):  # the common base catches every e2beval error
        e2beval.extract("")


def test_scan_reports_rule_line_and_column_and_ignores_strings():
    report = e2beval.scan("import os\nx = 'os.system'\nos.system('ls')\n")
    assert report["blocked"] is True
    rules = [(f["rule"], f["line"], f["column"]) for f in report["findings"]]
    assert ("os-system", 3, 1) in rules
    assert all(line != 2 for _, line, _ in rules)


def test_execute_runs_in_the_sandbox():
    result = e2beval.execute("import os\nprint(os.getuid(), os.getcwd())")
    assert result["outcome"] == "ok"
    assert result["stdout"] == "1000 /tmp\n"
    assert result["peak_memory_bytes"] > 0


def test_execute_hides_the_host_environment(monkeypatch):
    monkeypatch.setenv("E2B_API_KEY", "e2b_host_secret")
    result = e2beval.execute("import os\nprint(os.environ.get('E2B_API_KEY'))", env={"VISIBLE": "yes"})
    assert result["stdout"] == "None\n"
    assert e2beval.execute("import os\nprint(os.environ['VISIBLE'])", env={"VISIBLE": "yes"})["stdout"] == "yes\n"


def test_execute_timeout_and_limits():
    result = e2beval.execute("while True: pass", timeout=0.5, limits={"cpu_time_s": 30})
    assert result["outcome"] == "timeout"
    with pytest.raises(e2beval.InputError, match="valid limits are"):
        e2beval.execute("print(1)", limits={"wall": 1})


def test_execute_rejects_bad_text():
    with pytest.raises(e2beval.InputError, match="NUL"):
        e2beval.execute("print(1)\0")
    with pytest.raises(e2beval.InputError, match="UTF-8"):
        e2beval.execute(b"print('\xff')")
    with pytest.raises(e2beval.InputError, match="surrogate"):
        e2beval.execute("print('\udc80')")


def test_evaluate_tutorial_shapes():
    ok = e2beval.evaluate(FACTORIAL, {"function_name": "factorial", "test_input": "5", "expected_output": "120"})
    assert ok["pass"] is True and ok["score"] == 1.0 and ok["reason"] == "Correct output: 120"
    raised = e2beval.evaluate(FACTORIAL, {"function_name": "factorial", "test_input": "-3", "expected_error": "ValueError"})
    assert raised["pass"] is True and raised["reason"] == "Expected error: ValueError"
    cases = e2beval.evaluate(
        FACTORIAL,
        {"function_name": "factorial", "test_cases": [{"input": 0, "expected": 1}, {"input": 7, "expected": 5040}]},
    )
    assert [c["pass"] for c in cases["cases"]] == [True, True]


def test_evaluate_bad_vars_raise_input_error():
    with pytest.raises(e2beval.InputError, match="describe no test"):
        e2beval.evaluate(FACTORIAL, {"problem": "no test here"})
    with pytest.raises(e2beval.InputError, match="mapping"):
        e2beval.evaluate(FACTORIAL, ["not", "a", "mapping"])


def test_metrics_and_report_roundtrip(tmp_path):
    results = tmp_path / "results"
    path = e2beval.write_metrics("factorial", {"id": "echo", "label": "recorded"}, "m1", True, 0.5, results_dir=str(results))
    record = json.loads(open(path).read())
    # The tutorial's fields, plus the run that wrote the record (one id per process unless given).
    assert set(record) == {"task_id", "provider", "model", "success", "runtime_s", "memory_mb", "extra", "timestamp",
                           "run_id"}
    assert record["run_id"]
    assert record["provider"] == "recorded"
    report = tmp_path / "report.md"
    assert e2beval.gen_report(str(results), str(report)) == 1
    assert "| factorial | recorded | m1 | True | 0.500 |" in report.read_text()


def test_metrics_default_directory_follows_promptfoo_results_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMPTFOO_RESULTS_DIR", str(tmp_path / "env-dir"))
    path = e2beval.write_metrics("t", "p", "m", False, 1.0)
    assert os.path.dirname(path) == str(tmp_path / "env-dir")


def test_execute_many_keeps_order_and_isolates_failures():
    results = e2beval.execute_many(
        ["print(1)", {"code": "import sys\nprint(sys.stdin.read())", "stdin": "hi"}, {"code": "x", "env": {"A=B": "1"}},
         "raise SystemExit(4)"],
        jobs=3,
    )
    assert [r["outcome"] for r in results] == ["ok", "ok", "sandbox_error", "exit_nonzero"]
    assert results[0]["stdout"] == "1\n" and results[1]["stdout"] == "hi\n"
    assert "invalid environment variable name" in results[2]["detail"]
    with pytest.raises(e2beval.InputError, match="jobs"):
        e2beval.execute_many(["print(1)"], jobs=0)


def test_evaluate_many_runs_a_batch_and_one_bad_item_fails_alone():
    verdicts = e2beval.evaluate_many(
        [
            (FACTORIAL, {"function_name": "factorial", "test_input": "5", "expected_output": "120"}),
            {"output": FACTORIAL, "vars": {"function_name": "factorial"}},
            (FACTORIAL, {"function_name": "factorial", "test_input": "-1", "expected_error": "ValueError"}),
        ],
        jobs=2,
    )
    assert [v["pass"] for v in verdicts] == [True, False, True]
    assert verdicts[1]["reason"].startswith("Invalid test:")


def test_doctor_from_python():
    report = e2beval.doctor()
    assert report["enforced_level"] in ("full", "standard")
    assert [c["mechanism"] for c in report["checks"]][-1] == "sandbox probe"


def test_scan_policy_lists_and_rules():
    code = "import pickle\nx = eval('1 + 1')\n"
    assert e2beval.scan(code)["blocked"] is True
    assert e2beval.scan(code, allow_modules=["pickle"])["blocked"] is False  # eval alone is a warning
    denied = e2beval.scan(code, policy={"preset": "standard", "allow_modules": ["pickle"]}, deny_calls="eval")
    assert denied["blocked"] is True and "denied-call" in [f["rule"] for f in denied["findings"]]
    assert e2beval.scan(code, policy="tutorial")["blocked"] is True
    with pytest.raises(e2beval.InputError, match="unknown policy setting"):
        e2beval.scan(code, policy={"presets": "standard"})
    catalogue = e2beval.rules()
    assert {"id", "language", "tutorial", "standard", "strict", "summary"} <= set(catalogue[0])
    assert any(rule["id"] == "call-eval" and rule["standard"] == "warning" for rule in catalogue)


def test_extract_keeps_examples_only_when_asked():
    answer = "```python\ndef f(x):\n    return x\n\nprint(f(2))\n\nif __name__ == '__main__':\n    print('main')\n```"
    assert "print(f(2))" not in e2beval.extract(answer, "f")["code"]
    assert "print(f(2))" in e2beval.extract(answer, "f", keep_examples=True)["code"]
    assert "__main__" in e2beval.extract(answer, "f", keep_main=True)["code"]
