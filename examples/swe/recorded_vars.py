"""The vars promptfoo loads for each test from the fixtures scripts/swe_fixtures.py builds (run.sh builds them
first): `completion`, the recorded answer of kind `kind` for `instance_id`; `fail_log` and `relevant_files`,
the patch-generation prompt's vars. The fixtures are generated (build/swe-fixtures), not kept in the example."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "build" / "swe-fixtures"


def get_var(var_name, prompt, other_vars):
    instance_id = other_vars["instance_id"]
    if var_name == "completion":
        path = FIXTURES / "answers" / instance_id / f"{other_vars['kind']}.txt"
    else:
        path = FIXTURES / "prompt_vars" / instance_id / f"{var_name}.txt"
    if not path.is_file():
        return {"error": f"{path} is missing: run `python scripts/swe_fixtures.py` (bash examples/swe/run.sh does)"}
    return {"output": path.read_text(encoding="utf-8")}
