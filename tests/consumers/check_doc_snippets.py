"""docs/cpp.md's code is the consumer projects' code: each block marked `<!-- snippet: FILE#NAME -->` must be
the region of FILE between the lines `[snippet:NAME]` and `[end]` (comments in C++ or CMake), dedented.
Usage: check_doc_snippets.py ROOT. Prints each block it checked; exits 1 on any difference."""

import re
import sys
import textwrap
from pathlib import Path

MARKER = re.compile(r"<!-- snippet: (?P<file>[^#\s]+)#(?P<name>[\w-]+) -->\n```\w*\n(?P<body>.*?)```", re.S)


def region(path: Path, name: str) -> str:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip() in (f"// [snippet:{name}]", f"# [snippet:{name}]")]
    if len(starts) != 1:
        raise LookupError(f"{path}: expected one line marking [snippet:{name}], found {len(starts)}")
    for end in range(starts[0] + 1, len(lines)):
        if lines[end].strip() in ("// [end]", "# [end]"):
            return textwrap.dedent("".join(lines[starts[0] + 1 : end]))
    raise LookupError(f"{path}: [snippet:{name}] has no [end] line after it")


def main(root: Path) -> int:
    document = (root / "docs" / "cpp.md").read_text(encoding="utf-8")
    blocks = list(MARKER.finditer(document))
    if not blocks:
        print("docs/cpp.md has no <!-- snippet: FILE#NAME --> blocks")
        return 1
    differences = 0
    for block in blocks:
        where = f"{block['file']}#{block['name']}"
        try:
            source = region(root / block["file"], block["name"])
        except (LookupError, OSError) as failure:
            print(f"{where}: {failure}")
            differences += 1
            continue
        if source != block["body"]:
            print(f"{where}: docs/cpp.md differs from the source; copy the region again:\n{source}")
            differences += 1
        else:
            print(f"{where}: same as the source")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
