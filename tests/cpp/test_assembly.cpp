// Tests for eval/assembly.hpp: a MultiPL-E row and an answer -> the program to judge. The answers have the shapes of
// the shared dataset's GPT answers (docs/languages.md names the rows): a repeated prompt in a fence, the model's own
// main and tests, extra imports, a truncated fence; and MultiPL-E's own raw continuations.
#include "e2beval/eval/assembly.hpp"

#include <doctest/doctest.h>

#include <string>

#include "e2beval/core/error.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_assembly {

using e2beval::AnswerKind;
using e2beval::Language;
using e2beval::MultiplETask;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::size_t count(const std::string& text, std::string_view part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

MultiplETask cpp_task() {
    return {"HumanEval_39_prime_fib", Language::cpp,
            "#include<assert.h>\n#include<bits/stdc++.h>\n// prime_fib returns n-th number that is a Fibonacci number "
            "and it's also prime.\nlong prime_fib(long n) {\n",
            "}\nint main() {\n    auto candidate = prime_fib;\n    assert(candidate((1)) == (2));\n}\n",
            {"\n}"}};
}

MultiplETask java_task() {
    return {"HumanEval_23_strlen", Language::java,
            "import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nclass Problem {\n"
            "    // Return length of given string\n    public static long strlen(String string) {\n",
            "    }\n    public static void main(String[] args) {\n    assert(strlen((\"\")) == (0l));\n    }\n\n}\n",
            {"\n    }\n"}};
}

MultiplETask go_task() {
    return {"HumanEval_7_filter_by_substring", Language::go,
            "package filter_by_substring_test\n\nimport (\n    \"testing\"\n    \"fmt\"\n)\n\n"
            "// Filter an input list of strings only for ones that contain given substring\n"
            "func filter_by_substring(strings []string, substring string) []string {\n",
            "func TestFilter_By_Substring(t *testing.T) {\n  candidate := filter_by_substring\n"
            "  if fmt.Sprintf(\"%v\", candidate([]string{}, \"john\")) != fmt.Sprintf(\"%v\", []string{}) { t.Errorf(\"x\") }\n}\n",
            {"\nfunc", "struct", "\n// "}};
}

MultiplETask rust_task() {
    return {"HumanEval_9_rolling_max", Language::rust,
            "use std::collections::HashMap;\n\n/// Rolling maximum.\nfn rolling_max(numbers: Vec<isize>) -> Vec<isize> {\n",
            "}\n\nfn main() {\n    let candidate = rolling_max;\n    assert_eq!(candidate(vec![]), Vec::<isize>::new());\n}\n",
            {"\n}"}};
}

MultiplETask js_task(Language language = Language::javascript) {
    const bool ts = language == Language::typescript;
    return {"HumanEval_53_add", language,
            std::string("// Add two numbers x and y\nfunction add(x") + (ts ? ": number, y: number): number {\n" : ", y){\n"),
            std::string(ts ? "declare var require: any;\n" : "") +
                "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n"
                "  assert.deepEqual(candidate(0, 1),1);\n}\n\ntest();",
            {"\nfunction ", "\n/*", "\n//", "\nconsole.log"}};
}

MultiplETask bash_task() {
    return {"HumanEval_53_add", Language::bash,
            "#!/bin/bash\n# Add two numbers x and y\n#\n# $1 is an integer\n# $2 is an integer\nadd() {\n",
            "}\n\ncandidate() {\n    add \"$@\"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate \"0\" \"1\") = \"1\" ]]\n}\n\nrun_test",
            {"\n}"}};
}

}  // namespace

TEST_CASE("MultiPL-E language names: the dataset's and e2beval's") {
    CHECK(e2beval::multipl_e_language("go_test.go") == Language::go);
    CHECK(e2beval::multipl_e_language("rs") == Language::rust);
    CHECK(e2beval::multipl_e_language("sh") == Language::bash);
    CHECK(e2beval::multipl_e_language("ts") == Language::typescript);
    CHECK(e2beval::multipl_e_language("typescript") == Language::typescript);
    CHECK_FALSE(e2beval::multipl_e_language("php").has_value());
    CHECK(e2beval::answer_kind_from_string("auto") == AnswerKind::automatic);
    CHECK_FALSE(e2beval::answer_kind_from_string("raw").has_value());
}

TEST_CASE("the entry point is the function of the prompt's last line, in every language") {
    CHECK(e2beval::multipl_e_entry_point(cpp_task()) == "prime_fib");
    CHECK(e2beval::multipl_e_entry_point(java_task()) == "strlen");
    CHECK(e2beval::multipl_e_entry_point(go_task()) == "filter_by_substring");
    CHECK(e2beval::multipl_e_entry_point(rust_task()) == "rolling_max");
    CHECK(e2beval::multipl_e_entry_point(js_task()) == "add");
    CHECK(e2beval::multipl_e_entry_point(js_task(Language::typescript)) == "add");
    CHECK(e2beval::multipl_e_entry_point(bash_task()) == "add");
    auto broken = cpp_task();
    broken.prompt = "// no function here\n";
    CHECK_THROWS_AS(e2beval::multipl_e_entry_point(broken), e2beval::input_error);
}

