"""SandboxFusion's dataset API on `e2beval serve` (docs/sandbox-fusion-datasets.md), driven by the official client
`sandbox-fusion` 0.3.7 (submit, get_prompts, get_prompt_by_id) and, for what the client has no function for or
does not let through (the 400/404/405/422 answers, /list_datasets, /list_ids), by `requests`.

Rows: HumanEval and MultiPL-E from ../shared/datasets (never committed; the module fails, naming the path, where
they are absent), and three stdin/stdout problems of our own (data/stdio_problems.jsonl)."""
import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import requests
from sandbox_fusion import (GetPromptByIdRequest, GetPromptsRequest, SubmitRequest, TestConfig, get_prompt_by_id,
                            get_prompts, run_concurrent, submit, submit_safe)

from support import multipl_e

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
HUMANEVAL = DATASETS / "HumanEval.jsonl.gz"
STDIO = Path(__file__).parent / "data" / "stdio_problems.jsonl"
# SandboxFusion's ids for the MultiPL-E files (its own test names them after the file: humaneval-<ext>.jsonl).
MULTIPL_E_IDS = {"cpp": "multiple_cpp", "go": "multiple_go", "java": "multiple_java", "js": "multiple_js",
                 "rs": "multiple_rs", "sh": "multiple_sh", "ts": "multiple_ts"}

if not HUMANEVAL.exists() or not multipl_e.DATASET_DIR.is_dir():
    # A failure, not a skip: the test command runs beside ../shared (as tests/integration/test_multipl_e.py says too).
    pytest.fail(f"the shared datasets are not at {DATASETS} (HumanEval.jsonl.gz, multipl-e/): the workplace's "
                "shared/datasets must be beside the repository (../shared/datasets/README.md)", pytrace=False)

SERVE_OPTIONS = ["--dataset", f"humaneval_python={HUMANEVAL}", "--dataset", f"code_contests={STDIO}",
                 "--dataset", f"my_problems={STDIO}"]
for _extension, _name in MULTIPL_E_IDS.items():
    SERVE_OPTIONS += ["--dataset", f"{_name}={multipl_e.dataset(_extension)}"]


