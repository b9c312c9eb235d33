"""The promptfoo + E2B tutorial's Python assertion logic, on the official E2B Python SDK (e2b_code_interpreter)
and nothing else: extract the function, refuse unsafe patterns, run it with the test's inputs in a fresh E2B
sandbox, compare stdout. Here the SDK reaches `e2beval serve` through E2B_API_URL, E2B_SANDBOX_URL and
E2B_API_KEY; unset them and the same file runs on E2B's cloud."""
import re

from e2b_code_interpreter import Sandbox

FENCED_BLOCK = re.compile(r"```(?:\s*python)?\s*\r?\n(.*?)```", re.DOTALL | re.IGNORECASE)
UNSAFE_PATTERNS = [r"import\s+socket", r"import\s+requests", r"import\s+urllib", r"os\.system", r"subprocess",
                   r"eval\(", r"exec\(", r"open\(\s*['\"]/etc", r"open\(\s*['\"]/proc", r"__import__\("]


def extract_code(output, function_name):
    fenced = FENCED_BLOCK.search(output)
    if fenced:
        return fenced.group(1)
    named = re.search(rf"^def {re.escape(function_name)}\(.*?\):.*?(?=^\S|\Z)", output, re.DOTALL | re.MULTILINE)
    if named:
        return named.group(0)
    any_def = re.search(r"^def .*", output, re.DOTALL | re.MULTILINE)
    return any_def.group(0) if any_def else None


def cases_of(variables):
    """(input, expected) pairs: the test's `test_cases`, or its one `test_input` + `expected_output`."""
    if variables.get("test_cases"):
        return [(str(case["input"]), str(case["expected"])) for case in variables["test_cases"]]
    return [(str(variables.get("test_input", "")), str(variables.get("expected_output", "")))]


def get_assert(output, context):
    variables = context.get("vars", {})
    function_name = variables.get("function_name", "")
    code = extract_code(output, function_name)
    if not code or f"def {function_name}(" not in code:
        return {"pass": False, "score": 0.0, "reason": f"No Python function named {function_name} found"}
    if any(re.search(pattern, code) for pattern in UNSAFE_PATTERNS):
        return {"pass": False, "score": 0.0, "reason": "Unsafe pattern detected in generated code"}

    cases = cases_of(variables)
    program = code + "\n\n" + "\n".join(f"print({function_name}({given}))" for given, _ in cases)
    expected_error = variables.get("expected_error")
    sandbox = Sandbox.create(allow_internet_access=False, timeout=60)
    try:
        execution = sandbox.run_code(program, language="python", timeout=5)
    finally:
        sandbox.kill()

    if execution.error:
        if expected_error and execution.error.name == expected_error:
            return {"pass": True, "score": 1.0, "reason": f"Expected error: {expected_error}"}
        return {"pass": False, "score": 0.0,
                "reason": f"Execution error: {execution.error.name}: {execution.error.value}"}
    if expected_error:
        return {"pass": False, "score": 0.0, "reason": f"Expected {expected_error}, but the code ran without it"}
    got = "".join(execution.logs.stdout).strip().splitlines()
    wanted = [expected for _, expected in cases]
    matches = sum(1 for index, expected in enumerate(wanted) if index < len(got) and got[index].strip() == expected)
    if matches == len(wanted) and len(got) == len(wanted):
        return {"pass": True, "score": 1.0, "reason": "Correct output: " + ", ".join(got)}
    return {"pass": False, "score": matches / len(wanted),
            "reason": f"Expected {', '.join(wanted)}, got {', '.join(got)}"}
