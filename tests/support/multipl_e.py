"""The shared MultiPL-E rows (../shared/datasets/multipl-e beside the clone; never committed)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATASET_DIR = REPO.parent / "shared" / "datasets" / "multipl-e"


def dataset(suffix: str) -> Path:
    """The file of one language's rows, by MultiPL-E's suffix (js, sh, ts, cpp, go, java, rs, ...)."""
    return DATASET_DIR / f"humaneval-{suffix}.jsonl.gz"


def rows(suffix: str) -> list:
    path = dataset(suffix)
    if not path.exists():
        pytest.fail(f"MultiPL-E rows not found at {path}; the workplace's shared/datasets must be beside the repository",
                    pytrace=False)
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def rows_named(suffix: str, names: list) -> list:
    by_name = {row["name"]: row for row in rows(suffix)}
    return [by_name[name] for name in names]


def row(suffix: str, name: str = "HumanEval_53_add") -> dict:
    """One row by its name, or by its problem alone ("HumanEval_53" finds "HumanEval_53_add")."""
    for found in rows(suffix):
        if found["name"] == name or found["name"].startswith(name + "_"):
            return found
    raise AssertionError(f"no row {name} in {dataset(suffix)}")
