"""What the model wrote never raises, and one bad item never loses a batch (issue 38, row 3; docs/python.md):
an answer holding a lone surrogate, or bytes that are not UTF-8, fails alone with a reason that blames the answer;
vars holding one are an invalid test, alone too."""

import e2beval

GOOD = "```python\ndef double(x):\n    return 2 * x\n```\n"
VARS = {"function_name": "double", "test_input": "21", "expected_output": "42"}
LONE = "```python\ndef double(x):\n    return 2 * x  # \udcff\n```\n"


def test_evaluate_many_fails_the_item_with_a_lone_surrogate_alone():
    verdicts = e2beval.evaluate_many([(GOOD, VARS), (LONE, VARS), (GOOD, {"nothing": "here"}),
                                      {"output": GOOD, "vars": VARS}])
    assert [verdict["pass"] for verdict in verdicts] == [True, False, False, True]
    reason = verdicts[1]["reason"]
    assert reason.startswith("The model's answer is not valid text: it holds \\udcff at byte "), reason
    assert "it was not run" in reason and "Invalid test" not in reason
    assert verdicts[1]["exec"] is None
    assert verdicts[2]["reason"].startswith("Invalid test: vars describe no test")


def test_evaluate_many_takes_answers_as_bytes_that_are_not_utf8():
    verdicts = e2beval.evaluate_many([(GOOD.encode(), VARS), (b"```python\nprint('caf\xe9')\n```\n", VARS)])
    assert verdicts[0]["pass"] is True
    assert verdicts[1]["reason"].startswith("The model's answer is not valid text"), verdicts[1]["reason"]


def test_evaluate_never_raises_for_a_lone_surrogate_in_the_answer():
    verdict = e2beval.evaluate(LONE, VARS)
    assert verdict["pass"] is False
    assert verdict["reason"].startswith("The model's answer is not valid text: it holds \\udcff"), verdict["reason"]


def test_vars_with_a_lone_surrogate_are_an_invalid_test_named_by_their_field():
    bad_vars = {"testCode": "print(double(21))  # \udcff", "expectedOutput": "42"}
    verdicts = e2beval.evaluate_many([(GOOD, bad_vars), (GOOD, VARS)])
    assert verdicts[1]["pass"] is True
    assert verdicts[0]["reason"].startswith("Invalid test: vars.testCode holds \\udcff, a lone surrogate"), \
        verdicts[0]["reason"]
    try:
        e2beval.evaluate(GOOD, bad_vars)
    except e2beval.InputError as error:  # bad vars are the caller's: evaluate raises for them, and says where
        assert str(error).startswith("vars.testCode holds \\udcff, a lone surrogate"), str(error)
    else:
        raise AssertionError("evaluate accepted vars holding a lone surrogate")
