// Tests for extract.hpp: fences of every shape, choosing among blocks, helpers, prose without fences, and the
// errors a user sees when there is no code. Inputs are written the way models really answer.
#include "e2beval/analysis/extract.hpp"

#include <doctest/doctest.h>

#include <string>

#include "e2beval/core/error.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_extract {

using e2beval::CodeExtractor;
using e2beval::ExtractionMethod;
using e2beval::Language;

namespace {

CodeExtractor for_function(std::string name, Language language = Language::python) {
    e2beval::ExtractOptions options;
    options.function_name = std::move(name);
    options.language = language;
    return CodeExtractor(options);
}

template <typename Error>
std::string error_message(const CodeExtractor& extractor, std::string_view output) {
    try {
        extractor.extract(output);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("each python tag variant is recognised") {
    for (const std::string tag : {"python", "py", "python3", "Python", "PY"}) {
        CAPTURE(tag);
        const auto blocks = CodeExtractor::fenced_blocks("Here:\n```" + tag + "\nx = 1\n```\n");
        REQUIRE(blocks.size() == 1);
        CHECK(blocks[0].tag == tag);
        CHECK(blocks[0].language == Language::python);
        CHECK(blocks[0].code == "x = 1\n");
        CHECK(blocks[0].first_line == 2);
        CHECK(blocks[0].terminated);
    }
}

TEST_CASE("untagged, other-language and unknown tags, and info strings after the tag") {
    const auto blocks = CodeExtractor::fenced_blocks(
        "```\nuntagged\n```\n```javascript\nlet a;\n```\n```text\nsome output\n```\n"
        "```python title=\"solution.py\" {linenos}\nprint(1)\n```\n");
    REQUIRE(blocks.size() == 4);
    CHECK(blocks[0].tag == "");
    CHECK_FALSE(blocks[0].language.has_value());
    CHECK(blocks[1].tag == "javascript");
    CHECK(blocks[1].language == Language::javascript);
    CHECK(blocks[2].tag == "text");
    CHECK_FALSE(blocks[2].language.has_value());
    CHECK(blocks[3].tag == "python");
    CHECK(blocks[3].language == Language::python);
    CHECK(blocks[3].code == "print(1)\n");
    CHECK(blocks[3].first_line == 10);
}

TEST_CASE("tilde fences, longer fences and a closing fence that must match") {
    const auto blocks = CodeExtractor::fenced_blocks(
        "~~~python\ns = '```'\n```\n~~~\n````markdown\n```python\ninner\n```\n````\n");
    REQUIRE(blocks.size() == 2);
    // A ``` line does not close a ~~~ fence, and a shorter fence does not close a longer one.
    CHECK(blocks[0].code == "s = '```'\n```\n");
    CHECK(blocks[0].tag == "python");
    CHECK(blocks[1].code == "```python\ninner\n```\n");
    CHECK(blocks[1].tag == "markdown");
}

TEST_CASE("CRLF line endings are normalised") {
    const auto extraction = CodeExtractor().extract("Sure!\r\n```python\r\ndef f():\r\n    return 1\r\n```\r\n");
    CHECK(extraction.code == "def f():\n    return 1\n");
    CHECK(extraction.explanation == "fenced block 1 of 1 (```python at line 2)");
}

TEST_CASE("an unterminated last fence runs to the end of the output") {
    const auto blocks = CodeExtractor::fenced_blocks("Code:\n```python\ndef f():\n    return 2\n");
    REQUIRE(blocks.size() == 1);
    CHECK_FALSE(blocks[0].terminated);
    CHECK(blocks[0].code == "def f():\n    return 2\n");
    const auto extraction = CodeExtractor().extract("Code:\n```python\ndef f():\n    return 2\n");
    CHECK(extraction.explanation == "fenced block 1 of 1 (```python at line 2, never closed)");
}

TEST_CASE("an indented fence has its indentation removed from the body") {
    const auto extraction = for_function("add").extract(
        "1. Write the function:\n\n   ```python\n   def add(a, b):\n       return a + b\n   ```\n");
    CHECK(extraction.code == "def add(a, b):\n    return a + b\n");
    CHECK(extraction.method == ExtractionMethod::fenced_block);
    CHECK(extraction.explanation == "fenced block 1 of 1 (```python at line 3); defines add");
}

TEST_CASE("the block that defines the function wins over an earlier example block") {
    const std::string output =
        "Usage:\n```python\nprint(factorial(5))\n```\nImplementation:\n```python\n"
        "def factorial(n):\n    return 1 if n <= 1 else n * factorial(n - 1)\n```\n";
    const auto extraction = for_function("factorial").extract(output);
    CHECK(extraction.code == "def factorial(n):\n    return 1 if n <= 1 else n * factorial(n - 1)\n");
    CHECK(extraction.blocks_used == std::vector<std::size_t>{1});
    CHECK(extraction.explanation == "fenced block 2 of 2 (```python at line 6); defines factorial");
}

TEST_CASE("async def counts as a definition, a def inside a string does not") {
    const std::string output = "```python\ns = 'def fetch(x):'\n```\n```python\nasync def fetch(x):\n    return x\n```\n";
    const auto extraction = for_function("fetch").extract(output);
    CHECK(extraction.blocks_used == std::vector<std::size_t>{1});
    CHECK(extraction.code == "async def fetch(x):\n    return x\n");
}

TEST_CASE("two blocks: imports and a helper come along with the solution") {
    const std::string output =
        "First a helper:\n"
        "```python\n"
        "import math\n"
        "import os\n"
        "\n"
        "def is_prime(n):\n"
        "    if n < 2:\n"
        "        return False\n"
        "    return all(n % d for d in range(2, math.isqrt(n) + 1))\n"
        "\n"
        "def unused():\n"
        "    return os.getcwd()\n"
        "```\n"
        "Then the solution:\n"
        "```python\n"
        "def count_primes(limit):\n"
        "    return sum(1 for k in range(limit) if is_prime(k))\n"
        "```\n";
    const auto extraction = for_function("count_primes").extract(output);
    CHECK(extraction.code ==
          "import math\n"
          "\n"
          "def is_prime(n):\n"
          "    if n < 2:\n"
          "        return False\n"
          "    return all(n % d for d in range(2, math.isqrt(n) + 1))\n"
          "\n"
          "\n"
          "def count_primes(limit):\n"
          "    return sum(1 for k in range(limit) if is_prime(k))\n");
    CHECK(extraction.blocks_used == std::vector<std::size_t>{1, 0});
    CHECK(extraction.explanation ==
          "fenced block 2 of 2 (```python at line 15); defines count_primes; plus from block 1: import math, is_prime");
}

TEST_CASE("the first block with a matching or no tag is taken when no block defines the function") {
    const std::string output = "```text\nexpected output: 3\n```\n```\nprint(3)\n```\n```python\nprint(4)\n```\n";
    const auto extraction = for_function("solve").extract(output);
    CHECK(extraction.code == "print(3)\n");
    CHECK(extraction.blocks_used == std::vector<std::size_t>{1});
    CHECK(extraction.explanation == "fenced block 2 of 3 (``` at line 4); no block defines solve");
}

TEST_CASE("a javascript test picks the javascript block") {
    const std::string output =
        "```python\ndef greet():\n    pass\n```\n```js\nfunction greet() { return 'hi'; }\n```\n";
    const auto extraction = for_function("greet", Language::javascript).extract(output);
    CHECK(extraction.code == "function greet() { return 'hi'; }\n");
    CHECK(extraction.language == Language::javascript);
    CHECK(extraction.explanation == "fenced block 2 of 2 (```js at line 5); defines greet");
}

TEST_CASE("a block in another language is a last resort and says so") {
    const auto extraction = for_function("f").extract("Here:\n```bash\necho hi\n```\n");
    CHECK(extraction.code == "echo hi\n");
    CHECK(extraction.language == Language::bash);
    CHECK(extraction.explanation == "fenced block 1 of 1 (```bash at line 2); the tag is not python; no block defines f");
}

TEST_CASE("prose without fences: the def run with its decorators and blank lines") {
    const std::string output =
        "Here is my solution.\n"
        "\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def fib(n):\n"
        "    if n < 2:\n"
        "        return n\n"
        "\n"
        "    return fib(n - 1) + fib(n - 2)\n"
        "\n"
        "It uses memoisation, so it's fast.\n";
    const auto extraction = for_function("fib").extract(output);
    CHECK(extraction.method == ExtractionMethod::function_definition);
    CHECK(extraction.code ==
          "@functools.lru_cache(maxsize=None)\n"
          "def fib(n):\n"
          "    if n < 2:\n"
          "        return n\n"
          "\n"
          "    return fib(n - 1) + fib(n - 2)\n");
    CHECK(extraction.blocks_used.empty());
    CHECK(extraction.explanation == "unfenced code at lines 3-8 (def fib at line 4)");
}

TEST_CASE("prose without fences: imports and a second def continue the run, a prose line ends it") {
    const std::string output =
        "Sure, here you go:\n"
        "import math\n"
        "\n"
        "def area(r):\n"
        "    return math.pi * r ** 2\n"
        "\n"
        "def circumference(r):\n"
        "    return 2 * math.pi * r\n"
        "This computes both values.\n";
    const auto extraction = for_function("circumference").extract(output);
    CHECK(extraction.code ==
          "import math\n\ndef area(r):\n    return math.pi * r ** 2\n\ndef circumference(r):\n"
          "    return 2 * math.pi * r\n");
    CHECK(extraction.explanation == "unfenced code at lines 2-8 (def circumference at line 7)");
}

TEST_CASE("prose without fences: a helper from another run is added") {
    const std::string output =
        "We need a helper:\n"
        "def square(x):\n"
        "    return x * x\n"
        "and then the function itself:\n"
        "def sum_of_squares(values):\n"
        "    return sum(square(v) for v in values)\n";
    const auto extraction = for_function("sum_of_squares").extract(output);
    CHECK(extraction.method == ExtractionMethod::function_definition);
    CHECK(extraction.code ==
          "def square(x):\n    return x * x\n\n\ndef sum_of_squares(values):\n    return sum(square(v) for v in values)\n");
    CHECK(extraction.explanation == "unfenced code at lines 5-6 (def sum_of_squares at line 5); plus lines 2-3");
}

TEST_CASE("prose without fences and without the wanted name: every run from the first definition") {
    const std::string output = "Try this:\ndef helper():\n    return 42\nThat's all.\n";
    const auto extraction = for_function("answer").extract(output);
    CHECK(extraction.method == ExtractionMethod::any_definition);
    CHECK(extraction.code == "def helper():\n    return 42\n");
    CHECK(extraction.explanation == "unfenced code at lines 2-3; none of it defines answer");
    const auto without_name = CodeExtractor().extract(output);
    CHECK(without_name.explanation == "unfenced code at lines 2-3");
}

TEST_CASE("bare code with no prose is taken whole") {
    const std::string output = "n = int(input())\nprint(n * 2)\n";
    const auto extraction = CodeExtractor().extract(output);
    CHECK(extraction.method == ExtractionMethod::whole_output);
    CHECK(extraction.code == output);
    CHECK(extraction.explanation == "no fenced block; the whole output is Python code");
}

TEST_CASE("no code: extraction_error with what was expected and a preview") {
    const auto message = error_message<e2beval::extraction_error>(
        for_function("factorial"), "I'm sorry, I can't help with computing factorials today, it is not allowed.");
    CHECK(message ==
          "no code found in the model output (expected a ```python fenced block or a \"def factorial(\" definition); "
          "output starts: \"I'm sorry, I can't help with computing factorials today, it\xE2\x80\xA6\"");
    CHECK_FALSE(for_function("factorial").try_extract("I'm sorry, I can't.").has_value());
    CHECK(error_message<e2beval::extraction_error>(CodeExtractor(), "No.") ==
          "no code found in the model output (expected a ```python fenced block or a Python \"def\"); output starts: "
          "\"No.\"");
}

TEST_CASE("empty output: its own message, and the error code says no code") {
    CHECK(error_message<e2beval::extraction_error>(CodeExtractor(), "  \n\t\n") ==
          "the model output is empty; there is no code to run (check the provider's response and the prompt)");
    try {
        CodeExtractor().extract("");
        FAIL("extract of an empty output must throw");
    } catch (const e2beval::extraction_error& error) {
        CHECK(error.code() == e2beval::errc::no_code_found);
    }
    CHECK_FALSE(CodeExtractor().try_extract("").has_value());
}

TEST_CASE("invalid UTF-8 and NUL bytes are input errors, before any extraction") {
    CHECK(error_message<e2beval::input_error>(CodeExtractor(), "```python\nx = '\xC0\xAF'\n```\n") ==
          "model output is not valid UTF-8 (first bad byte at offset 15); re-encode it as UTF-8");
    CHECK(error_message<e2beval::input_error>(CodeExtractor(), std::string("```\0", 4)) ==
          "model output contains a NUL byte at offset 3; remove it (interpreters and process arguments cannot carry "
          "NUL bytes)");
}

TEST_CASE("to_string of ExtractionMethod") {
    CHECK(e2beval::to_string(ExtractionMethod::fenced_block) == "fenced_block");
    CHECK(e2beval::to_string(ExtractionMethod::function_definition) == "function_definition");
    CHECK(e2beval::to_string(ExtractionMethod::any_definition) == "any_definition");
    CHECK(e2beval::to_string(ExtractionMethod::whole_output) == "whole_output");
}

TEST_CASE("with a function name: example calls, prints, tests and the __main__ section are dropped") {
    e2beval::ExtractOptions options;
    options.function_name = "double";
    const std::string output =
        "```python\n"
        "import math\n\n"
        "def double(x):\n    return 2 * x\n\n\n"
        "# Example usage\n"
        "print(double(3))\n"
        "result = double(4)\n"
        "assert double(0) == 0\n\n"
        "def test_double():\n    assert double(1) == 2\n\n"
        "if __name__ == \"__main__\":\n    print(double(5))\n"
        "```\n";
    const auto extraction = e2beval::CodeExtractor(options).extract(output);
    CHECK(extraction.code == "import math\n\ndef double(x):\n    return 2 * x\n");
    CHECK(extraction.explanation.find("dropped the if __name__ == \"__main__\": section; dropped 4 example or test "
                                      "statements") != std::string::npos);

    options.keep_main = true;
    options.keep_examples = true;
    CHECK(e2beval::CodeExtractor(options).extract(output).code.find("__main__") != std::string::npos);
    // Without a function name nothing is dropped: the whole program is what runs.
    CHECK(e2beval::CodeExtractor().extract(output).code.find("print(double(3))") != std::string::npos);
}

TEST_CASE("a >>> session becomes the code typed at its prompts") {
    e2beval::ExtractOptions options;
    options.function_name = "inc";
    const auto extraction = e2beval::CodeExtractor(options).extract(
        "```pycon\n>>> def inc(x):\n...     return x + 1\n...\n>>> inc(1)\n2\n```\n");
    CHECK(extraction.code == "def inc(x):\n    return x + 1\n");
    CHECK(extraction.explanation.find("a >>> session") != std::string::npos);
}

TEST_CASE("a byte-order mark, typescript tags and exports") {
    CHECK(e2beval::CodeExtractor().extract("\xEF\xBB\xBF```python\nx = 1\n```\n").code == "x = 1\n");
    e2beval::ExtractOptions options;
    options.language = Language::javascript;
    options.function_name = "add";
    const auto typescript = e2beval::CodeExtractor(options).extract("```ts\nexports.add = (a, b) => a + b;\n```\n");
    CHECK(typescript.code == "exports.add = (a, b) => a + b;\n");
    CHECK(typescript.language == Language::javascript);
}

TEST_CASE("a local variable does not pull in another block's function of the same name") {
    e2beval::ExtractOptions options;
    options.function_name = "top";
    const auto extraction = e2beval::CodeExtractor(options).extract(
        "```python\ndef best(xs):\n    return max(xs)\n```\n\n```python\ndef top(xs):\n    best = xs[0]\n    return best\n```\n");
    CHECK(extraction.code == "def top(xs):\n    best = xs[0]\n    return best\n");
}

}  // namespace e2beval_test_extract
