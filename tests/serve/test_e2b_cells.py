"""Cells as E2B's kernels give them, through the official Python SDK (e2b-code-interpreter) against a real
`e2beval serve`: how output is cut into stdout/stderr messages (ipykernel's OutStream for Python, bash_kernel's
lines, ijavascript's writes), ES module syntax in JavaScript cells, and E2B's default contexts. Code written for
E2B that joins or counts `logs.stdout` must see what it sees there, whatever the timing (issue 33)."""
from e2b_code_interpreter import Sandbox

# A guard so a broken server fails the test instead of hanging it; never a timing assertion.
HANDSHAKE_SECONDS = 60


def test_python_output_written_together_is_one_message(sandbox):
    # E2B's README and promptfoo's E2B page: print(1); print(2) is ['1\n2\n'] there, so joining with "\n"
    # gives no blank line between them.
    assert sandbox.run_code("print(1)\nprint(2)").logs.stdout == ["1\n2\n"]
    execution = sandbox.run_code("print(True)\nprint(False)")
    assert "\n".join(execution.logs.stdout).strip() == "True\nFalse"
    mixed = sandbox.run_code("import sys\nprint('a')\nprint('e1', file=sys.stderr)\nprint('b')\n"
                             "sys.stderr.write('e2\\n')\nimport os\nos.system('echo from-a-process')")
    assert mixed.logs.stdout == ["a\nb\nfrom-a-process\n"]
    assert mixed.logs.stderr == ["e1\ne2\n"]


def test_python_output_before_a_result_goes_out_before_it(sandbox):
    seen = []
    sandbox.run_code("print('one')\ndisplay('shown')\nprint('two')\n'last'",
                     on_stdout=lambda message: seen.append(("stdout", message.line)),
                     on_result=lambda result: seen.append(("result", result.text)))
    assert seen == [("stdout", "one\n"), ("result", "shown"), ("stdout", "two\n"), ("result", "last")]


def test_a_long_python_cell_still_streams(sandbox):
    # The cell prints, then waits until the client has received that output (it writes a file from the
    # on_stdout callback) before it prints again: it can only end if its first line was streamed on its own.
    waiting = ("import os, time\nprint('first')\ndeadline = time.monotonic() + %d\n"
               "while not os.path.exists('seen') and time.monotonic() < deadline:\n    time.sleep(0.05)\n"
               "print('second' if os.path.exists('seen') else 'never streamed')" % HANDSHAKE_SECONDS)
    chunks = []

    def on_stdout(message):
        chunks.append(message.line)
        if message.line == "first\n":
            sandbox.files.write("/home/user/seen", "yes")

    execution = sandbox.run_code(waiting, on_stdout=on_stdout, timeout=HANDSHAKE_SECONDS + 30)
    assert execution.error is None, execution.error
    assert chunks == ["first\n", "second\n"]
    assert execution.logs.stdout == ["first\n", "second\n"]


def test_bash_output_is_one_message_per_line_and_javascript_one_per_write(sandbox):
    bash = sandbox.run_code("echo a; echo b; printf 'no newline'", language="bash")
    assert bash.logs.stdout == ["a\n", "b\n", "no newline"]
    js = sandbox.run_code("console.log('a'); console.log('b'); process.stdout.write('c'); process.stdout.write('d\\n')",
                          language="js")
    assert js.logs.stdout == ["a\n", "b\n", "c", "d\n"]
    assert sandbox.run_code("console.error('e1'); console.error('e2')", language="js").logs.stderr == ["e1\n", "e2\n"]


def test_default_contexts_are_listed_as_e2b_lists_them(sandbox):
    # E2B's code-interpreter tests (test_contexts.py::test_list_contexts): python and javascript are there
    # before anyone creates a context, both in /home/user.
    contexts = sandbox.list_code_contexts()
    assert {(context.language, context.cwd) for context in contexts} >= {("python", "/home/user"),
                                                                          ("javascript", "/home/user")}
    created = sandbox.create_code_context()
    assert sandbox.list_code_contexts()[-1].id == created.id
    by_id = {context.id: context for context in sandbox.list_code_contexts()}
    javascript = next(context for context in contexts if context.language == "javascript")
    assert sandbox.run_code("const shared = 21", context=javascript).error is None
    assert sandbox.run_code("shared * 2", language="js").text == "42"  # the listed one is the language's default
    assert by_id[javascript.id].language == "javascript"


def test_javascript_es_module_imports(sandbox):
    # E2B's test_default_kernels.py::test_js_esm_imports, and more: imports from a module file of the sandbox,
    # names kept for later cells, and top-level await in the same cell.
    execution = sandbox.run_code("\n    import { readFileSync } from 'fs'\n    console.log(typeof readFileSync)\n    ",
                                 language="js")
    assert execution.error is None, execution.error
    assert execution.logs.stdout == ["function\n"]
    sandbox.files.write("/home/user/mod.mjs", "export const x = 20\nexport default (v) => v + 1\n")
    imported = sandbox.run_code("import inc, { x } from './mod.mjs'\nimport path from 'path'\n"
                                "const joined = await Promise.resolve(path.join('a', 'b'));\n[inc(x), joined]",
                                language="js")
    assert imported.error is None, imported.error
    assert imported.text == "[ 21, 'a/b' ]"
    assert sandbox.run_code("inc(x) + typeof readFileSync", language="js").text == "21function"
    assert sandbox.run_code("await Promise.resolve('Hello World!')", language="js").text == "Hello World!"
    failed = sandbox.run_code("import { nope } from './missing.mjs'", language="js")
    assert failed.error is not None and "missing.mjs" in failed.error.value
