"""SandboxFusion's /run_jupyter on `e2beval serve`, through the official client: the cells of a request share one
Python session, each cell's stdout, stderr, displayed results and errors come back, a failing cell does not stop
the next, cell_timeout and total_timeout hold, files go in and come out (docs/sandbox-fusion.md)."""
import base64

import requests
from sandbox_fusion import RunJupyterRequest, RunStatus, run_jupyter


def test_sandbox_fusions_own_cases(endpoint):
    # sandbox/tests/runners/test_jupyter.py upstream.
    result = run_jupyter(RunJupyterRequest(cells=['a = "hello"', "a", "print(a)"]), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result
    assert len(result.cells) == 3
    assert result.cells[1].display[0]["text/plain"] == "'hello'"
    assert result.cells[2].stdout == "hello\n"
    assert result.driver.status == "Finished" and result.driver.return_code == 0


def test_an_error_cell_then_a_good_one(endpoint):
    cells = ["x = 41", "assert False", "import sys; sys.stderr.write('warned')", "x + 1"]
    result = run_jupyter(RunJupyterRequest(cells=cells), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success
    assert result.cells[0].error == [] and result.cells[0].display == []
    assert result.cells[1].error[0]["ename"] == "AssertionError"
    assert isinstance(result.cells[1].error[0]["traceback"], list)
    assert result.cells[2].stderr == "warned"
    assert result.cells[3].display[0]["text/plain"] == "42"  # the session kept x after the failing cell


def test_a_cell_past_cell_timeout_is_stopped_and_the_next_runs(endpoint):
    cells = ["import time", "time.sleep(60)", "print('after')"]
    result = run_jupyter(RunJupyterRequest(cells=cells, cell_timeout=1, total_timeout=120), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result
    assert result.cells[1].error[0]["ename"] == "TimeoutError"
    assert result.cells[2].stdout == "after\n"


def test_total_timeout_ends_the_request_as_failed(endpoint):
    cells = ["print('first')", "import time; time.sleep(60)", "print('never')"]
    answer = requests.post(endpoint + "/run_jupyter", json={"cells": cells, "total_timeout": 2}, timeout=120).json()
    assert answer["status"] == "Failed", answer
    assert answer["driver"]["status"] == "TimeLimitExceeded" and answer["driver"]["return_code"] is None
    assert answer["cells"][0]["stdout"] == "first\n"
    assert len(answer["cells"]) == 2  # the third never ran
    assert "total_timeout" in answer["message"]


def test_files_in_and_out(endpoint):
    binary = bytes(range(256))
    cells = ["import pathlib",
             "data = pathlib.Path('in/deep/blob.bin').read_bytes(); len(data)",
             "pathlib.Path('out').mkdir(); pathlib.Path('out/copy.bin').write_bytes(data[::-1])"]
    result = run_jupyter(RunJupyterRequest(cells=cells, files={"in/deep/blob.bin": base64.b64encode(binary).decode()},
                                           fetch_files=["out/copy.bin", "missing.txt"]),
                         endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result
    assert result.cells[1].display[0]["text/plain"] == "256"
    assert base64.b64decode(result.files["out/copy.bin"]) == binary[::-1]
    assert "missing.txt" not in result.files


def test_a_kernel_other_than_python3_is_refused(endpoint):
    answer = requests.post(endpoint + "/run_jupyter", json={"cells": ["1"], "kernel": "ir"}, timeout=30)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "kernel"]