TEST_CASE("a continuation is MultiPL-E's program: prompt + answer cut at the first stop token + tests") {
    const auto task = cpp_task();
    const std::string completion = "    return n;\n}\n\nint main() { return 1; }\n";
    const auto program = e2beval::assemble_multipl_e(task, completion, AnswerKind::continuation);
    CHECK(program.kind == AnswerKind::continuation);
    CHECK(program.source == task.prompt + "    return n;" + "\n" + task.tests);
    CHECK(program.file_name == "prog.cpp");
    CHECK(contains(program.explanation, "stop token"));
    // The automatic kind reads a body (it defines no prime_fib) the same way.
    CHECK(e2beval::assemble_multipl_e(task, completion).source == program.source);
}

TEST_CASE("C++: the model's own main is cut by its braces; a helper after the function stays (SandboxFusion's \\n} cut drops it)") {
    const std::string answer =
        "Here is the code:\n\n```cpp\n#include <vector>\n#include<assert.h>\n#include<bits/stdc++.h>\n"
        "long prime_fib(long n) {\n    long count = 0;\n    for (long a = 2;; ++a) if (is_prime(a) && ++count == n) return a;\n}\n"
        "bool is_prime(long x) {\n    return x > 1;\n}\n"
        "int main() {\n    std::string s = \"} int main() {\";  // a brace in a string\n    char c = '}';\n"
        "    if (true) { assert(prime_fib(1) == 2); }\n    return 0;\n}\n"
        "```\n\nThis prints nothing.";
    const auto program = e2beval::assemble_multipl_e(cpp_task(), answer);
    CHECK(program.kind == AnswerKind::freeform);
    CHECK(contains(program.source, "bool is_prime(long x)"));
    CHECK(count(program.source, "int main()") == 1);  // the tests' own
    CHECK_FALSE(contains(program.source, "a brace in a string"));
    CHECK(contains(program.source, "#include<bits/stdc++.h>\n"));
    CHECK(contains(program.source, "auto candidate = prime_fib;"));
    CHECK_FALSE(contains(program.source, "}\n}\nint main() {\n    auto candidate"));  // the tests' first `}` was dropped
    CHECK(contains(program.explanation, "removed: int main()"));
}

TEST_CASE("C++: a main left open by a truncated answer is cut to the end; the prompt's unions are kept unless redefined") {
    auto task = cpp_task();
    task.prompt = "#include<assert.h>\n#include<bits/stdc++.h>\nunion Union_long_float {\n    long f0;\n    float f1;\n};\n"
                  "// Compare\nUnion_long_float compare_one(long a) {\n";
    const std::string truncated = "```cpp\nUnion_long_float compare_one(long a) {\n    Union_long_float u; u.f0 = a; return u;\n}\n\n"
                                  "int main() {\n    auto x = compare_one(1);\n    std::cout <<";
    const auto program = e2beval::assemble_multipl_e(task, truncated);
    CHECK(program.kind == AnswerKind::freeform);
    CHECK_FALSE(contains(program.source, "std::cout <<"));
    CHECK(contains(program.source, "union Union_long_float {"));
    const std::string redefined = "```cpp\nunion Union_long_float { long f0; float f1; };\nUnion_long_float compare_one(long a) {\n"
                                  "    Union_long_float u; u.f0 = a; return u;\n}\n```";
    CHECK(count(e2beval::assemble_multipl_e(task, redefined).source, "union Union_long_float") == 1);
}

TEST_CASE("the block that defines the function is taken, not a first block of usage") {
    const std::string answer = "Usage:\n```cpp\nstd::cout << prime_fib(3);\n```\nThe function:\n```c++\n"
                               "long prime_fib(long n) { return n; }\n```\nOutput:\n```\n5\n```\n";
    const auto program = e2beval::assemble_multipl_e(cpp_task(), answer);
    CHECK(program.kind == AnswerKind::freeform);
    CHECK(contains(program.source, "long prime_fib(long n) { return n; }"));
    CHECK_FALSE(contains(program.source, "std::cout"));
    CHECK(contains(program.explanation, "fenced block 2 of 3"));
}

TEST_CASE("a fenced body without the signature is read as a continuation") {
    const auto program = e2beval::assemble_multipl_e(cpp_task(), "```cpp\n    return n + 1;\n}\n```");
    CHECK(program.kind == AnswerKind::continuation);
    CHECK(program.source == cpp_task().prompt + "    return n + 1;\n" + cpp_task().tests);
}

