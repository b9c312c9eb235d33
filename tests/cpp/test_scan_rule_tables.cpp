// Tests for the scanner's rule catalog and tables (src/analysis/rule_catalog.hpp, rules/python_modules.cpp,
// javascript_rules.cpp): what a RuleId checked at compile time holds at run time, the module and member tables'
// lookups, and one rule per language found through SafetyScanner.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "analysis/rule_catalog.hpp"
#include "analysis/scripting_rules.hpp"
#include "e2beval/analysis/safety.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_scan_rule_tables {

using e2beval::Language;
using e2beval::Policy;
using e2beval::PolicyPreset;
using e2beval::SafetyScanner;
using e2beval::detail::find_rule;
using e2beval::detail::kRuleTables;
using e2beval::detail::Level;
using e2beval::detail::RuleId;

// Checked while compiling: a RuleId names its catalog entry (a misspelled id is a compile error instead).
static_assert(RuleId("js-fs").rule().language == Language::javascript);
static_assert(RuleId("call-eval").rule().levels[1] == Level::warning);
static_assert(!RuleId());

TEST_CASE("rule catalog: a RuleId made at compile time is the catalog's entry for its id") {
    constexpr RuleId os_system("os-system");
    CHECK(os_system);
    CHECK(os_system.id() == "os-system");
    CHECK(&os_system.rule() == find_rule("os-system"));
    CHECK(os_system.rule().language == Language::python);
    CHECK(os_system == RuleId("os-system"));
    CHECK_FALSE(os_system == RuleId("os-popen"));
    CHECK(RuleId().id().empty());
    // Run-time ids (a policy's lists) are looked up, and an unknown one is not found.
    CHECK(find_rule("go-process") == &RuleId("go-process").rule());
    CHECK(find_rule("os-sytem") == nullptr);
    CHECK(find_rule("") == nullptr);
}

TEST_CASE("rule catalog: ids are unique across every language's table, and SafetyScanner::rules lists them all") {
    std::set<std::string_view> ids;
    std::size_t count = 0;
    for (const auto table : kRuleTables) {
        for (const auto& rule : table) {
            ++count;
            CHECK_MESSAGE(ids.insert(rule.id).second, "rule id listed twice: " << rule.id);
        }
    }
    CHECK(count > 100);
    CHECK(SafetyScanner::rules().size() == count);
}

TEST_CASE("python module table: an import's first component decides, the table's row says the rule and why") {
    using e2beval::detail::python_import_rule;
    const auto* urllib = python_import_rule("urllib.request");
    REQUIRE(urllib != nullptr);
    CHECK(urllib->rule == RuleId("import-urllib"));
    CHECK(urllib->network);
    REQUIRE(python_import_rule("pickle") != nullptr);
    CHECK(python_import_rule("pickle")->rule == RuleId("import-serialization"));
    CHECK_FALSE(python_import_rule("pickle")->network);
    CHECK(python_import_rule("xml.etree") == nullptr);  // xmlrpc is a network module, xml is not
    CHECK(python_import_rule("urllibx") == nullptr);  // a prefix of a name is not the module
    CHECK(python_import_rule("math") == nullptr);
    CHECK(python_import_rule("os") == nullptr);  // importing os is fine; its members are the member table's
}

TEST_CASE("python member table: exact members, exec-family prefixes, any member of builtins, import renames") {
    using e2beval::detail::python_member_rule;
    const auto* system = python_member_rule("os", "system");
    REQUIRE(system != nullptr);
    CHECK(system->rule == RuleId("os-system"));
    CHECK(system->rule_when_imported == RuleId("import-os-system"));
    REQUIRE(python_member_rule("posix", "system") != nullptr);  // posix and nt read as os
    CHECK(python_member_rule("nt", "popen")->rule == RuleId("os-popen"));
    CHECK(python_member_rule("os", "execvpe")->rule == RuleId("os-exec"));
    CHECK(python_member_rule("os", "posix_spawnp")->rule == RuleId("os-exec"));
    CHECK(python_member_rule("os", "getenv")->rule == RuleId("os-environ"));
    CHECK(python_member_rule("os", "getcwd") == nullptr);
    CHECK(python_member_rule("os", "path") == nullptr);
    CHECK(python_member_rule("sys", "modules")->rule == RuleId("sys-internals"));
    CHECK(python_member_rule("sys", "argv") == nullptr);
    CHECK(python_member_rule("importlib", "import_module")->verb == "calls");
    CHECK(python_member_rule("asyncio", "open_connection")->network);
    CHECK(python_member_rule("__builtins__", "anything")->rule == RuleId("builtins-access"));
    CHECK(python_member_rule("math", "system") == nullptr);
}

TEST_CASE("javascript module table: node: prefixes and subpaths read as their module") {
    using e2beval::detail::javascript_module_rule;
    CHECK(javascript_module_rule("fs") == RuleId("js-fs"));
    CHECK(javascript_module_rule("node:fs/promises") == RuleId("js-fs"));
    CHECK(javascript_module_rule("child_process") == RuleId("js-child-process"));
    CHECK(javascript_module_rule("node:https") == RuleId("js-network"));
    CHECK(javascript_module_rule("worker_threads") == RuleId("js-vm"));
    CHECK_FALSE(javascript_module_rule("path"));
    CHECK_FALSE(javascript_module_rule("fsevents"));
}

TEST_CASE("one rule per language, found through SafetyScanner at its line and column under strict") {
    struct Case {
        Language language;
        std::string_view code;
        RuleId rule;
        std::size_t line;
        std::size_t column;
    };
    const Case cases[] = {
        {Language::python, "import math\nimport socket\n", "import-socket", 2, 8},
        {Language::python, "import os as o\no.system('id')\n", "os-system", 2, 1},
        {Language::javascript, "const cp = require('child_process');\n", "js-child-process", 1, 20},
        {Language::typescript, "/// <reference path=\"/etc/passwd\" />\nlet x: number = 1;\n", "ts-reference-path",
         1, 1},
        {Language::bash, "echo hi\ncurl http://example.com\n", "bash-network-tool", 2, 1},
        {Language::c, "#include <stdlib.h>\nint main() { system(\"id\"); }\n", "c-process", 2, 14},
        {Language::cpp, "#include <sys/socket.h>\n", "c-network", 1, 10},
        {Language::go, "package main\nimport \"os/exec\"\n", "go-process", 2, 8},
        {Language::rust, "fn main() { std::process::Command::new(\"id\"); }\n", "rust-process", 1, 13},
        // Found at .exec(, the call that starts the program.
        {Language::java, "class A { void f() throws Exception { Runtime.getRuntime().exec(\"id\"); } }\n",
         "java-process", 1, 60},
    };
    Policy policy;
    policy.preset = PolicyPreset::strict;
    const SafetyScanner scanner(policy);
    for (const auto& c : cases) {
        CAPTURE(c.code);
        const auto findings = scanner.scan(c.code, c.language);
        const auto found = std::find_if(findings.begin(), findings.end(),
                                        [&](const auto& finding) { return finding.rule == c.rule.id(); });
        REQUIRE_MESSAGE(found != findings.end(), "no " << c.rule.id() << " finding");
        CHECK(found->line == c.line);
        CHECK(found->column == c.column);
        CHECK(found->severity == e2beval::Severity::block);
    }
}

}  // namespace e2beval_test_scan_rule_tables
