// Tests for the scanner's C, C++, Go, Rust, Java and TypeScript rules (src/analysis/rules/): each rule found at
// its token, and the same words in comments, strings, raw strings and character literals never found.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/c_family_tokenizer.hpp"
#include "e2beval/analysis/safety.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_safety_c_family {

using e2beval::Language;
using e2beval::Policy;
using e2beval::PolicyPreset;
using e2beval::SafetyScanner;
using e2beval::Severity;

namespace {

using Hit = std::tuple<std::string, std::size_t, std::size_t>;  // rule, line, column

std::vector<Hit> scan(std::string_view code, Language language, PolicyPreset preset = PolicyPreset::strict) {
    Policy policy;
    policy.preset = preset;
    std::vector<Hit> result;
    for (const auto& finding : SafetyScanner(policy).scan(code, language))
        result.emplace_back(finding.rule, finding.line, finding.column);
    return result;
}

std::vector<std::string> rules_found(std::string_view code, Language language, PolicyPreset preset = PolicyPreset::strict) {
    std::vector<std::string> rules;
    for (const auto& [rule, line, column] : scan(code, language, preset))
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
    std::sort(rules.begin(), rules.end());
    return rules;
}

bool blocks(std::string_view code, Language language, PolicyPreset preset = PolicyPreset::standard) {
    Policy policy;
    policy.preset = preset;
    return SafetyScanner::blocks(SafetyScanner(policy).scan(code, language));
}

using Rules = std::vector<std::string>;

}  // namespace

TEST_CASE("c-family tokenizer: comments, raw strings, characters, lifetimes and digit separators are not code") {
    using e2beval::detail::CDialect;
    using e2beval::detail::CTokenKind;
    const auto kinds = [](std::string_view code, CDialect dialect) {
        std::vector<std::pair<CTokenKind, std::string>> out;
        for (const auto& token : e2beval::detail::tokenize_c_family(code, dialect))
            out.emplace_back(token.kind, token.kind == CTokenKind::string || token.kind == CTokenKind::header ||
                                                 token.kind == CTokenKind::directive
                                             ? token.value
                                             : std::string(token.text));
        return out;
    };
    using K = CTokenKind;
    CHECK(kinds("auto s = R\"x(system(\"ls\"))x\"; int n = 1'000;", CDialect::cpp) ==
          std::vector<std::pair<K, std::string>>{{K::identifier, "auto"}, {K::identifier, "s"}, {K::punct, "="},
                                                 {K::string, "system(\"ls\")"}, {K::punct, ";"},
                                                 {K::identifier, "int"}, {K::identifier, "n"}, {K::punct, "="},
                                                 {K::number, "1'000"}, {K::punct, ";"}});
    CHECK(kinds("fn f<'a>(x: &'a str) -> char { /* outer /* nested */ still */ 'x' }", CDialect::rust).size() == 19);
    CHECK(kinds("let s = r#\"a \"quoted\" system\"#;", CDialect::rust)[3] ==
          std::pair<K, std::string>{K::string, "a \"quoted\" system"});
    CHECK(kinds("#include <sys/socket.h>\n#define X \"/etc\"\nint y;", CDialect::cpp) ==
          std::vector<std::pair<K, std::string>>{{K::directive, "include"}, {K::header, "sys/socket.h"},
                                                 {K::directive, "define"}, {K::identifier, "X"}, {K::string, "/etc"},
                                                 {K::identifier, "int"}, {K::identifier, "y"}, {K::punct, ";"}});
    CHECK(kinds("//go:embed a.txt \"b c\"\nvar s = `raw\nsystem`", CDialect::go) ==
          std::vector<std::pair<K, std::string>>{{K::directive, "go:embed"}, {K::header, "a.txt"}, {K::header, "b c"},
                                                 {K::identifier, "var"}, {K::identifier, "s"}, {K::punct, "="},
                                                 {K::string, "raw\nsystem"}});
    CHECK(kinds("String s = \"\"\"\n  Runtime.exec\n  \"\"\";", CDialect::java)[3].first == K::string);
    // A '#' after code on the same line is not a directive.
    CHECK(kinds("x # y", CDialect::cpp)[1] == std::pair<K, std::string>{K::punct, "#"});
}

