// Tests for safety.hpp: every rule on real tokens with exact line and column, nothing found in strings or
// comments, presets, allow and deny lists, and the JavaScript and bash scanners.
#include "e2beval/safety.hpp"

#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "e2beval/error.hpp"

using e2beval::Language;
using e2beval::Policy;
using e2beval::PolicyPreset;
using e2beval::SafetyScanner;
using e2beval::Severity;

namespace {

using Hit = std::tuple<std::string, std::size_t, std::size_t>;  // rule, line, column

std::vector<Hit> hits(const std::vector<e2beval::Finding>& findings) {
    std::vector<Hit> result;
    for (const auto& finding : findings) result.emplace_back(finding.rule, finding.line, finding.column);
    return result;
}

std::vector<Hit> scan(std::string_view code, PolicyPreset preset, Language language = Language::python) {
    Policy policy;
    policy.preset = preset;
    return hits(SafetyScanner(policy).scan(code, language));
}

}  // namespace

TEST_CASE("the ten tutorial checks, each at its token") {
    const std::string code =
        "import os, socket\n"
        "import requests\n"
        "import urllib.request\n"
        "from urllib.parse import quote\n"
        "os.system(\"ls\")\n"
        "subprocess.run([\"ls\"])\n"
        "x = eval(\"1+1\")\n"
        "exec(\"pass\")\n"
        "open('/etc/passwd')\n"
        "data = open(\"/proc/self/environ\").read()\n"
        "m = __import__(\"os\")\n"
        "from socket import create_connection\n";
    const std::vector<Hit> expected{
        {"import-socket", 1, 12}, {"import-requests", 2, 8}, {"import-urllib", 3, 8}, {"import-urllib", 4, 6},
        {"os-system", 5, 1},      {"subprocess", 6, 1},      {"call-eval", 7, 5},     {"call-exec", 8, 1},
        {"open-etc", 9, 1},       {"open-proc", 10, 8},      {"dunder-import", 11, 5}, {"import-socket", 12, 6},
    };
    CHECK(scan(code, PolicyPreset::tutorial) == expected);
    CHECK(scan(code, PolicyPreset::standard) == expected);

    const auto findings = SafetyScanner().scan("import socket\n", Language::python);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::block);
    CHECK(findings[0].message ==
          "imports socket: raw network access from generated code (the sandbox has no network; this is advice)");
    CHECK(SafetyScanner::blocks(findings));
}

TEST_CASE("the same words inside strings, f-strings, triple-quoted strings and comments are not findings") {
    const std::string code =
        "s = \"import socket; os.system('x'); subprocess; eval(1); exec(2)\"\n"
        "t = f\"use subprocess and eval( carefully {value!r:>10}\"\n"
        "u = '''\n"
        "import requests\n"
        "open('/etc/passwd')\n"
        "'''\n"
        "# import socket  os.system  __import__( open('/proc/1')\n"
        "v = rb'exec(' + Rb\"__import__(\" + BR'''os.system'''\n"
        "w = \"escaped \\\" eval(1) \\\" still a string\"\n"
        "z = 'it\\'s eval(1)'\n"
        "def eval(x):  # a definition named eval is not a call\n"
        "    return x\n"
        "obj.eval(1)\n"
        "path = 'socket'\n";
    CHECK(scan(code, PolicyPreset::strict).empty());
    CHECK(scan(code, PolicyPreset::tutorial).empty());
}

TEST_CASE("code inside f-string fields is still checked") {
    CHECK(scan("y = f\"{eval(x)}\"\n", PolicyPreset::tutorial) == std::vector<Hit>{{"call-eval", 1, 8}});
    CHECK(scan("y = f'''\n  {os.system('ls')}\n'''\n", PolicyPreset::tutorial) ==
          std::vector<Hit>{{"os-system", 2, 4}});
}

