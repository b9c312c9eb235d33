"""The HTTP requests verl's reward code makes to SandboxFusion (verl/utils/reward_score/sandbox_fusion/utils.py,
`call_sandbox_api` and `_process_single_case`), made here the same way against `e2beval serve`, and the same
response fields read and mapped to verl's verdicts: True (right), False (wrong answer), -2 (runtime error),
-3 (timeout), -4 (compile error), -1 (anything else). verl's files are not in this repository: the few lines of
its mapping are re-implemented below (`verl_verdict`), and docs/sandbox-fusion.md shows a run of verl's own code.

verl posts one request per test case with `requests.post(url, data=json.dumps(payload), headers=...)` (a new
connection each), `compile_timeout = run_timeout = timeout` (10 by default), `memory_limit_MB` 1024, `files` {} and
`fetch_files` [], `stdin` null when a case has none; it reads `status`, `compile_result.{status, return_code}` and
`run_result.{status, stdout, return_code}`.
"""
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

# The defaults: a burst of verl's size (its max_concurrent is 64 by default) must fit the default queue.
SERVE_OPTIONS = []

VERL_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def verl_post(endpoint, code, language, stdin, timeout=10, memory_limit_mb=1024):
    """verl's request, byte for byte the same JSON shape, and its transport: no session, its request timeout."""
    payload = json.dumps({"compile_timeout": timeout, "run_timeout": timeout, "code": code, "stdin": stdin,
                          "memory_limit_MB": memory_limit_mb, "language": language, "files": {}, "fetch_files": []})
    response = requests.post(endpoint + "/run_code", headers=VERL_HEADERS, data=payload, timeout=timeout * 2 + 10)
    assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:500]}"
    return response.json()


def verl_verdict(answer, expected_output):
    """verl's `_process_single_case` mapping of a response to a case's result."""
    compile_result, run_result = answer.get("compile_result"), answer.get("run_result")
    if answer["status"] == "Failed":
        if compile_result and (compile_result["status"] in ("Error", "TimeLimitExceeded")
                               or (compile_result["status"] == "Finished" and compile_result.get("return_code") != 0)):
            return -4
        if run_result and run_result["status"] == "TimeLimitExceeded":
            return -3
        if run_result and (run_result["status"] == "Error"
                           or (run_result["status"] == "Finished" and run_result.get("return_code") != 0)):
            return -2
        return -1
    if answer["status"] == "Success" and run_result and run_result["status"] == "Finished":
        stdout = run_result["stdout"] if run_result["stdout"] is not None else ""
        return expected_output is None or stdout.rstrip("\n") == str(expected_output).rstrip("\n")
    return -1


def assert_shape(answer):
    """What verl (and its multi-turn tool, which concatenates stdout + stderr) relies on."""
    assert answer["status"] in ("Success", "Failed", "SandboxError"), answer
    assert isinstance(answer["message"], str), answer
    for key in ("compile_result", "run_result"):
        result = answer[key]
        if result is not None:
            assert result["status"] in ("Finished", "Error", "TimeLimitExceeded"), answer
            assert isinstance(result["execution_time"], (int, float)), answer
            if result["status"] == "Finished":
                assert isinstance(result["return_code"], int), answer
                assert isinstance(result["stdout"], str) and isinstance(result["stderr"], str), answer
            if result["status"] == "TimeLimitExceeded":
                assert result["return_code"] is None, answer


PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
CPP_SUM = "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"

CASES = [
    # (name, language, code, stdin, expected output, timeout, verl's verdict)
    ("python right", "python", PY_SUM, "3 4\n", "7\n", 10, True),
    ("python wrong", "python", PY_SUM.replace("a + b", "a - b"), "3 4\n", "7\n", 10, False),
    ("python runtime error", "python", "raise ValueError('boom')\n", "3 4\n", "7\n", 10, -2),
    ("python syntax error (no compile stage)", "python", "def f(:\n", None, "7\n", 10, -2),
    ("python timeout", "python", "import time\ntime.sleep(30)\n", None, "7\n", 2, -3),
    ("python stdin null", "python", "import sys\nprint(f\"You said '{sys.stdin.readline().strip()}'\")\n", None,
     "You said ''", 10, True),
    ("cpp right", "cpp", CPP_SUM, "3 4\n", "7\n", 10, True),
    ("cpp wrong", "cpp", CPP_SUM.replace("a + b", "a * b"), "3 4\n", "7\n", 10, False),
    ("cpp compile error", "cpp", "int main() { return x; }\n", "3 4\n", "7\n", 10, -4),
    ("cpp compile error (verl's a=b)", "cpp", "\na=b\n", "input1", "output1\n", 10, -4),
    ("cpp runtime error", "cpp", "#include <cstdlib>\nint main() { std::abort(); }\n", "3 4\n", "7\n", 10, -2),
    ("cpp exit code", "cpp", "int main() { return 3; }\n", None, "", 10, -2),
    # a sleeping program: the limit is wall time, and CI's cores are left to the other tests
    ("cpp timeout", "cpp", "#include <unistd.h>\nint main() { sleep(30); }\n", None, "7\n", 3, -3),
]


@pytest.mark.parametrize("name,language,code,stdin,expected,timeout,verdict", CASES, ids=[c[0] for c in CASES])
def test_verl_request(endpoint, name, language, code, stdin, expected, timeout, verdict):
    answer = verl_post(endpoint, code, language, stdin, timeout=timeout)
    assert_shape(answer)
    assert verl_verdict(answer, expected) == verdict, json.dumps(answer)[:2000]
    if verdict == -4:  # verl's -4 needs the compile result, and no run
        assert answer["compile_result"]["return_code"] != 0 and answer["run_result"] is None, answer
    if language == "python":  # SandboxFusion runs Python with no compile stage: a syntax error is verl's -2
        assert answer["compile_result"] is None, answer
    if verdict is True and stdin is None:
        assert answer["run_result"]["stdout"] == "You said ''\n"


def test_verl_burst_of_64(endpoint):
    """verl's default max_concurrent: 64 cases in flight at once, each on its own connection; every one answered
    (a 503 would be a lost case for verl, which retries 504 only), in order, with the right verdict."""
    code = "n = int(input())\nprint(n * n if n % 8 else -1)\n"
    cases = [(str(n), str(n * n)) for n in range(1, 65)]
    with ThreadPoolExecutor(64) as pool:
        answers = list(pool.map(lambda case: verl_post(endpoint, code, "python", case[0] + "\n"), cases))
    verdicts = [verl_verdict(answer, expected) for answer, (_, expected) in zip(answers, cases)]
    for answer in answers:
        assert_shape(answer)
    assert verdicts == [n % 8 != 0 for n in range(1, 65)], [a for a, v in zip(answers, verdicts) if v not in (True, False)][:3]