TEST_CASE("c and c++: processes, syscalls, asm, sockets, privileged calls, includes and paths, each at its token") {
    const std::string code =
        "#include <sys/socket.h>\n"                       // 1
        "#include \"/etc/shadow\"\n"                      // 2
        "#include </dev/zero>\n"                          // 3
        "#include \"../secret.h\"\n"                      // 4
        "int main() {\n"                                  // 5
        "    std::system(\"ls\");\n"                      // 6
        "    if (fork() == 0) execve(\"/bin/sh\", 0, 0);\n"  // 7
        "    syscall(272, 0x10000000);\n"                 // 8
        "    asm volatile(\"syscall\");\n"                // 9
        "    unshare(0); mount(0, 0, 0, 0, 0); ptrace(0, 0, 0, 0);\n"  // 10
        "    FILE* f = fopen(\"/proc/self/environ\", \"r\");\n"       // 11
        "    void* h = dlopen(\"libc.so.6\", 2); dlsym(h, \"system\");\n"  // 12
        "}\n";
    const std::vector<Hit> expected{
        {"c-network", 1, 10},      {"c-include-path", 2, 10}, {"c-include-path", 3, 10},
        {"c-include-path", 4, 10}, {"c-process", 6, 5},       {"c-process", 7, 9},
        {"c-process", 7, 22},      {"c-system-path", 7, 29},  {"c-syscall", 8, 5},
        {"c-inline-asm", 9, 5},    {"c-privileged", 10, 5},   {"c-privileged", 10, 17},
        {"c-privileged", 10, 39},  {"c-system-path", 11, 21}, {"c-dynamic-load", 12, 15},
        {"c-dynamic-load", 12, 39}, {"c-process", 12, 48},
    };
    CHECK(scan(code, Language::cpp, PolicyPreset::standard) == expected);
    CHECK(scan(code, Language::c, PolicyPreset::standard) == expected);
    CHECK(scan(code, Language::cpp, PolicyPreset::tutorial).empty());  // the tutorial checked only Python
}

TEST_CASE("c and c++: the same words in comments, strings, raw strings and characters are not findings") {
    const std::string code =
        "#include <bits/stdc++.h>\n"
        "#include <assert.h>\n"
        "// system(\"ls\"); fork(); #include \"/etc/shadow\"\n"
        "/* execve socket asm mount */\n"
        "std::string s = \"system(fork()) asm\";\n"
        "auto r = R\"(popen(\"x\") syscall(1))\";\n"
        "char c = '#'; int n = 1'000'000;\n"
        "struct pool { int fork() { return 1; } };\n"
        "int use(pool& p, pool* q) { return p.fork() + q->fork(); }\n"
        "std::vector<int> v; auto e = std::remove(v.begin(), v.end(), 1);\n"
        "long x = std::count(v.begin(), v.end(), 2);\n";
    CHECK(scan(code, Language::cpp).empty());
}