TEST_CASE("lines and columns across continuations and multi-line strings") {
    CHECK(scan("x = (1 +\n     eval(\"2\"))\n", PolicyPreset::tutorial) == std::vector<Hit>{{"call-eval", 2, 6}});
    CHECK(scan("doc = \"\"\"one\ntwo\"\"\"; eval(\"1\")\n", PolicyPreset::tutorial) ==
          std::vector<Hit>{{"call-eval", 2, 9}});
    CHECK(scan("total = 1 + \\\n    exec(\"x\")\n", PolicyPreset::tutorial) == std::vector<Hit>{{"call-exec", 2, 5}});
    CHECK(scan("\tif x:\r\n\t\teval(y)\r\n", PolicyPreset::tutorial) == std::vector<Hit>{{"call-eval", 2, 3}});
}

TEST_CASE("from os import system: standard and strict find it, tutorial does not") {
    const std::string code = "from os import path, system\nsystem('ls')\n";
    CHECK(scan(code, PolicyPreset::tutorial).empty());
    CHECK(scan(code, PolicyPreset::standard) == std::vector<Hit>{{"import-os-system", 1, 22}});
    CHECK(scan(code, PolicyPreset::strict) == std::vector<Hit>{{"import-os-system", 1, 22}});
}

TEST_CASE("the standard additions") {
    const std::string code =
        "import ctypes\n"
        "import os as o\n"
        "o.popen('ls')\n"
        "os.execv('/bin/sh', ['sh'])\n"
        "os.spawnlp(os.P_WAIT, 'ls', 'ls')\n"
        "import importlib\n"
        "importlib.import_module('socket')\n"
        "getattr(__builtins__, 'eval')\n"
        "from importlib import import_module\n";
    const std::vector<Hit> expected{
        {"import-ctypes", 1, 8},          {"os-popen", 3, 1}, {"os-exec", 4, 1}, {"os-exec", 5, 1},
        {"importlib-import-module", 7, 1}, {"builtins-access", 8, 9}, {"importlib-import-module", 9, 23},
    };
    CHECK(scan(code, PolicyPreset::standard) == expected);
    CHECK(scan(code, PolicyPreset::tutorial).empty());
}

TEST_CASE("the strict additions") {
    const std::string code =
        "open('out.txt', 'w')\n"
        "open('/tmp/data')\n"
        "open('notes.txt', mode='a+')\n"
        "open('in.txt')\n"
        "code = compile('1', 'x', 'eval')\n"
        "g = globals()\n"
        "().__class__.__base__.__subclasses__()\n"
        "f.__globals__\n"
        "pattern = re.compile('x')\n";
    const std::vector<Hit> expected{
        {"open-write", 1, 1},   {"open-absolute-path", 2, 1}, {"open-write", 3, 1},      {"call-compile", 5, 8},
        {"call-globals", 6, 5}, {"dunder-subclasses", 7, 23},  {"dunder-globals", 8, 3},
    };
    CHECK(scan(code, PolicyPreset::strict) == expected);
    CHECK(scan(code, PolicyPreset::standard).empty());
    // /etc is reported once, as open-etc, not also as an absolute path.
    CHECK(scan("open('/etc/shadow', 'w')\n", PolicyPreset::strict) ==
          std::vector<Hit>{{"open-etc", 1, 1}, {"open-write", 1, 1}});
}

TEST_CASE("allow_rules removes findings, deny_rules raises them to block") {
    const std::string code = "import subprocess\nimport ctypes\nx = eval('1')\n";
    Policy allow;
    allow.preset = PolicyPreset::standard;
    allow.allow_rules = {"subprocess", "call-eval"};
    CHECK(hits(SafetyScanner(allow).scan(code, Language::python)) == std::vector<Hit>{{"import-ctypes", 2, 8}});

    Policy deny;
    deny.preset = PolicyPreset::tutorial;
    deny.deny_rules = {"import-ctypes"};
    const auto findings = SafetyScanner(deny).scan(code, Language::python);
    CHECK(hits(findings) == std::vector<Hit>{{"subprocess", 1, 8}, {"import-ctypes", 2, 8}, {"call-eval", 3, 5}});
    CHECK(findings[1].severity == Severity::block);

    Policy both;
    both.allow_rules = {"call-eval"};
    both.deny_rules = {"call-eval"};
    CHECK(hits(SafetyScanner(both).scan("eval('1')\n", Language::python)) == std::vector<Hit>{{"call-eval", 1, 1}});

    Policy unknown;
    unknown.deny_rules = {"no-such-rule"};
    CHECK_THROWS_WITH_AS(SafetyScanner{unknown},
                         doctest::Contains("unknown safety rule \"no-such-rule\" in deny_rules; known rules: "
                                           "import-socket, import-requests"),
                         e2beval::input_error);
}

