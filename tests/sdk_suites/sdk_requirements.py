"""Prints, one per line, the pip requirements of the SDK suites' virtualenv, read from the two checkouts: the
SDKs at the versions their trees declare (e2b from E2B's packages/python-sdk/pyproject.toml, e2b-code-interpreter
from code-interpreter's python/pyproject.toml) and the test tools both trees declare for their tests (E2B's
`dev` dependency group, code-interpreter's poetry dev group), less the linters and type checkers.

    python sdk_requirements.py E2B_DIR CODE_INTERPRETER_DIR
"""
import re
import sys
import tomllib
from pathlib import Path

NOT_FOR_TESTS = {"ruff", "ty"}  # linters and type checkers: the suites do not run them


def caret(name: str, spec: str) -> str:
    """Poetry's ^X.Y.Z as a pip specifier: >=X.Y.Z, below the next change of the leftmost non-zero part."""
    if not spec.startswith("^"):
        return name + ("" if spec == "*" else spec if spec[0] in "<>=!~" else "==" + spec)
    parts = [int(part) for part in re.findall(r"\d+", spec[1:])]
    first = next((index for index, part in enumerate(parts) if part), len(parts) - 1)
    upper = parts[: first + 1]
    upper[first] += 1
    return f"{name}>={spec[1:]},<{'.'.join(map(str, upper))}"


def main(e2b_dir: str, code_interpreter_dir: str) -> None:
    e2b = tomllib.loads((Path(e2b_dir) / "packages/python-sdk/pyproject.toml").read_text())
    interpreter = tomllib.loads((Path(code_interpreter_dir) / "python/pyproject.toml").read_text())
    requirements = [f"{e2b['project']['name']}=={e2b['project']['version']}",
                    f"{interpreter['tool']['poetry']['name']}=={interpreter['tool']['poetry']['version']}"]
    for spec in e2b.get("dependency-groups", {}).get("dev", []):
        if re.split(r"[<>=!~ \[;]", spec, maxsplit=1)[0] not in NOT_FOR_TESTS:
            requirements.append(spec)
    for name, spec in interpreter["tool"]["poetry"]["group"]["dev"]["dependencies"].items():
        if name not in NOT_FOR_TESTS:
            requirements.append(caret(name, spec if isinstance(spec, str) else spec["version"]))
    print("\n".join(requirements))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: sdk_requirements.py E2B_DIR CODE_INTERPRETER_DIR")
    main(*sys.argv[1:])
