"""JavaScript and bash through the public Python API, in the real sandbox (tests/cpp/test_polyglot.cpp has the
limits and isolation; this checks the Python surface passes the language through)."""

import pytest

import e2beval


def test_execute_javascript_with_stdin_and_env():
    result = e2beval.execute(
        "const name = require('fs').readFileSync(0, 'utf8').trim();\nconsole.log(`${process.env.GREETING}, ${name}!`);\n",
        language="javascript",
        stdin="world\n",
        env={"GREETING": "hello"},
    )
    assert result["outcome"] == "ok", result
    assert result["stdout"] == "hello, world!\n"
    assert result["denied_syscalls"] == []
    assert result["warm"] is False  # only Python executions come from the pool


def test_javascript_exception_and_bash_status():
    thrown = e2beval.execute("throw new RangeError('out of range');\n", language="js")
    assert thrown["outcome"] == "exit_nonzero"
    assert thrown["exit_code"] == 1
    assert "RangeError: out of range" in thrown["stderr"]
    assert "/tmp/main.js:1" in thrown["stderr"]

    bash = e2beval.execute("echo \"$((6 * 7))\"\nexit 5\n", language="bash")
    assert bash["outcome"] == "exit_nonzero"
    assert (bash["exit_code"], bash["stdout"]) == (5, "42\n")


def test_limits_apply_to_javascript_and_bash():
    loop = e2beval.execute("for (;;) {}", language="javascript", timeout=1, limits={"cpu_time_s": 30})
    assert loop["outcome"] == "timeout"
    hog = e2beval.execute("const a = [];\nwhile (true) a.push(new Array(1e6).fill(0.5));\n", language="javascript",
                          limits={"memory_mb": 128, "wall_time_s": 30, "cpu_time_s": 30})
    assert hog["outcome"] == "memory_limit", hog["detail"]
    flood = e2beval.execute("yes", language="sh")
    assert flood["outcome"] == "output_limit"


def test_execute_many_mixes_languages():
    results = e2beval.execute_many([{"code": "console.log(1 + 1)", "language": "javascript"},
                                    {"code": "echo 3", "language": "bash"},
                                    "print(4)"])
    assert [r["stdout"] for r in results] == ["2\n", "3\n", "4\n"]


def test_unknown_language_is_a_clear_error():
    with pytest.raises(e2beval.InputError, match="unknown language 'ruby'; use one of python, javascript, bash, c, cpp, go, rust, java, typescript"):
        e2beval.execute("puts 1", language="ruby")
