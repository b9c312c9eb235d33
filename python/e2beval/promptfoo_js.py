"""The Python half of e2beval's JavaScript promptfoo assertion, ``e2beval_assert.cjs`` (shipped beside this file).

promptfoo counts whatever a ``type: python`` assertion does — a result with ``pass: false``, or an exception —
as a failed test, never as an error; a JavaScript assertion file that throws is an error to it. So the
``.cjs`` file runs this module with the Python it finds, and throws when the GradingResult marks an error row
(``metadata.error_kind``: a bad ``config:``, bad test vars, a sandbox that failed): a typo in the config is
then counted among promptfoo's errors, not as a bad model. docs/promptfoo.md, "The JavaScript entry".

    python -m e2beval.promptfoo_js            reads [output, context] as JSON on stdin (what promptfoo passes
                                              a Python assertion), grades it with get_assert, writes the
                                              GradingResult as JSON on stdout
    python -m e2beval.promptfoo_js --path     prints the path of the shipped e2beval_assert.cjs
    python -m e2beval.promptfoo_js --write DIR
                                              copies it into DIR (an existing different file is kept: exit 1)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

ASSERT_FILE = Path(__file__).resolve().with_name("e2beval_assert.cjs")

USAGE = ("usage: python -m e2beval.promptfoo_js [--path | --write DIR]\n"
         "  (no option: read [output, context] as JSON on stdin, write the GradingResult as JSON on stdout)\n")


def grade_stdin(stdin, stdout) -> int:
    """Grades the [output, context] JSON read from ``stdin`` as the Python assertion does (get_assert, with
    the daemon) and writes the GradingResult to ``stdout``. Anything printed while grading goes to stderr:
    stdout carries the result alone."""
    try:  # bytes decoded here: the locale's encoding may not be UTF-8, and JSON.stringify's is
        arguments = json.loads(stdin.buffer.read().decode("utf-8"))
    except ValueError as error:
        print(f"e2beval.promptfoo_js: stdin is not JSON ({error}); it must be [output, context] as "
              "e2beval_assert.cjs sends it", file=sys.stderr)
        return 2
    if not (isinstance(arguments, list) and len(arguments) == 2):
        print("e2beval.promptfoo_js: stdin must be the JSON array [output, context]", file=sys.stderr)
        return 2
    from e2beval.promptfoo import get_assert  # the daemon fast path: does not load the compiled core

    output, context = arguments
    saved = os.dup(1)
    try:
        os.dup2(2, 1)  # what the grading (or a library it calls) writes to fd 1 goes to stderr
        with contextlib.redirect_stdout(sys.stderr):
            result = get_assert(output, context)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    stdout.write(json.dumps(result))  # ASCII: lone surrogates in an answer travel escaped
    stdout.flush()
    return 0


def write_assert_file(directory: Path) -> int:
    target = directory / ASSERT_FILE.name
    if target.exists() and target.read_bytes() != ASSERT_FILE.read_bytes():
        print(f"e2beval.promptfoo_js: {target} exists and differs from e2beval's; nothing was written "
              "(remove it to replace it)", file=sys.stderr)
        return 1
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ASSERT_FILE, target)
    print(target)
    return 0


def main(argv: list) -> int:
    if not argv:
        return grade_stdin(sys.stdin, sys.stdout)
    if argv == ["--path"]:
        print(ASSERT_FILE)
        return 0
    if len(argv) == 2 and argv[0] == "--write":
        return write_assert_file(Path(argv[1]))
    sys.stderr.write(USAGE)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
