"""Verdicts users got wrong, through the real `promptfoo eval` with the echo provider (recorded answers):

- HumanEval answers in every shape models and front ends give (a body whose first line lost its indentation,
  a dedented body, whole functions fenced or not, with or without the prompt's imports, a body that restates
  the signature) pass when they are correct;
- printing inside the function under test meets the same output limit, with the same outcome, as in every
  other test shape;
- running out of memory is `memory_limit` in every shape, not one shape's exception.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml
from _support import REPO, PromptfooRun, require_importable_e2beval, run_promptfoo

HUMANEVAL = REPO.parent / "shared" / "datasets" / "HumanEval.jsonl.gz"

FLOOD = "def f(x):\n    print('x' * 50_000_000)\n    return 42\n"
PRINT_LOOP = "def f(x):\n    for i in range(3_000_000):\n        print('line', i)\n    return 42\n"
OUT_OF_MEMORY = "def f(x):\n    a = [0] * 10**10\n    return 42\n"

SHAPES = {  # name -> the vars that run f(1) and expect 42
    "function call": {"function_name": "f", "test_input": "1", "expected_output": "42"},
    "testCode": {"testCode": "print(f(1))", "expectedOutput": "42"},
    "asserts": {"tests": "assert f(1) == 42"},
}


def humaneval_shapes(task: dict) -> dict:
    """The shapes of a correct answer to `task`, by name."""
    prompt, body, entry = task["prompt"], task["canonical_solution"], task["entry_point"]
    definition = prompt.index(f"def {entry}")
    signature = prompt[definition:prompt.index("\n", definition) + 1]
    stripped = body.lstrip()
    dedented = "".join(line[4:] if line.startswith("    ") else line for line in body.splitlines(True))
    fence = "```python\n{}```\n"
    return {
        "indented body": body,
        "body, first line's indentation stripped": stripped,
        "body, every line dedented": dedented,
        "fenced body, stripped": "Here is the body:\n\n" + fence.format(stripped),
        "whole function with the prompt's imports": prompt + body,
        "fenced whole function": "Sure:\n" + fence.format(prompt + body) + "\nIt sorts first.",
        "whole function without the prompt's imports": prompt[definition:] + body,
        "fenced function without the imports": fence.format(prompt[definition:] + body),
        "body restating the signature": signature + body,
        "signature and body indented as a block": "".join("    " + line for line in (signature + body).splitlines(True)),
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PromptfooRun:
    require_importable_e2beval()
    assert HUMANEVAL.exists(), f"HumanEval is missing at {HUMANEVAL} (../shared/datasets beside the clone)"
    tasks = [json.loads(line) for line in gzip.open(HUMANEVAL, "rt", encoding="utf-8")]
    work = tmp_path_factory.mktemp("verdict-shapes")
    tests = []
    for task in (tasks[0], tasks[2], tasks[38]):
        vars_ = {"prompt": task["prompt"], "test": task["test"], "entry_point": task["entry_point"]}
        for name, answer in humaneval_shapes(task).items():
            tests.append({"description": f"{task['task_id']}: {name}", "vars": {**vars_, "completion": answer}})
    for answer_name, answer in (("flood", FLOOD), ("print loop", PRINT_LOOP), ("out of memory", OUT_OF_MEMORY)):
        for shape, vars_ in SHAPES.items():
            tests.append({"description": f"{answer_name}: {shape}", "vars": {**vars_, "completion": answer}})
    (work / "answer.txt").write_text("{{completion}}", encoding="utf-8")
    (work / "e2beval_assert.py").write_text("from e2beval.promptfoo import get_assert  # noqa: F401\n", encoding="utf-8")
    config = {
        "description": "verdict shapes",
        "prompts": ["file://answer.txt"],
        "providers": ["echo"],
        "defaultTest": {"assert": [{"type": "python", "value": "file://e2beval_assert.py"}]},
        "tests": tests,
    }
    config_path = work / "promptfooconfig.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return run_promptfoo(config_path, work, "--max-concurrency", "2")


def _metadata(run: PromptfooRun, description: str) -> dict:
    row = run.row(description)
    own = row["gradingResult"]["componentResults"][0]
    return {"pass": row["success"], "reason": own["reason"], **own.get("metadata", {})}


def test_every_shape_of_a_correct_humaneval_answer_passes(run: PromptfooRun) -> None:
    rows = [r for r in run.rows if r["testCase"]["description"].startswith("HumanEval/")]
    assert len(rows) == 30, run.log
    failed = {r["testCase"]["description"]: r["gradingResult"]["reason"] for r in rows if not r["success"]}
    assert not failed, json.dumps(failed, indent=1)


@pytest.mark.parametrize("answer", ["flood", "print loop"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_printing_inside_the_function_meets_the_output_limit_in_every_shape(run: PromptfooRun, answer: str, shape: str) -> None:
    seen = _metadata(run, f"{answer}: {shape}")
    assert seen["pass"] is False, seen["reason"]
    assert seen["outcome"] == "output_limit", seen
    assert seen["reason"].startswith("Execution error: output_limit: killed after writing more than 1048576 bytes"), seen["reason"]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_running_out_of_memory_is_memory_limit_in_every_shape(run: PromptfooRun, shape: str) -> None:
    seen = _metadata(run, f"out of memory: {shape}")
    assert seen["pass"] is False, seen["reason"]
    assert seen["outcome"] == "memory_limit", seen
    assert seen["reason"].startswith("Execution error: memory_limit: ran out of memory (limit 256 MiB)"), seen["reason"]
