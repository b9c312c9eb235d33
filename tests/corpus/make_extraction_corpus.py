#!/usr/bin/env python3
"""Writes tests/corpus/extraction.txt: realistic model answers with the exact code e2beval should extract.

The answers are composed from a few real solutions and the shapes models answer in (prose around a fence,
several blocks, helpers, tests, REPL sessions, no fences, CRLF, BOM, wrong tags, ...). Regenerate after
editing; the .txt file is what the tests read. Format per case:
  @@@@ <id> function=<name|-> language=<python|javascript|bash> [crlf] [bom] [keep_main]
  <model output>
  ---- expected
  <code, or the single line <none>>
"""
import pathlib

FUNCS = {
    "factorial": (
        "def factorial(n):\n"
        "    if n < 0:\n"
        "        raise ValueError(\"n must be non-negative\")\n"
        "\n"
        "    result = 1\n"
        "    for i in range(2, n + 1):\n"
        "        result *= i\n"
        "    return result\n"),
    "is_palindrome": (
        "def is_palindrome(s):\n"
        "    cleaned = ''.join(c.lower() for c in s if c.isalnum())\n"
        "    return cleaned == cleaned[::-1]\n"),
    "find_largest": (
        "def find_largest(numbers):\n"
        "    \"\"\"Return the largest number in a non-empty list.\n"
        "\n"
        "    >>> find_largest([1, 5, 3])\n"
        "    5\n"
        "    \"\"\"\n"
        "    largest = numbers[0]\n"
        "    for n in numbers[1:]:\n"
        "        if n > largest:\n"
        "            largest = n\n"
        "    return largest\n"),
    "reverse_string": (
        "def reverse_string(s: str) -> str:\n"
        "    return s[::-1]\n"),
    "word_count": (
        "from collections import Counter\n"
        "\n"
        "\n"
        "def word_count(text):\n"
        "    words = text.lower().split()\n"
        "\n"
        "    return dict(Counter(words))\n"),
    "fib": (
        "from functools import lru_cache\n"
        "\n"
        "\n"
        "@lru_cache(maxsize=None)\n"
        "def fib(n):\n"
        "    if n < 2:\n"
        "        return n\n"
        "    return fib(n - 1) + fib(n - 2)\n"),
    "gcd_list": (
        "import math\n"
        "\n"
        "\n"
        "def gcd_list(values):\n"
        "    result = 0\n"
        "    for v in values:\n"
        "        result = math.gcd(result, v)\n"
        "    return result\n"),
    "flatten": (
        "def flatten(items):\n"
        "    out = []\n"
        "    for item in items:\n"
        "        if isinstance(item, list):\n"
        "            out.extend(flatten(item))\n"
        "        else:\n"
        "            out.append(item)\n"
        "\n"
        "    return out\n"),
}

HELPER = (
    "def is_prime(n):\n"
    "    if n < 2:\n"
    "        return False\n"
    "    for d in range(2, int(n ** 0.5) + 1):\n"
    "        if n % d == 0:\n"
    "            return False\n"
    "    return True\n")
SUM_PRIMES = (
    "def sum_primes(limit):\n"
    "    return sum(n for n in range(limit + 1) if is_prime(n))\n")

EXAMPLE_ARGS = {"factorial": "5", "is_palindrome": "'racecar'", "find_largest": "[1, 5, 3]",
                "reverse_string": "'hello'", "word_count": "'a b a'", "fib": "10", "gcd_list": "[12, 18]",
                "flatten": "[1, [2, [3]]]"}

cases = []


def add(case_id, function, output, expected, language="python", flags=()):
    cases.append((case_id, function, language, list(flags), output, expected))


def fence(code, tag="python", marker="```"):
    return f"{marker}{tag}\n{code}{marker}\n"


intro = ["Here is the implementation:\n\n", "Sure! Below is a Python solution.\n\n",
         "You can solve this with a simple loop:\n\n", "## Solution\n\n"]
outro = ["\nThis runs in O(n) time.\n", "\nLet me know if you need anything else!\n", "", "\n**Complexity:** linear.\n"]