TEST_CASE("c and c++: assert overrides forge the verdict; exit, getenv and file changes are warnings") {
    CHECK(rules_found("#define NDEBUG\n#include <cassert>\n", Language::cpp) == Rules{"c-assert-override"});
    CHECK(rules_found("#undef assert\n#define assert(x) ((void)0)\n", Language::cpp) == Rules{"c-assert-override"});
    CHECK(rules_found("#undef NDEBUG\n#include <cassert>\n", Language::cpp).empty());  // turns assertions on
    CHECK(blocks("#define NDEBUG\n", Language::cpp));
    const std::string warnings = "int f() { exit(0); getenv(\"HOME\"); unlink(\"x\"); return 0; }\n";
    CHECK(rules_found(warnings, Language::cpp) == Rules{"c-env", "c-exit", "c-file-mutation"});
    CHECK_FALSE(blocks(warnings, Language::cpp));
    CHECK(blocks(warnings, Language::cpp, PolicyPreset::strict));
    CHECK(rules_found("#include <dlfcn.h>\n#include <linux/io_uring.h>\n#include <spawn.h>\n", Language::c) ==
          Rules{"c-dynamic-load", "c-privileged", "c-process"});
    // A function taken as a value hides the call made through it; a variable or field of the same name does not.
    CHECK(scan("int (*run)(const char*) = system;\nint f() { return run(\"id\"); }\n", Language::c) ==
          std::vector<Hit>{{"c-process", 1, 27}});
    CHECK(scan("void g(void (*f)(int)); void h() { g(&_exit); }\n", Language::c) == std::vector<Hit>{{"c-exit", 1, 39}});
    CHECK(scan("struct S { int system; }; int f(S s) { int fork = s.system; return fork; }\n", Language::cpp).empty());
    // #define's body is code: a macro that calls system is found where it is written.
    CHECK(scan("#define RUN(x) system(x)\n", Language::c) == std::vector<Hit>{{"c-process", 1, 16}});
    // Adjacent literals are one string: the path is found even when split.
    CHECK(scan("const char* p = \"/et\" \"c/passwd\";\n", Language::c) == std::vector<Hit>{{"c-system-path", 1, 17}});
}

TEST_CASE("go: os/exec, syscall, unsafe, cgo, net, embed and linkname, not in comments or strings") {
    const std::string code =
        "package x_test\n"                                   // 1
        "import (\n"                                         // 2
        "    \"fmt\"\n"                                      // 3
        "    \"os/exec\"\n"                                  // 4
        "    \"syscall\"\n"                                  // 5
        "    \"unsafe\"\n"                                   // 6
        "    \"net/http\"\n"                                 // 7
        "    \"net/url\"\n"                                  // 8
        "    _ \"embed\"\n"                                  // 9
        ")\n"                                                // 10
        "import \"C\"\n"                                     // 11
        "//go:embed /etc/passwd\n"                           // 12
        "var data string\n"                                  // 13
        "//go:linkname nanotime runtime.nanotime\n"          // 14
        "func f() { os.StartProcess(\"/bin/sh\", nil, nil) }\n";  // 15
    const std::vector<Hit> expected{
        {"go-process", 4, 5},   {"go-syscall", 5, 5},  {"go-unsafe", 6, 5},     {"go-network", 7, 5},
        {"go-embed", 9, 7},     {"go-cgo", 11, 8},     {"go-embed", 12, 1},     {"go-unsafe", 14, 1},
        {"go-process", 15, 12}, {"go-system-path", 15, 28},
    };
    CHECK(scan(code, Language::go, PolicyPreset::standard) == expected);
    const std::string benign =
        "package x_test\n"
        "import (\"fmt\"; \"strings\"; \"testing\")\n"
        "// import \"os/exec\"; syscall.Exec; unsafe.Pointer\n"
        "/* //go:embed /etc/passwd */\n"
        "func f(C []int, net int) string { s := `os/exec \"net\"`; return fmt.Sprint(C[0], net, s, strings.ToUpper(\"etc\")) }\n"
        "   //go:embed not-a-directive-when-indented\n";
    CHECK(scan(benign, Language::go).empty());
    const std::string warnings = "package p\nimport \"os\"\nfunc f() { os.Exit(0); _ = os.Getenv(\"X\"); os.RemoveAll(\"d\") }\n";
    CHECK(rules_found(warnings, Language::go) == Rules{"go-env", "go-exit", "go-file-mutation"});
    CHECK_FALSE(blocks(warnings, Language::go));
}