TEST_CASE("Java: a public class Main keeps its name and file; its main is replaced by the tests, imports merged") {
    const std::string answer =
        "```java\nimport java.util.*;\nimport java.util.stream.*;\n\npublic class Main {\n"
        "    public static long strlen(String string) {\n        return string.length();\n    }\n\n"
        "    public static void main(String[] args) {\n        System.out.println(strlen(\"abc\")); // }\n    }\n}\n```";
    const auto program = e2beval::assemble_multipl_e(java_task(), answer);
    CHECK(program.kind == AnswerKind::freeform);
    CHECK(program.file_name == "Main.java");
    CHECK(program.main_class == "Main");
    CHECK(count(program.source, "import java.util.*;") == 1);
    CHECK(contains(program.source, "import org.javatuples.*;"));
    CHECK(contains(program.source, "import java.util.stream.*;"));
    CHECK_FALSE(contains(program.source, "System.out.println"));
    CHECK(contains(program.source, "assert(strlen((\"\")) == (0l));"));
    // The tests close the class: the braces still balance.
    CHECK(count(program.source, "{") == count(program.source, "}"));
}

TEST_CASE("Java: class Problem with a helper method after the entry; a bare method is wrapped in class Problem") {
    const std::string answer =
        "```java\nclass Problem {\n    public static long strlen(String string) {\n        return count(string);\n    }\n"
        "    static long count(String s) { return s.length(); }\n}\n```";
    const auto program = e2beval::assemble_multipl_e(java_task(), answer);
    CHECK(program.file_name == "Problem.java");
    CHECK(program.main_class == "Problem");
    CHECK(contains(program.source, "static long count(String s)"));
    CHECK(program.source.find("static long count") < program.source.find("public static void main"));

    const auto bare = e2beval::assemble_multipl_e(java_task(), "```java\npublic static long strlen(String string) {\n    return 0;\n}\n```");
    CHECK(bare.main_class == "Problem");
    CHECK(contains(bare.source, "class Problem {\npublic static long strlen"));
}

TEST_CASE("Go: the prompt's package, merged imports, the model's main and TestXxx of the row's name removed") {
    const std::string answer =
        "```go\npackage main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n\t\"testing\"\n)\n\n"
        "func filter_by_substring(strings_ []string, substring string) []string {\n\tvar out []string\n"
        "\tfor _, s := range strings_ {\n\t\tif strings.Contains(s, substring) {\n\t\t\tout = append(out, s)\n\t\t}\n\t}\n"
        "\treturn out\n}\n\nfunc TestFilter_By_Substring(t *testing.T) {\n\tt.Log(\"}\")\n}\n\n"
        "func main() {\n\tfmt.Println(filter_by_substring(nil, \"a\"))\n\tos.Exit(0)\n}\n```";
    const auto program = e2beval::assemble_multipl_e(go_task(), answer);
    CHECK(program.kind == AnswerKind::freeform);
    CHECK(program.file_name == "prog_test.go");
    CHECK(program.source.starts_with("package filter_by_substring_test\n"));
    CHECK_FALSE(contains(program.source, "package main"));
    CHECK(count(program.source, "func TestFilter_By_Substring") == 1);  // the row's
    CHECK_FALSE(contains(program.source, "func main()"));
    CHECK(contains(program.source, "\"strings\""));
    CHECK(count(program.source, "\"fmt\"") == 1);
    CHECK(contains(program.source, "\"testing\""));
    CHECK_FALSE(contains(program.source, "\"os\""));  // used only by the cut main
    CHECK(contains(program.explanation, "func main"));
}

TEST_CASE("Go: an import the answer never used stays (go rejects it, as it would the answer alone)") {
    const std::string answer = "```go\nimport \"sort\"\n\nfunc filter_by_substring(strings []string, substring string) []string {\n"
                               "\treturn strings\n}\n```";
    const auto program = e2beval::assemble_multipl_e(go_task(), answer);
    CHECK(contains(program.source, "\"sort\""));
}

TEST_CASE("Rust: fn main and the test module go with their attributes; the prompt's use is added once") {
    const std::string answer =
        "```rust\nfn rolling_max(numbers: Vec<isize>) -> Vec<isize> {\n    let mut m: HashMap<isize, isize> = HashMap::new();\n"
        "    let s = r#\"}\"#;\n    let _ = (s, &mut m);\n    numbers\n}\n\nfn main() {\n    println!(\"{:?}\", rolling_max(vec![1]));\n}\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn it_works() { assert_eq!(rolling_max(vec![]), vec![]); }\n}\n```";
    const auto program = e2beval::assemble_multipl_e(rust_task(), answer);
    CHECK(program.file_name == "prog.rs");
    CHECK(count(program.source, "fn main()") == 1);
    CHECK_FALSE(contains(program.source, "mod tests"));
    CHECK_FALSE(contains(program.source, "#[cfg(test)]"));
    CHECK(count(program.source, "use std::collections::HashMap;") == 1);
    const std::string imports_it = "```rust\nuse std::collections::{HashMap, HashSet};\nfn rolling_max(numbers: Vec<isize>) -> Vec<isize> "
                                   "{\n    numbers\n}\n```";
    CHECK_FALSE(contains(e2beval::assemble_multipl_e(rust_task(), imports_it).source, "use std::collections::HashMap;"));
}

