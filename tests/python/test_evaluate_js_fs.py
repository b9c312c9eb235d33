"""A JavaScript or TypeScript stdin/stdout answer reads its input through fs (require('fs').readFileSync(0)):
under the default preset it runs and is judged, with js-fs as a warning, while fs given a system
path still blocks before anything runs; `strict` blocks fs itself. Real sandboxes (docs/scanner.md, js-fs)."""

import e2beval

CASES = [{"stdin": "3\n1 2 3\n", "stdout": "6"}, {"stdin": "2\n10 -4\n", "stdout": "6"}, {"stdin": "1\n41\n", "stdout": "41"}]

JS_SUM = (
    "```javascript\n"
    "const fs = require('fs');\n"
    "const v = fs.readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean).map(Number);\n"
    "let s = 0;\n"
    "for (let i = 1; i <= v[0]; i++) s += v[i];\n"
    "console.log(s);\n"
    "```\n"
)

TS_SUM = (
    "```typescript\n"
    "declare var require: any;  // no @types/node, as in MultiPL-E's TypeScript\n"
    "const { readFileSync } = require('fs');\n"
    "const text: string = readFileSync(0, 'utf8');\n"
    "const v: number[] = text.split(/\\s+/).filter((t: string) => t).map(Number);\n"
    "console.log(v.slice(1, v[0] + 1).reduce((a: number, b: number) => a + b, 0));\n"
    "```\n"
)


def findings(verdict):
    return [(f["rule"], f["severity"]) for f in verdict["findings"]]


def test_a_javascript_stdin_answer_through_fs_runs_under_the_default_preset():
    verdict = e2beval.evaluate(JS_SUM, {"language": "javascript", "cases": CASES})
    assert verdict["status"] == "ran", verdict["reason"]
    assert verdict["pass"] is True, verdict["reason"]
    assert verdict["reason"] == "All 3 test cases passed"
    assert findings(verdict) == [("js-fs", "warning")]


def test_a_typescript_stdin_answer_destructuring_fs_runs_too():
    verdict = e2beval.evaluate(TS_SUM, {"language": "typescript", "cases": CASES})
    assert verdict["pass"] is True, verdict["reason"]
    assert findings(verdict) == [("js-fs", "warning")]


def test_fs_given_a_system_path_is_still_blocked_before_it_runs():
    answer = "```javascript\nconst fs = require('fs');\nconsole.log(fs.readFileSync('/etc/passwd', 'utf8').length);\n```\n"
    verdict = e2beval.evaluate(answer, {"language": "javascript", "cases": CASES})
    assert verdict["status"] == "blocked"
    assert verdict["pass"] is False
    assert ("js-fs-system-path", "block") in findings(verdict)
    assert verdict["reason"].startswith("Unsafe pattern detected in generated code: js-fs-system-path at line 2:")
    assert verdict["exec"] is None and verdict["cases"] == []  # nothing ran


def test_strict_blocks_loading_fs_at_all():
    verdict = e2beval.evaluate(JS_SUM, {"language": "javascript", "cases": CASES}, policy="strict")
    assert verdict["status"] == "blocked"
    assert findings(verdict) == [("js-fs", "block")]