TEST_CASE("rust: process, net, ffi, asm, include_str!, unsafe, not in comments, raw strings or lifetimes") {
    const std::string code =
        "use std::process::Command;\n"                          // 1
        "use std::{net::TcpStream, io::Read};\n"                // 2
        "extern \"C\" { fn getpid() -> i32; }\n"                // 3
        "const S: &str = include_str!(\"/etc/shadow\");\n"      // 4
        "const T: &[u8] = include_bytes!(\"../../secret\");\n"  // 5
        "fn main() {\n"                                         // 6
        "    let _ = std::process::Command::new(\"sh\");\n"     // 7
        "    unsafe { libc::syscall(39); }\n"                   // 8
        "    unsafe { std::arch::asm!(\"syscall\"); }\n"        // 9
        "    let p = std::fs::read_to_string(\"/proc/1/environ\");\n"  // 10
        "}\n";
    const std::vector<Hit> expected{
        // The include macros' paths are host paths too: both rules say so.
        {"rust-process", 1, 5},        {"rust-network", 2, 11},      {"rust-ffi", 3, 1},
        {"rust-include-path", 4, 17},  {"rust-system-path", 4, 30},  {"rust-include-path", 5, 18},
        {"rust-system-path", 5, 33},   {"rust-process", 7, 13},      {"rust-unsafe", 8, 5},
        {"rust-ffi", 8, 14},           {"rust-unsafe", 9, 5},        {"rust-inline-asm", 9, 14},
        {"rust-system-path", 10, 37},
    };
    CHECK(scan(code, Language::rust, PolicyPreset::standard) == expected);
    const std::string benign =
        "// use std::process::Command; unsafe { asm!(\"\") }\n"
        "/* outer /* nested: include_str!(\"/etc/shadow\") */ still a comment: std::net */\n"
        "fn longest<'a>(x: &'a str, y: &'a str) -> &'a str { if x.len() > y.len() { x } else { y } }\n"
        "fn f() -> String { let s = r#\"std::process::Command::new(\"sh\") \"/etc\"\"#; let c = '\"'; format!(\"{}{}\", s, c) }\n"
        "fn g(v: &[i32]) -> i32 { v.iter().map(|x| x * 2).sum::<i32>() + (0..3).max().unwrap() + 1.max(2) }\n"
        "fn system(command: &str) -> usize { command.len() }\n";
    CHECK(scan(benign, Language::rust).empty());
    CHECK(rules_found("fn h() { std::process::exit(0); }", Language::rust) == Rules{"rust-exit"});
    CHECK_FALSE(blocks("fn h() { std::process::exit(0); }", Language::rust));
    CHECK(rules_found("fn f() { unsafe { let p = 0 as *const i32; } let s = include_str!(\"data.txt\"); }", Language::rust) ==
          Rules{"rust-include", "rust-unsafe"});
    CHECK_FALSE(blocks("fn f() { unsafe { } }", Language::rust));
    CHECK(blocks("const S: &str = include_str!(concat!(env!(\"HOME\"), \"/.ssh/id_rsa\"));", Language::rust));
}

TEST_CASE("java: Runtime.exec, ProcessBuilder, java.net, JNI, Unsafe, lookups by name") {
    const std::string code =
        "import java.util.*;\n"                                       // 1
        "import java.lang.reflect.*;\n"                               // 2
        "import java.net.Socket;\n"                                   // 3
        "import sun.misc.Unsafe;\n"                                   // 4
        "class Problem {\n"                                           // 5
        "    native int peek(long address);\n"                        // 6
        "    static void f() throws Exception {\n"                    // 7
        "        Runtime.getRuntime().exec(\"id\");\n"                // 8
        "        new ProcessBuilder(\"sh\").start();\n"               // 9
        "        System.loadLibrary(\"evil\");\n"                     // 10
        "        Class.forName(\"java.lang.\" + \"Runtime\");\n"      // 11
        "        new java.io.FileReader(\"/etc/shadow\");\n"          // 12
        "        java.net.URL u = null;\n"                            // 13
        "    }\n"
        "}\n";
    const std::vector<Hit> expected{
        {"java-network", 3, 8},     {"java-unsafe", 4, 8},      {"java-jni", 6, 5},
        {"java-process", 8, 30},    {"java-process", 9, 13},    {"java-jni", 10, 9},
        {"java-reflection", 11, 9}, {"java-process", 11, 23},   {"java-system-path", 12, 32},
        {"java-network", 13, 9},
    };
    CHECK(scan(code, Language::java, PolicyPreset::standard) == expected);
    const std::string benign =
        "import java.util.*;\nimport java.lang.reflect.*;\nimport java.security.*;\nimport java.io.*;\n"
        "import org.javatuples.*;\n"
        "class Problem {\n"
        "    // Runtime.getRuntime().exec(\"id\"); new ProcessBuilder(); System.loadLibrary(\"x\")\n"
        "    static String f() { String s = \"\"\"\n      java.net.Socket /etc/shadow\n      \"\"\"; char c = '\"';\n"
        "        int n = Runtime.getRuntime().availableProcessors();\n"
        "        return s + c + n + new StringBuilder(\"abc\").delete(0, 1); }\n"
        "}\n";
    CHECK(scan(benign, Language::java).empty());
    CHECK(rules_found("class P { void f() { System.exit(0); System.getenv(\"X\"); Class.forName(\"Foo\"); } }",
                      Language::java) == Rules{"java-env", "java-exit", "java-reflection"});
    CHECK_FALSE(blocks("class P { void f() { System.exit(0); System.getenv(\"X\"); } }", Language::java));
    CHECK(blocks("class P { void f() throws Exception { getClass().getMethod(\"exec\"); } }", Language::java));
}

