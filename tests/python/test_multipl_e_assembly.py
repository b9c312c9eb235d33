"""e2beval.assemble_multipl_e over every shared MultiPL-E row (../shared/datasets/multipl-e, read at test time): each
real GPT answer becomes one program that holds the row's tests once, the model's own main/tests gone; and a row
without its fields is refused with a message that names the field."""

from __future__ import annotations

import re

import pytest

import e2beval
from support import multipl_e

LANGUAGES = {"cpp": "cpp", "go": "go", "java": "java", "js": "javascript", "rs": "rust", "sh": "bash", "ts": "typescript"}


# The model's own entry points, which must not survive next to the tests' (a second main does not compile, a
# second TestXxx of the same name is "redeclared").
# A commented-out main (rs 98 shows its example usage so) is no main.
OWN_MAIN = {"cpp": r"^(?!\s*//).*\bint\s+main\s*\(", "java": r"^(?!\s*//).*static\s+void\s+main\s*\(",
            "rs": r"^(?!\s*//).*\bfn\s+main\s*\(", "go": r"^func\s+main\s*\("}


@pytest.mark.parametrize("suffix", sorted(LANGUAGES))
def test_every_real_answer_assembles_with_the_tests_once(suffix):
    kinds = {}
    for row in multipl_e.rows(suffix):
        program = e2beval.assemble_multipl_e(row, row["gpt_solution"])
        assert program["language"] == LANGUAGES[suffix]
        kinds[program["kind"]] = kinds.get(program["kind"], 0) + 1
        tests_body = row["tests"].split("\n", 1)[1] if row["tests"].lstrip(" ").startswith("}") else row["tests"]
        assert program["source"].count(tests_body.strip()) == 1, row["name"]
        if suffix in OWN_MAIN:
            # Only the tests' own main is left (Go's tests have none).
            expected = 0 if suffix == "go" else 1
            assert len(re.findall(OWN_MAIN[suffix], program["source"], re.M)) == expected, row["name"]
        if suffix == "go":
            test_name = re.search(r"^func (Test\w+)", row["tests"], re.M).group(1)
            assert len(re.findall(rf"^func {test_name}\(", program["source"], re.M)) == 1, row["name"]
            assert program["source"].startswith(re.search(r"^package \w+", row["prompt"], re.M).group(0))
    # Two Java answers rename the function (23 strlen -> stringLength, 149 sortedListSum -> listSort): read as
    # bodies, they fail as they should; every other answer defines the prompt's function.
    assert kinds.get("continuation", 0) == (2 if suffix == "java" else 0), kinds


def test_a_continuation_and_a_bad_row():
    row = next(r for r in multipl_e.rows("js") if r["name"] == "HumanEval_53_add")
    program = e2beval.assemble_multipl_e(row, "  return x + y;\n}\n\nfunction more() {}\n", kind="continuation")
    assert program["source"] == row["prompt"] + "  return x + y;\n}\n" + "\n" + row["tests"]
    assert program["file_name"] == "prog.js" and program["entry_point"] == "add"
    broken = {key: value for key, value in row.items() if key != "stop_tokens"}
    with pytest.raises(e2beval.InputError, match="stop_tokens"):
        e2beval.assemble_multipl_e(broken, "x")
    with pytest.raises(e2beval.InputError, match="kind must be"):
        e2beval.assemble_multipl_e(row, "x", kind="raw")