TEST_CASE("javascript: child_process, eval and process.env on tokens") {
    const std::string code =
        "const cp = require('child_process');\n"
        "import { exec } from \"node:child_process\";\n"
        "eval(\"1\");\n"
        "console.log(process.env.HOME);\n"
        "// eval(\"x\") require('child_process')\n"
        "const s = \"eval(1) process.env\";\n"
        "const t = `template ${eval(\"2\")} and eval(3)`;\n"
        "const r = /eval\\(/g;\n"
        "obj.eval(1);\n"
        "/* process.env\n eval(2) */\n";
    Policy policy;
    const auto findings = SafetyScanner(policy).scan(code, Language::javascript);
    CHECK(hits(findings) == std::vector<Hit>{{"js-child-process", 1, 20},
                                             {"js-child-process", 2, 22},
                                             {"js-eval", 3, 1},
                                             {"js-process-env", 4, 13},
                                             {"js-eval", 7, 23}});
    REQUIRE(findings.size() == 5);
    CHECK(findings[3].severity == Severity::warning);
    CHECK(scan(code, PolicyPreset::tutorial, Language::javascript).empty());

    policy.deny_rules = {"js-process-env"};
    const auto denied = SafetyScanner(policy).scan("process.env.TOKEN\n", Language::javascript);
    REQUIRE(denied.size() == 1);
    CHECK(denied[0].severity == Severity::block);
}

TEST_CASE("bash: network tools, /dev/tcp and rm -rf / as commands, not as text") {
    const std::string code =
        "curl -s http://example.com\n"
        "echo \"curl wget nc\" # comment: curl\n"
        "X=1 wget http://x\n"
        "cat < /dev/tcp/example.com/80\n"
        "rm -rf /\n"
        "rm -rf ./build\n"
        "cat <<EOF\n"
        "curl inside a here-document\n"
        "EOF\n"
        "sudo nc -l 80\n"
        "echo $(curl http://y)\n"
        "ls | /usr/bin/wget z\n"
        "echo '/dev/tcp/quoted/1'\n"
        "rm -r -f /*\n";
    const std::vector<Hit> expected{
        {"bash-network-tool", 1, 1}, {"bash-network-tool", 3, 5}, {"bash-dev-tcp", 4, 7},
        {"bash-rm-root", 5, 1},      {"bash-network-tool", 10, 6}, {"bash-network-tool", 11, 8},
        {"bash-network-tool", 12, 6}, {"bash-rm-root", 14, 1},
    };
    CHECK(scan(code, PolicyPreset::standard, Language::bash) == expected);
    CHECK(scan(code, PolicyPreset::tutorial, Language::bash).empty());
}

TEST_CASE("names of severities and presets") {
    CHECK(e2beval::to_string(Severity::info) == "info");
    CHECK(e2beval::to_string(Severity::warning) == "warning");
    CHECK(e2beval::to_string(Severity::block) == "block");
    CHECK(e2beval::to_string(PolicyPreset::tutorial) == "tutorial");
    CHECK(e2beval::to_string(PolicyPreset::standard) == "standard");
    CHECK(e2beval::to_string(PolicyPreset::strict) == "strict");
    CHECK_FALSE(SafetyScanner::blocks({}));
}