TEST_CASE("typescript: the javascript rules, fetch, and /// <reference path> outside the workspace") {
    const std::string code =
        "/// <reference path=\"/etc/passwd\" />\n"
        "/// <reference types=\"node\" />\n"
        "import { execSync } from 'child_process';\n"
        "declare var require: any;\n"
        "const fs = require('fs');\n"
        "function f(x: number): Promise<Response> { return fetch(`http://127.0.0.1:${x}`); }\n";
    const std::vector<Hit> expected{
        {"ts-reference-path", 1, 1}, {"js-child-process", 3, 26}, {"js-fs", 5, 20}, {"js-network", 6, 51},
    };
    CHECK(scan(code, Language::typescript, PolicyPreset::standard) == expected);
    // Only the comments that open the file are directives; later ones are comments.
    CHECK(scan("const a = 1;\n/// <reference path=\"/etc/passwd\" />\n", Language::typescript).empty());
    CHECK(scan("/// <reference path=\"./types.d.ts\" />\nconst s: string = \"fetch('x') child_process\";\n",
               Language::typescript)
              .empty());
    CHECK(rules_found("fetch('http://x')", Language::javascript) == Rules{"js-network"});
}

TEST_CASE("c-family policy lists: allow_modules, allow_calls, deny_modules, deny_calls") {
    Policy policy;
    policy.allow_modules = {"os/exec"};
    policy.deny_calls = {"strings.ToUpper"};
    const auto findings = SafetyScanner(policy).scan(
        "package p\nimport (\"os/exec\"; \"strings\")\nfunc f() { exec.Command(\"ls\"); strings.ToUpper(\"a\") }\n",
        Language::go);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].rule == "denied-call");
    policy = {};
    policy.deny_modules = {"java.util"};
    policy.allow_calls = {"System.exit"};
    CHECK(rules_found("import java.util.List;\nclass P { void f() { System.exit(1); } }", Language::java) ==
          Rules{"java-exit"});
    const auto java = SafetyScanner(policy).scan("import java.util.List;\nclass P { void f() { System.exit(1); } }",
                                                 Language::java);
    REQUIRE(java.size() == 1);
    CHECK(java[0].rule == "denied-module");
}

TEST_CASE("rules() lists the new languages' rules with their presets") {
    const auto rules = SafetyScanner::rules();
    for (const auto language : {Language::c, Language::go, Language::rust, Language::java, Language::typescript})
        CHECK(std::any_of(rules.begin(), rules.end(), [&](const auto& rule) { return rule.language == language; }));
    for (const auto& rule : rules) {
        if (rule.language == Language::python || rule.language == Language::javascript || rule.language == Language::bash)
            continue;
        CAPTURE(rule.id);
        CHECK_FALSE(rule.tutorial.has_value());  // the tutorial checked only Python
        CHECK(rule.strict == Severity::block);
    }
}

}  // namespace e2beval_test_safety_c_family
