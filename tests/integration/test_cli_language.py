"""Which language `e2beval run FILE` and `e2beval scan FILE` read a file as (issue 38, row 1): the one its
extension names, --language over that, Python for anything else; a hint when the code does not parse in the
language chosen; and the file named when it is not UTF-8."""

import json
import subprocess

import pytest
from _support import find_cli

CLI = find_cli()


def run(*args, cwd=None):
    return subprocess.run([CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name, code, printed", [
    ("a.js", 'console.log("hi from js")\n', "hi from js\n"),
    ("a.cjs", 'console.log(require("path").basename("/x/hi.cjs"))\n', "hi.cjs\n"),
    ("a.mjs", 'import { basename } from "node:path";\nconsole.log(basename("/x/hi.mjs"));\n', "hi.mjs\n"),
    ("a.sh", 'echo "hi from $0" | tr a-z A-Z\n', None),
    ("a.bash", 'declare -A seen=([x]=1); echo "${#seen[@]} key"\n', "1 key\n"),
    ("a.py", 'print("hi from python")\n', "hi from python\n"),
])
def test_run_takes_the_language_from_the_extension(tmp_path, name, code, printed):
    program = tmp_path / name
    program.write_text(code)
    result = run("run", str(program))
    assert result.returncode == 0, result.stdout + result.stderr
    if printed is not None:
        assert result.stdout == printed
    else:
        assert result.stdout.startswith("HI FROM ")
    answer = json.loads(run("run", "--json", str(program)).stdout)
    assert answer["language"] == {"js": "javascript", "cjs": "javascript", "mjs": "javascript", "sh": "bash",
                                  "bash": "bash", "py": "python"}[name.split(".")[1]]


def test_language_overrides_the_extension(tmp_path):
    program = tmp_path / "really_python.js"
    program.write_text('print("python after all")\n')
    result = run("run", "--language", "python", str(program))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "python after all\n"


def test_code_that_does_not_parse_in_the_language_chosen_gets_a_hint(tmp_path):
    # No extension: Python by default; the JavaScript does not parse as Python.
    program = tmp_path / "script"
    program.write_text('const greeting = "hi";\nconsole.log(greeting);\n')
    result = run("run", str(program))
    assert result.returncode == 1
    assert "SyntaxError" in result.stderr
    assert ("e2beval run: the code does not parse as Python, the language chosen by the default for a file without "
            "an extension; if it is written in another language, say which: --language javascript (or a .js, .mjs, "
            ".cjs file); --language bash (or a .sh, .bash file)") in result.stderr
    # An extension that names no language says so.
    text = tmp_path / "notes.txt"
    text.write_text('const x = 1;\n')
    assert "the language chosen by the default: .txt names no language" in run("run", str(text)).stderr
    # Python in a .js file: does not parse as JavaScript, chosen by its extension.
    python = tmp_path / "wrong.js"
    python.write_text("def f():\n    return 1\nprint(f())\n")
    result = run("run", str(python))
    assert result.returncode == 1
    assert "the code does not parse as JavaScript, the language chosen by its extension" in result.stderr
    assert "--language python (or a .py file)" in result.stderr
    assert json.loads(run("run", "--json", str(python)).stdout)["hint"].startswith("the code does not parse as JavaScript")
    # Code that parses and fails at run time gets no hint: the language was right.
    failing = tmp_path / "fails.py"
    failing.write_text("raise SystemExit(3)\n")
    result = run("run", str(failing))
    assert result.returncode == 3 and "does not parse" not in result.stderr


def test_scan_reads_the_language_from_the_extension_too(tmp_path):
    program = tmp_path / "spawn.js"
    program.write_text('require("child_process").execSync("id");\n')
    findings = json.loads(run("scan", "--json", str(program)).stdout)["findings"]
    assert any(finding["rule"].startswith("js-") for finding in findings), findings


def test_run_names_the_file_that_is_not_utf8(tmp_path):
    program = tmp_path / "latin1.py"
    program.write_bytes(b"print('caf\xe9')\n")
    result = run("run", str(program))
    assert result.returncode == 2
    assert f"e2beval run: code file {program} is not valid UTF-8 (first bad byte at offset 10)" in result.stderr
