"""The language a test's program runs in when its vars name none (issue 38, row 2): testCode with expectedOutput
runs in the language of the answer's fence; the reason of a failed run says which language it ran in and how to
choose one; the shapes whose harness is Python stay Python."""

import e2beval

JS_ANSWER = "Here you go:\n\n```js\nfunction add(a, b) {\n  return a + b;\n}\n```\n"
BASH_ANSWER = "```bash\nadd() { echo $(( $1 + $2 )); }\n```\n"


def test_a_js_fence_runs_as_javascript_when_the_vars_name_no_language():
    verdict = e2beval.evaluate(JS_ANSWER, {"testCode": "console.log(add(2, 3));", "expectedOutput": "5"})
    assert verdict["pass"] is True, verdict["reason"]
    assert verdict["extraction"]["language"] == "javascript"


def test_a_bash_fence_runs_as_bash():
    verdict = e2beval.evaluate(BASH_ANSWER, {"testCode": "add 2 3", "expectedOutput": "5"})
    assert verdict["pass"] is True, verdict["reason"]
    assert verdict["extraction"]["language"] == "bash"


def test_the_vars_language_wins_over_the_fence():
    # The vars say Python: the ```js block is run as Python, and the verdict says so.
    verdict = e2beval.evaluate(JS_ANSWER, {"testCode": "print(add(2, 3))", "expectedOutput": "5", "language": "python"})
    assert verdict["pass"] is False
    assert verdict["extraction"]["language"] == "python"
    assert "set vars.language" not in verdict["reason"]  # chosen by the vars: nothing was assumed


def test_a_failed_run_says_which_language_was_assumed_and_how_to_choose():
    # Untagged fence, JavaScript inside, no language in the vars: run as Python, and the reason says so.
    answer = "```\nfunction add(a, b) { return a + b; }\n```\n"
    verdict = e2beval.evaluate(answer, {"testCode": "console.log(add(2, 3));", "expectedOutput": "5"})
    assert verdict["pass"] is False
    assert verdict["reason"].startswith("Execution error: SyntaxError"), verdict["reason"]
    assert "(run as python (assumed: the vars name no language, and the code's fence none other); set vars.language " \
           "to choose)" in verdict["reason"], verdict["reason"]
    # And the fence's language is named when it chose.
    verdict = e2beval.evaluate(JS_ANSWER, {"testCode": "console.log(add(2, 3)); process.exit(4);", "expectedOutput": "5"})
    assert verdict["pass"] is False
    assert "(run as javascript, the language of its fenced block; set vars.language to choose)" in verdict["reason"]


def test_python_shapes_stay_python_whatever_the_fence():
    answer = "```js\ndef double(x):\n    return 2 * x\n```\n"
    verdict = e2beval.evaluate(answer, {"function_name": "double", "test_input": "21", "expected_output": "42"})
    assert verdict["pass"] is True, verdict["reason"]
    assert verdict["extraction"]["language"] == "python"


def test_function_name_with_test_code_is_looked_for_in_the_language_run():
    vars_ = {"function_name": "add", "testCode": "console.log(add(2, 3));", "expectedOutput": "5"}
    verdict = e2beval.evaluate(JS_ANSWER, vars_)
    assert verdict["pass"] is True, verdict["reason"]
    missing = e2beval.evaluate(JS_ANSWER, dict(vars_, function_name="sub"))
    assert missing["reason"] == "No JavaScript function named sub found"