def read_rows(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as lines:
        return [json.loads(line) for line in lines if line.strip()]


HUMANEVAL_ROWS = {row["task_id"]: row for row in read_rows(HUMANEVAL)}


def post(endpoint, route, body):
    return requests.post(f"{endpoint}/{route}", json=body, timeout=120)


def submit_once(endpoint, **fields):
    """The official client's submit with one attempt: a refusal shows at once instead of after its ~15 s of retries."""
    return submit(SubmitRequest(**fields), endpoint=endpoint, max_attempts=1)


# ---------------------------------------------------------------------------------------------------- prompts, ids

def test_list_datasets_names_the_registered_ones_first(endpoint):
    answer = requests.get(f"{endpoint}/list_datasets", timeout=30)
    assert answer.status_code == 200
    names = answer.json()
    assert names[:3] == ["humaneval_python", "code_contests", "my_problems"]
    assert "multiple_rs" in names and "humaneval_cpp" in names  # SandboxFusion's ids, usable with provided_data
    assert "mbpp" not in names  # a class e2beval does not serve
    assert "multiple_lua" not in names  # a language e2beval does not run
    assert len(names) == len(set(names))


def test_get_prompts_from_a_registered_dataset(endpoint):
    prompts = get_prompts(GetPromptsRequest(dataset="humaneval_python", config=TestConfig(), offset=2, limit=3),
                          endpoint=endpoint)
    assert [p.id for p in prompts] == ["HumanEval/2", "HumanEval/3", "HumanEval/4"]
    row = HUMANEVAL_ROWS["HumanEval/2"]
    assert prompts[0].prompt == row["prompt"]
    assert prompts[0].labels["canonical_solution"] == row["canonical_solution"]
    assert "prompt" not in prompts[0].labels
    everything = get_prompts(GetPromptsRequest(dataset="humaneval_python", config=TestConfig()), endpoint=endpoint)
    assert len(everything) == 164


def test_free_form_prompt_is_fenced_with_the_instruction(endpoint):
    prompt = get_prompt_by_id(GetPromptByIdRequest(dataset="multiple_rs", id="HumanEval_53_add",
                                                   config=TestConfig(extra={"is_freeform": True})), endpoint=endpoint)
    row = multipl_e.row("rs", "HumanEval_53")
    assert prompt.id == "HumanEval_53_add"
    assert prompt.prompt.startswith("```rust\n" + row["prompt"] + "\n```\n\nPlease complete the above code")
    assert prompt.labels["tests"] == row["tests"]


def test_prompts_and_ids_from_provided_data(endpoint):
    rows = [HUMANEVAL_ROWS["HumanEval/0"], HUMANEVAL_ROWS["HumanEval/7"]]
    # offset and limit do not apply to provided rows, as upstream.
    prompts = get_prompts(GetPromptsRequest(dataset="anything", offset=1, limit=1,
                                            config=TestConfig(dataset_type="HumanEvalDataset", provided_data=rows)),
                          endpoint=endpoint)
    assert [p.id for p in prompts] == ["HumanEval/0", "HumanEval/7"]
    ids = post(endpoint, "list_ids", {"dataset": "anything",
                                      "config": {"dataset_type": "HumanEvalDataset", "provided_data": rows}})
    assert ids.status_code == 200 and ids.json() == ["HumanEval/0", "HumanEval/7"]
    one = get_prompt_by_id(GetPromptByIdRequest(dataset="anything", id=12345,
                                                config=TestConfig(dataset_type="HumanEvalDataset", provided_data=rows[1])),
                           endpoint=endpoint)
    assert one.id == "HumanEval/7" and one.prompt == rows[1]["prompt"]


def test_list_ids_of_a_registered_dataset(endpoint):
    ids = post(endpoint, "list_ids", {"dataset": "my_problems", "config": {}})
    assert ids.status_code == 200 and ids.json() == ["sum_two", "third", 7]


def test_stdio_prompt_has_the_language_instruction_and_labels(endpoint):
    prompt = get_prompt_by_id(GetPromptByIdRequest(dataset="code_contests", id="sum_two",
                                                   config=TestConfig(language="python")), endpoint=endpoint)
    assert prompt.prompt == ("Read two integers a and b on one line and print a + b.\n\nPlease implement a complete "
                             "Python script. Your program should read input from standard input and write output to "
                             "standard output.")
    assert prompt.labels == {"difficulty": "easy", "tags": ["math"]}  # a JSON string in the row
    # An integer id and its string form are the same id.
    assert get_prompt_by_id(GetPromptByIdRequest(dataset="code_contests", id="7", config=TestConfig()),
                            endpoint=endpoint).id == 7


# ----------------------------------------------------------------------------------------------- HumanEval /submit

@pytest.mark.parametrize("task", ["HumanEval/0", "HumanEval/13", "HumanEval/35"])
def test_humaneval_canonical_solution_accepted_as_a_continuation(endpoint, task):
    row = HUMANEVAL_ROWS[task]
    # The trailing definition is cut at the first top-level line, as upstream's own test checks.
    result = submit_once(endpoint, dataset="humaneval_python", id=task,
                         completion=row["canonical_solution"] + "\n\ndef random():\n    raise SystemExit(1)\n",
                         config=TestConfig())
    assert result.accepted, result.tests[0].exec_info
    assert result.id == task
    assert result.extracted_code.rstrip() == row["canonical_solution"].rstrip() and "random" not in result.extracted_code
    assert result.full_code.endswith(f"\ncheck({row['entry_point']})")
    assert "except ImportError" in result.full_code  # numpy's import is guarded
    assert len(result.tests) == 1 and result.tests[0].passed
    assert result.tests[0].exec_info.status == "Success"
    assert result.tests[0].exec_info.run_result.return_code == 0


def test_concurrent_submissions_each_get_their_own_verdict(endpoint):
    # 16 at once through the client's own thread pool: every answer judged against its own row, in input order.
    tasks = [f"HumanEval/{number}" for number in range(16)]
    wrong = {"HumanEval/3", "HumanEval/11"}  # given another task's solution
    calls = [SubmitRequest(dataset="humaneval_python", id=task, config=TestConfig(),
                           completion=HUMANEVAL_ROWS["HumanEval/35" if task in wrong else task]["canonical_solution"])
             for task in tasks]
    results = run_concurrent(submit, args=[[call] for call in calls],
                             kwargs=[{"endpoint": endpoint, "max_attempts": 1}] * len(calls), concurrency=16)
    assert [result.id for result in results] == tasks
    assert {result.id for result in results if not result.accepted} == wrong


def test_humaneval_free_form_answer_accepted(endpoint):
    row = HUMANEVAL_ROWS["HumanEval/2"]
    answer = ("Here is your answer:\n```python\n" + row["prompt"] + row["canonical_solution"] +
              "\n```\nIt returns the decimal part.")
    result = submit_once(endpoint, dataset="humaneval_python", id="HumanEval/2", completion=answer,
                         config=TestConfig(extra={"is_freeform": True}))
    assert result.accepted, result.tests[0].exec_info
    assert result.extracted_type == "fenced"
    assert "def truncate_number" in result.extracted_code


def test_humaneval_wrong_solution_not_accepted(endpoint):
    # Another task's solution: the tests of HumanEval/13 fail on it.
    result = submit_once(endpoint, dataset="humaneval_python", id="HumanEval/13",
                         completion=HUMANEVAL_ROWS["HumanEval/35"]["canonical_solution"], config=TestConfig())
    assert not result.accepted
    assert result.tests[0].exec_info.status == "Failed"
    assert result.tests[0].exec_info.run_result.return_code != 0


def test_humaneval_with_provided_data_under_any_name(endpoint):
    row = HUMANEVAL_ROWS["HumanEval/23"]
    config = TestConfig(dataset_type="HumanEvalDataset", provided_data=row, extra={"is_freeform": True})
    right = submit_once(endpoint, dataset="my_eval", id=0, config=config,
                        completion="```python\n" + row["prompt"] + row["canonical_solution"] + "```")
    assert right.accepted and right.id == 0  # the request's id is only echoed
    wrong = submit_once(endpoint, dataset="my_eval", id=0, config=config,
                        completion="```python\ndef strlen(string):\n    return len(string) + 1\n```")
    assert not wrong.accepted
    # A body-only free-form answer is read as a continuation of the prompt.
    body = submit_once(endpoint, dataset="my_eval", id=0, config=config,
                       completion="```python\n    return len(string)\n```")
    assert body.accepted


# ----------------------------------------------------------------------------------------------- MultiPL-E /submit

# Rows whose GPT answer passes its tests (with e2beval's assembly), per language; and one wrong answer each (another
# task's answer).
ACCEPTED_ROWS = {"cpp": [13, 39], "go": [13, 53], "java": [13, 53], "js": [13, 53], "rs": [13, 23], "sh": [13, 53],
                 "ts": [13, 53]}


@pytest.mark.parametrize("extension", sorted(ACCEPTED_ROWS))
def test_multipl_e_gpt_answers_accepted_and_a_wrong_one_not(endpoint, extension):
    dataset = MULTIPL_E_IDS[extension]
    for number in ACCEPTED_ROWS[extension]:
        row = multipl_e.row(extension, f"HumanEval_{number}")
        result = submit_once(endpoint, dataset=dataset, id=row["name"], completion=row["gpt_solution"],
                             config=TestConfig(extra={"is_freeform": True}))
        assert result.accepted, (row["name"], result.full_code, result.tests[0].exec_info)
        assert result.extra["assembly"].startswith("freeform")
    row = multipl_e.row(extension, "HumanEval_13")
    wrong = submit_once(endpoint, dataset=dataset, id=row["name"], completion=multipl_e.row(extension, "HumanEval_53")["gpt_solution"],
                        config=TestConfig(extra={"is_freeform": True}))
    assert not wrong.accepted
    assert wrong.tests[0].exec_info.status == "Failed"


def test_multipl_e_with_provided_data_and_a_continuation(endpoint):
    row = multipl_e.row("js", "HumanEval_53")
    config = TestConfig(dataset_type="MultiPLEDataset", provided_data=row)
    right = submit_once(endpoint, dataset="js_rows", id=row["name"], config=config, completion="  return x + y;\n}\n")
    assert right.accepted, right.tests[0].exec_info
    assert right.full_code.startswith(row["prompt"])
    wrong = submit_once(endpoint, dataset="js_rows", id=row["name"], config=config, completion="  return x - y;\n}\n")
    assert not wrong.accepted


# ------------------------------------------------------------------------------------------ stdin/stdout /submit

SUM_RIGHT = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"


def test_stdio_right_answer_runs_every_case(endpoint):
    result = submit_once(endpoint, dataset="code_contests", id="sum_two", completion=SUM_RIGHT,
                         config=TestConfig(language="python"))
    assert result.accepted
    assert result.extracted_code == "a, b = map(int, input().split())\nprint(a + b)"
    assert result.extracted_type == "fenced"
    assert result.full_code is None
    assert [t.passed for t in result.tests] == [True] * 4
    assert result.tests[2].test_info == {"input": {"stdin": "100 23\n"}, "output": {"stdout": "123\n"}}
    assert result.tests[2].exec_info.run_result.stdout == "123\n"


def test_stdio_wrong_answer_stops_at_the_first_failure(endpoint):
    wrong = "```python\na, b = map(int, input().split())\nprint(a + b if a > 0 else 1)\n```"
    result = submit_once(endpoint, dataset="code_contests", id="sum_two", completion=wrong,
                         config=TestConfig(language="python"))
    assert not result.accepted
    assert [t.passed for t in result.tests] == [True, False]  # case 1 fails; cases 2 and 3 are not reported
    every = submit_once(endpoint, dataset="code_contests", id="sum_two", completion=wrong,
                        config=TestConfig(language="python", extra={"run_all_cases": True}))
    assert [t.passed for t in every.tests] == [True, False, True, True]


def test_stdio_numbers_compare_with_a_relative_tolerance(endpoint):
    close = submit_once(endpoint, dataset="code_contests", id="third", completion="```python\nprint(int(input()) / 3)\n```",
                        config=TestConfig(language="python"))
    assert close.accepted  # 0.3333333333333333 against 0.333333333: within 1e-5
    rounded = submit_once(endpoint, dataset="code_contests", id="third",
                          completion="```python\nprint(round(int(input()) / 3, 3))\n```", config=TestConfig(language="python"))
    assert not rounded.accepted  # 0.333 is 1e-3 away


def test_stdio_comparison_ignores_case_and_takes_cpp(endpoint):
    program = ("```cpp\n#include <iostream>\n#include <string>\nint main() {\n  std::string w; std::cin >> w;\n"
               "  std::cout << (std::string(w.rbegin(), w.rend()) == w ? \"yes\" : \"no\") << std::endl;\n}\n```")
    result = submit_once(endpoint, dataset="my_problems", id=7, completion=program, config=TestConfig(language="cpp"))
    assert result.accepted, result.tests[-1].exec_info
    assert result.id == 7
    assert result.tests[0].exec_info.compile_result.return_code == 0


def test_stdio_code_is_found_as_sandbox_fusion_finds_it(endpoint):
    def judged(completion, language="python"):
        return submit_once(endpoint, dataset="code_contests", id="sum_two", completion=completion,
                           config=TestConfig(language=language))

    # A block tagged with the language wins over an earlier block of another tag.
    tagged = judged("Input:\n```text\n1 2\n```\nProgram:\n```python\nprint(sum(map(int, input().split())))\n```")
    assert tagged.accepted and tagged.extracted_code == "print(sum(map(int, input().split())))"
    # A truncated answer: the unclosed fence runs to the end.
    truncated = judged("```python\nprint(sum(map(int, input().split())))\n")
    assert truncated.accepted and truncated.extracted_type == "incomplete_fenced"
    # No fence in Python: only `def`/`class` blocks with the imports before them are code (the call after is not).
    heuristic = judged("Here it is.\nimport sys\ndef main():\n    print(sum(map(int, sys.stdin.read().split())))\nmain()\n")
    assert heuristic.extracted_type == "heuristic"
    assert heuristic.extracted_code == "import sys\ndef main():\n    print(sum(map(int, sys.stdin.read().split())))\n"
    assert not heuristic.accepted  # it defines main() and never calls it, as upstream would judge it
    # No fence in bash: the whole answer without its blank lines.
    bash = judged("read a b\n\necho $((a + b))\n", language="bash")
    assert bash.accepted and bash.extracted_type == "heuristic" and bash.extracted_code == "read a b\necho $((a + b))\n"


def test_stdio_with_provided_data(endpoint):
    row = {"test": [{"input": {"stdin": "4\n"}, "output": {"stdout": "16"}}]}
    config = TestConfig(dataset_type="CommonOJDataset", language="python", provided_data=row)
    assert submit_once(endpoint, dataset="oj", id="q", completion="```py\nprint(int(input()) ** 2)\n```", config=config).accepted
    result = submit_once(endpoint, dataset="oj", id="q", completion="```python\nprint(int(input()) * 3)\n```", config=config)
    assert not result.accepted
    assert result.tests[0].test_info["output"] == {"stdout": "16"}
    assert result.tests[0].exec_info.run_result.stdout == "12\n"
    # Python without a fence and without a def: SandboxFusion's extraction finds no code (upstream does the same).
    bare = submit_once(endpoint, dataset="oj", id="q", completion="print(int(input()) ** 2)", config=config)
    assert not bare.accepted and bare.extracted_type == "empty" and bare.extracted_code == ""


def test_submit_safe_is_the_client_side_fallback(endpoint):
    # No /submit_safe route exists upstream either: the client catches the failed submit.
    result = submit_safe(SubmitRequest(dataset="code_contests", id="sum_two", completion=SUM_RIGHT, config=TestConfig()),
                         endpoint=endpoint, max_attempts=1)
    assert not result.accepted and result.tests == []


# ------------------------------------------------------------------------------------------------ refusals

SUBMIT = {"dataset": "code_contests", "id": "sum_two", "completion": "print(1)", "config": {"language": "python"}}


def assert_detail(answer, status, text):
    assert answer.status_code == status, answer.text
    assert text in answer.json()["detail"], answer.json()


def test_400_answers(endpoint):
    assert_detail(post(endpoint, "submit", {**SUBMIT, "dataset": "nowhere"}), 400, "no eval class found for dataset nowhere")
    assert_detail(post(endpoint, "submit", {**SUBMIT, "dataset": "nowhere", "config": {"dataset_type": "MBPPDataset"}}),
                  400, "eval class MBPPDataset not found")
    assert_detail(post(endpoint, "get_prompts", {"dataset": "mbpp", "config": {}}), 400, "eval class MBPPDataset not found")
    assert_detail(post(endpoint, "submit", {**SUBMIT, "config": {}}), 400,
                  "config.language field must exist for CommonOJDataset, got None")
    assert_detail(post(endpoint, "submit", {**SUBMIT, "config": {"language": "python", "custom_extract_logic": "pass"}}),
                  400, "custom_extract_logic is not supported")
    assert_detail(post(endpoint, "get_prompts", {"dataset": "humaneval_python",
                                                 "config": {"provided_data": HUMANEVAL_ROWS["HumanEval/0"]}}),
                  400, "request.config.provided_data should be a list of str -> str | int")
    assert_detail(post(endpoint, "submit", {**SUBMIT, "config": {"language": "python", "provided_data": [{"test": []}]}}),
                  400, "request.config.provided_data should be a dict with str -> str | int")
    assert_detail(post(endpoint, "submit", {**SUBMIT, "config": {"language": "python", "provided_data": {"tests": "x"}}}),
                  400, "config.provided_data cannot be judged as CommonOJDataset")


def test_404_answers(endpoint):
    assert_detail(post(endpoint, "submit", {**SUBMIT, "id": "no_such_problem"}), 404,
                  "dataset code_contests has no row with id no_such_problem")
    assert_detail(post(endpoint, "get_prompt_by_id", {"dataset": "humaneval_python", "id": 1, "config": {}}), 404,
                  "has no row with id 1")
    # A SandboxFusion id nobody registered here: the row must come with the request.
    assert_detail(post(endpoint, "get_prompts", {"dataset": "multiple_lua", "config": {}}), 404,
                  "dataset multiple_lua has no rows on this server")


def test_422_answers_have_fastapi_shape(endpoint):
    def detail_of(answer):
        assert answer.status_code == 422, answer.text
        return answer.json()["detail"]

    missing = detail_of(post(endpoint, "submit", {k: v for k, v in SUBMIT.items() if k != "completion"}))
    assert missing[0]["type"] == "missing" and missing[0]["loc"] == ["body", "completion"]
    unknown = detail_of(post(endpoint, "submit", {**SUBMIT, "priority": 3}))
    assert unknown[0]["type"] == "extra_forbidden" and unknown[0]["loc"] == ["body", "priority"]
    mistyped = detail_of(post(endpoint, "get_prompts", {"dataset": "code_contests", "config": {}, "limit": "many"}))
    assert mistyped[0]["loc"] == ["body", "limit"]
    wrong_id = detail_of(post(endpoint, "submit", {**SUBMIT, "id": [1]}))
    assert wrong_id[0]["loc"] == ["body", "id"]
    no_config = detail_of(post(endpoint, "get_prompts", {"dataset": "code_contests"}))
    assert no_config[0]["loc"] == ["body", "config"]
    language = detail_of(post(endpoint, "submit", {**SUBMIT, "config": {"language": "cobol"}}))
    assert language[0]["type"] == "literal_error" and language[0]["loc"] == ["body", "config", "language"]
    bad_json = requests.post(f"{endpoint}/submit", data=b"{not json", headers={"Content-Type": "application/json"}, timeout=30)
    assert detail_of(bad_json)[0]["type"] == "json_invalid"
    # An unknown field inside config is ignored, as upstream (pydantic's default).
    ok = post(endpoint, "get_prompts", {"dataset": "my_problems", "config": {"newer_option": 1}, "limit": 1})
    assert ok.status_code == 200 and len(ok.json()) == 1


def test_wrong_method_and_trivial_metrics(endpoint):
    wrong = requests.get(f"{endpoint}/submit", timeout=30)
    assert wrong.status_code == 405 and wrong.headers["Allow"] == "POST"
    assert requests.post(f"{endpoint}/list_datasets", timeout=30).status_code == 405
    metrics = post(endpoint, "get_metrics", {"dataset": "humaneval_python", "config": {}, "results": []})
    assert metrics.status_code == 200 and metrics.json() == {}
    function = post(endpoint, "get_metrics_function", {"dataset": "humaneval_python", "config": {}})
    assert function.status_code == 200 and function.json() == {"function": None}


# ----------------------------------------------------------------------------------------------- start-up

def serve_with(*options):
    binary = os.environ.get("E2BEVAL_SERVE_BINARY") or shutil.which("e2beval")
    return subprocess.run([binary, "serve", "--port", "0", "--bare-code-interpreter", "--ready-sandboxes", "0",
                           *options], capture_output=True, text=True, timeout=60)


def test_a_bad_dataset_file_stops_the_server_naming_file_and_line(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(HUMANEVAL_ROWS["HumanEval/0"]) + "\n\n{\"task_id\": \"x\", \"prompt\": 1}\n")
    run = serve_with("--dataset", f"mine={broken}")
    assert run.returncode != 0
    assert f"{broken} line 3" in run.stderr, run.stderr
    assert "E2B_API_URL" not in run.stdout  # it never listened

    not_json = tmp_path / "not_json.jsonl"
    not_json.write_text("{\"id\": 1, \"content\": \"x\", \"test\": []}\n[1, 2\n")
    run = serve_with("--dataset", f"oj={not_json}")
    assert run.returncode != 0 and f"{not_json} line 2 is not a JSON object" in run.stderr, run.stderr

    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text("{\"id\": 1, \"content\": \"x\", \"test\": []}\n{\"id\": \"1\", \"content\": \"y\", \"test\": []}\n")
    run = serve_with("--dataset", f"oj={repeated}")
    assert run.returncode != 0 and "line 2: id '1' is also the id of an earlier row" in run.stderr, run.stderr

    run = serve_with("--dataset", "no_equals_sign")
    assert run.returncode != 0 and "--dataset expects NAME=FILE" in run.stderr, run.stderr
    run = serve_with("--dataset", f"mbpp={STDIO}")
    assert run.returncode != 0 and "MBPPDataset, which e2beval does not serve" in run.stderr, run.stderr


def test_a_sandbox_error_is_500_as_upstream(endpoint):
    # A language e2beval does not run is a SandboxError from /run_code: /submit answers 500 (upstream does too, and
    # the official client retries it), not a verdict: a reward must not count an infrastructure fault as a wrong answer.
    answer = post(endpoint, "submit", {**SUBMIT, "completion": "```lua\nprint(1)\n```", "config": {"language": "lua"}})
    assert_detail(answer, 500, "failed to request sandbox: Sandbox responded with error: ")
    assert "python" in answer.json()["detail"]  # the message names the languages that run


class running_server:
    """A second `e2beval serve` with its own options, for the test that needs other limits than the module's."""

    def __init__(self, *options):
        binary = os.environ.get("E2BEVAL_SERVE_BINARY") or shutil.which("e2beval")
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--bare-code-interpreter", "--ready-sandboxes", "0",
                                         *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def __enter__(self):
        for line in self.process.stdout:
            name, _, value = line.strip().removeprefix("export ").partition("=")
            if name == "E2B_API_URL":
                return value
        raise AssertionError("e2beval serve ended before it listened: " + self.process.stderr.read())

    def __exit__(self, *exc):
        self.process.terminate()
        assert self.process.wait(timeout=30) == 0, self.process.stderr.read()


def test_a_full_queue_is_503_with_retry_after():
    # One run at a time and no waiting room: the second of a submission's concurrent cases finds the queue full.
    with running_server("--dataset", f"code_contests={STDIO}", "--sandbox-fusion-jobs", "1",
                        "--sandbox-fusion-queue", "0") as endpoint:
        answer = post(endpoint, "submit", {**SUBMIT, "completion": SUM_RIGHT})
        assert_detail(answer, 503, "the run queue is full")
        assert answer.headers["Retry-After"] == "1"
        # The server keeps serving: a one-case problem fits.
        one = {"dataset": "oj", "id": 1, "completion": SUM_RIGHT,
               "config": {"dataset_type": "CommonOJDataset", "language": "python",
                          "provided_data": {"test": [{"input": {"stdin": "2 2"}, "output": {"stdout": "4"}}]}}}
        again = post(endpoint, "submit", one)
        assert again.status_code == 200 and again.json()["accepted"], again.text