TEST_CASE("JavaScript and TypeScript: the answer's examples, assert import and exports go; its other code stays") {
    for (const auto language : {Language::javascript, Language::typescript}) {
        CAPTURE(e2beval::to_string(language));
        const bool ts = language == Language::typescript;
        const std::string signature = ts ? "function add(x: number, y: number): number {" : "function add(x, y) {";
        const std::string answer = "```" + std::string(ts ? "typescript" : "javascript") +
                                   "\nconst assert = require('assert');\nconst TABLE = [1, 2];\nexport " + signature +
                                   "\n    return x + y;\n}\n\n// Example usage:\nconsole.log(add(2, 3)); // 5\nconsole.log(\n  add(5, 7)\n);\n"
                                   "module.exports = { add };\n```";
        const auto program = e2beval::assemble_multipl_e(js_task(language), answer);
        CHECK(program.kind == AnswerKind::freeform);
        CHECK(program.file_name == (ts ? "prog.ts" : "prog.js"));
        CHECK_FALSE(contains(program.source, "console.log"));
        CHECK_FALSE(contains(program.source, "add(5, 7)"));
        CHECK_FALSE(contains(program.source, "require('assert')"));
        CHECK_FALSE(contains(program.source, "module.exports"));
        CHECK_FALSE(contains(program.source, "export "));
        CHECK(contains(program.source, "const TABLE = [1, 2];"));
        CHECK(contains(program.source, signature));
        CHECK(contains(program.source, "test();"));
    }
}

TEST_CASE("bash: the answer's functions stay, its top-level calls and guards go") {
    const std::string answer =
        "```bash\n#!/bin/bash\n\nadd() {\n    local x=$1\n    if [[ $x -gt 0 ]]; then\n        echo $(( x + $2 ))\n    else\n"
        "        echo \"$2\"\n    fi\n}\n\nhelper() { echo ok; }\n\n# Example usage\nadd 2 3\nresult=$(add 5 7)\necho \"$result\"\n"
        "if [[ \"${BASH_SOURCE[0]}\" == \"${0}\" ]]; then\n    add \"$@\"\nfi\n```";
    const auto program = e2beval::assemble_multipl_e(bash_task(), answer);
    CHECK(program.kind == AnswerKind::freeform);
    CHECK(program.file_name == "prog.sh");
    CHECK(contains(program.source, "add() {\n    local x=$1"));
    CHECK(contains(program.source, "        echo \"$2\"\n    fi\n}\n"));
    CHECK(contains(program.source, "helper() { echo ok; }"));
    CHECK_FALSE(contains(program.source, "\nadd 2 3"));
    CHECK_FALSE(contains(program.source, "echo \"$result\""));
    CHECK_FALSE(contains(program.source, "BASH_SOURCE"));
    CHECK(contains(program.source, "candidate() {"));
}

TEST_CASE("hostile answers: unclosed brackets by the hundred thousand, deep template nesting, a lone quote") {
    // Each must assemble (into a program that fails to compile) without quadratic work or deep recursion.
    std::string brackets = "```cpp\nlong prime_fib(long n) { return n; }\n";
    for (int i = 0; i < 100000; ++i) brackets += "int main( prime_fib( ";
    const auto cpp = e2beval::assemble_multipl_e(cpp_task(), brackets);
    CHECK(cpp.kind == AnswerKind::freeform);
    CHECK(contains(cpp.source, "long prime_fib(long n) { return n; }"));
    CHECK(cpp.source.size() < brackets.size());  // the unterminated main( ... was cut to the end

    std::string nested = "```ts\nfunction add(x: number, y: number): number {\n  return x + y;\n}\nconst s = ";
    for (int i = 0; i < 50000; ++i) nested += "`${";
    const auto ts = e2beval::assemble_multipl_e(js_task(Language::typescript), nested);
    CHECK(ts.kind == AnswerKind::freeform);

    const auto quote = e2beval::assemble_multipl_e(java_task(), "```java\nclass Problem {\n    public static long strlen(String s) {\n"
                                                                "        char c = '\n        return \"}\";\n    }\n}\n```");
    CHECK(quote.kind == AnswerKind::freeform);
}

}  // namespace e2beval_test_assembly