for k, (name, code) in enumerate(FUNCS.items()):
    args = EXAMPLE_ARGS[name]
    # 1. prose + one python fence
    add(f"{name}-prose-fence", name, intro[k % 4] + fence(code) + outro[k % 4], code)
    # 2. tag variants
    tag = ["py", "Python", "python3", "", "PYTHON", "py3", "python title=\"solution.py\"", "{.python}"][k]
    add(f"{name}-tag-{tag.split()[0] if tag else 'none'}", name, "Code:\n\n" + fence(code, tag) + "\nDone.\n", code)
    # 3. solution + usage block
    add(f"{name}-usage-block", name,
        intro[(k + 1) % 4] + fence(code) + "\nExample usage:\n\n" + fence(f"print({name}({args}))\n") + outro[(k + 2) % 4],
        code)
    # 4. main guard in the same block
    main = f"\n\nif __name__ == \"__main__\":\n    print({name}({args}))\n"
    add(f"{name}-main-guard", name, fence(code + main), code)
    # 5. trailing example prints with a comment
    example = f"\n\n# Example usage\nprint({name}({args}))\nresult = {name}({args})\nprint(result)\n"
    add(f"{name}-trailing-examples", name, intro[k % 4] + fence(code + example), code)
    # 6. no fences at all: prose, code, prose
    add(f"{name}-no-fence", name,
        "Here's how you could write it.\n\n" + code + "\nThe function above handles the edge cases.\n", code)
    # 7. CRLF
    add(f"{name}-crlf", name, intro[(k + 3) % 4] + fence(code) + outro[k % 4], code, flags=["crlf"])
    # 8. unterminated last fence, tilde and long fences alternate
    if k % 3 == 0:
        add(f"{name}-unterminated", name, "Answer:\n```python\n" + code, code)
    elif k % 3 == 1:
        add(f"{name}-tilde", name, "Answer:\n" + fence(code, "python", "~~~") + "\n", code)
    else:
        add(f"{name}-long-fence", name, "Answer:\n" + fence(code, "python", "````") + "\n", code)
    # 9. indented fence inside a list item
    indented = "".join(("   " + line if line else "") + "\n" for line in code.splitlines())
    add(f"{name}-list-item", name, "Steps:\n\n1. Define the function:\n\n   ```python\n" + indented +
        "   ```\n\n2. Call it with your input.\n", code)
    # 10. a unittest block after the solution
    tests = (f"import unittest\n\n\nclass Test{name.title().replace('_', '')}(unittest.TestCase):\n"
             f"    def test_example(self):\n        self.assertTrue({name}({args}) is not None)\n\n\n"
             "if __name__ == \"__main__\":\n    unittest.main()\n")
    add(f"{name}-test-block", name, fence(code) + "\nAnd some tests:\n\n" + fence(tests), code)

# Helpers split across blocks.
add("helper-block-first", "sum_primes",
    "First a helper:\n\n" + fence(HELPER) + "\nThen the solution:\n\n" + fence(SUM_PRIMES) + "\n",
    HELPER + "\n\n" + SUM_PRIMES)
add("helper-block-after", "sum_primes",
    "Solution:\n\n" + fence(SUM_PRIMES) + "\nIt uses this helper:\n\n" + fence(HELPER),
    HELPER + "\n\n" + SUM_PRIMES)
add("helper-import-block", "gcd_list",
    "Imports:\n\n" + fence("import math\n") + "\nFunction:\n\n" + fence(FUNCS["gcd_list"].split("\n\n\n", 1)[1]),
    "import math\n\n" + FUNCS["gcd_list"].split("\n\n\n", 1)[1])
add("helper-same-block-with-example", "sum_primes",
    fence(HELPER + "\n\n" + SUM_PRIMES + "\n\nprint(sum_primes(10))\n"), HELPER + "\n\n" + SUM_PRIMES)
add("helper-no-fence", "sum_primes",
    "We need a primality test:\n\n" + HELPER + "\nand then the sum:\n\n" + SUM_PRIMES + "\nThat's it.\n",
    HELPER + "\n\n" + SUM_PRIMES)

# REPL sessions.
add("repl-session-definition", "reverse_string",
    "In the interpreter:\n\n```python\n>>> def reverse_string(s):\n...     return s[::-1]\n...\n>>> reverse_string('abc')\n'cba'\n```\n",
    "def reverse_string(s):\n    return s[::-1]\n")
add("repl-session-after-code", "factorial",
    fence(FUNCS["factorial"]) + "\nTry it:\n\n```pycon\n>>> factorial(5)\n120\n```\n", FUNCS["factorial"])
add("repl-usage-first", "is_palindrome",
    "```python\n>>> is_palindrome('racecar')\nTrue\n```\n\nImplementation:\n\n" + fence(FUNCS["is_palindrome"]),
    FUNCS["is_palindrome"])

# Choosing the right block.
add("naive-then-final", "find_largest",
    "A first attempt:\n\n" + fence("def largest(xs):\n    return sorted(xs)[-1]\n") +
    "\nBut the task wants this name:\n\n" + fence(FUNCS["find_largest"]), FUNCS["find_largest"])
add("other-language-first", "factorial",
    "In JavaScript:\n\n" + fence("function factorial(n) { return n <= 1 ? 1 : n * factorial(n - 1); }\n", "javascript") +
    "\nIn Python:\n\n" + fence(FUNCS["factorial"]), FUNCS["factorial"])
add("wrong-tag-only", "reverse_string", "```javascript\ndef reverse_string(s):\n    return s[::-1]\n```\n",
    "def reverse_string(s):\n    return s[::-1]\n")
add("text-tag", "reverse_string", "```text\ndef reverse_string(s):\n    return s[::-1]\n```\n",
    "def reverse_string(s):\n    return s[::-1]\n")
add("bom", "is_palindrome", "\ufeff" + fence(FUNCS["is_palindrome"]), FUNCS["is_palindrome"])
add("keep-main", "reverse_string", fence(FUNCS["reverse_string"] + "\n\nif __name__ == \"__main__\":\n    print(reverse_string('x'))\n"),
    FUNCS["reverse_string"] + "\n\nif __name__ == \"__main__\":\n    print(reverse_string('x'))\n", flags=["keep_main"])
add("no-function-name", "-", "Here:\n\n" + fence("x = int(input())\nprint(x * 2)\n"), "x = int(input())\nprint(x * 2)\n")
add("no-code", "factorial", "I'm sorry, I can't help with that request.\n", "<none>")
add("inline-code-only", "factorial", "Use `math.factorial(n)` from the standard library; no code needed.\n", "<none>")
add("tabs-in-block", "flatten", fence(FUNCS["flatten"].replace("    ", "\t")), FUNCS["flatten"].replace("    ", "\t"))
add("decorator-no-fence", "fib", "Memoise it:\n\n" + FUNCS["fib"] + "\nThis is fast.\n", FUNCS["fib"])
add("class-solution", "Stack",
    fence("class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        self.items.append(x)\n\n\ns = Stack()\ns.push(1)\nprint(s.items)\n"),
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        self.items.append(x)\n\n\ns = Stack()\ns.push(1)\nprint(s.items)\n")

# JavaScript and bash.
JS_FN = "function add(a, b) {\n  return a + b;\n}\n"
add("js-function", "add", "Here you go:\n\n" + fence(JS_FN + "\nconsole.log(add(1, 2));\n", "javascript"),
    JS_FN + "\nconsole.log(add(1, 2));\n", language="javascript")
add("js-arrow", "add", fence("const add = (a, b) => a + b;\n\nmodule.exports = { add };\n", "js"),
    "const add = (a, b) => a + b;\n\nmodule.exports = { add };\n", language="javascript")
add("js-exports", "add", fence("exports.add = function (a, b) {\n  return a + b;\n};\n", "node"),
    "exports.add = function (a, b) {\n  return a + b;\n};\n", language="javascript")
add("js-after-python", "add", fence("def add(a, b):\n    return a + b\n") + "\nOr in JS:\n\n" + fence(JS_FN, "typescript"),
    JS_FN, language="javascript")
add("js-ts-tag", "add", fence("function add(a: number, b: number): number {\n  return a + b;\n}\n", "ts"),
    "function add(a: number, b: number): number {\n  return a + b;\n}\n", language="javascript")
add("bash-block", "-", "Run this:\n\n" + fence("for f in *.txt; do\n  wc -l \"$f\"\ndone\n", "bash"),
    "for f in *.txt; do\n  wc -l \"$f\"\ndone\n", language="bash")
add("bash-sh-tag", "count_lines", fence("count_lines() {\n  wc -l < \"$1\"\n}\n", "sh"),
    "count_lines() {\n  wc -l < \"$1\"\n}\n", language="bash")
add("bash-after-python", "-", fence("print('hi')\n") + fence("echo hi\n", "shell"), "echo hi\n", language="bash")

lines = [
    "# Extraction corpus, generated by make_extraction_corpus.py (edit that, then regenerate).",
    "# Each case: a model's answer and the exact code CodeExtractor must return (trailing whitespace aside).",
]
for case_id, function, language, flags, output, expected in cases:
    header = f"@@@@ {case_id} function={function} language={language}" + "".join(" " + f for f in flags)
    lines.append(header)
    lines.append(output.rstrip("\n"))
    lines.append("---- expected")
    lines.append(expected.rstrip("\n"))
path = pathlib.Path(__file__).with_name("extraction.txt")
path.write_text("\n".join(lines) + "\n", encoding="utf-8")
print(f"{len(cases)} cases -> {path}")
