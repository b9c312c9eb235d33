// The scanner's Python module tables: which import raises which rule, and which member of os, sys, importlib,
// asyncio and builtins does (python_rules.cpp applies them to imports, attribute chains and getattr by name).
// Data, not code: a module or member is a row, and every rule id is checked at compile time (RuleId).
#include <algorithm>
#include <array>

#include "analysis/scripting_rules.hpp"

namespace e2beval::detail {

namespace {

constexpr std::string_view kRawNetwork = "raw network access from generated code";
constexpr std::string_view kHttp = "HTTP requests from generated code";
constexpr std::string_view kUrls = "URL fetching from generated code";
constexpr std::string_view kForeign = "calls C functions and touches raw memory, around every Python-level check";
constexpr std::string_view kProcesses = "starts, signals or controls other processes";
constexpr std::string_view kNetworkModule = "a network client or server";
constexpr std::string_view kSerialization = "loading its data runs arbitrary code";
constexpr std::string_view kInterpreter = "runs or loads code by name, around these checks";
constexpr std::string_view kBuiltins = "reaches eval, exec and __import__ by another name";
constexpr std::string_view kIntrospection = "reaches frames and every live object, a step around restrictions";

// By the module's first component: `import urllib.request` is urllib's row.
constexpr ImportRule kImports[] = {
    {"socket", "import-socket", kRawNetwork, true},
    {"requests", "import-requests", kHttp, true},
    {"urllib", "import-urllib", kUrls, true},
    {"urllib2", "import-urllib", kUrls, true},
    {"urllib3", "import-urllib", kUrls, true},
    {"ctypes", "import-ctypes", kForeign, false},
    {"_ctypes", "import-ctypes", kForeign, false},
    {"cffi", "import-ctypes", kForeign, false},
    {"pty", "import-process", kProcesses, false},
    {"multiprocessing", "import-process", kProcesses, false},
    {"signal", "import-process", kProcesses, false},
    {"pexpect", "import-process", kProcesses, false},
    {"sh", "import-process", kProcesses, false},
    {"plumbum", "import-process", kProcesses, false},
    {"_posixsubprocess", "import-process", kProcesses, false},
    {"posix", "import-process", kProcesses, false},
    {"http", "import-network", kNetworkModule, true},
    {"ftplib", "import-network", kNetworkModule, true},
    {"smtplib", "import-network", kNetworkModule, true},
    {"telnetlib", "import-network", kNetworkModule, true},
    {"poplib", "import-network", kNetworkModule, true},
    {"imaplib", "import-network", kNetworkModule, true},
    {"nntplib", "import-network", kNetworkModule, true},
    {"xmlrpc", "import-network", kNetworkModule, true},
    {"socketserver", "import-network", kNetworkModule, true},
    {"ssl", "import-network", kNetworkModule, true},
    {"httpx", "import-network", kNetworkModule, true},
    {"aiohttp", "import-network", kNetworkModule, true},
    {"paramiko", "import-network", kNetworkModule, true},
    {"websocket", "import-network", kNetworkModule, true},
    {"websockets", "import-network", kNetworkModule, true},
    {"webbrowser", "import-network", kNetworkModule, true},
    {"pycurl", "import-network", kNetworkModule, true},
    {"asyncssh", "import-network", kNetworkModule, true},
    {"httplib2", "import-network", kNetworkModule, true},
    {"scapy", "import-network", kNetworkModule, true},
    {"pickle", "import-serialization", kSerialization, false},
    {"cPickle", "import-serialization", kSerialization, false},
    {"_pickle", "import-serialization", kSerialization, false},
    {"marshal", "import-serialization", kSerialization, false},
    {"shelve", "import-serialization", kSerialization, false},
    {"dill", "import-serialization", kSerialization, false},
    {"cloudpickle", "import-serialization", kSerialization, false},
    {"shutil", "import-shutil", "deletes and moves whole directory trees", false},
    {"importlib", "import-importlib", "loads modules by computed names, hidden from these checks", false},
    {"code", "import-interpreter", kInterpreter, false},
    {"codeop", "import-interpreter", kInterpreter, false},
    {"runpy", "import-interpreter", kInterpreter, false},
    {"imp", "import-interpreter", kInterpreter, false},
    {"zipimport", "import-interpreter", kInterpreter, false},
    {"pkgutil", "import-interpreter", kInterpreter, false},
    {"builtins", "builtins-access", kBuiltins, false},
    {"__builtin__", "builtins-access", kBuiltins, false},
    {"inspect", "import-introspection", kIntrospection, false},
    {"gc", "import-introspection", kIntrospection, false},
};

constexpr std::string_view kShell = "runs a shell command, outside the Python code under test";
constexpr std::string_view kProcessControl = "controls processes outside the code under test";
constexpr std::string_view kFileMutation = "changes the file system or environment";
constexpr std::string_view kEnvironment =
    "reads environment variables, where secrets live (the sandbox passes none unless asked)";
constexpr std::string_view kInternals = "reaches loaded modules or interpreter frames, around the import checks";
constexpr std::string_view kImportByName = "loads a module by a computed name, hidden from these checks";
constexpr std::string_view kStartsProgram = "starts another program";

using Match = PythonMemberRule::Match;

// The first row that matches wins. "os" stands for posix and nt too, "builtins" for __builtins__.
constexpr PythonMemberRule kMembers[] = {
    {"os", "system", Match::exact, "os-system", "import-os-system", kShell},
    {"os", "popen", Match::exact, "os-popen", {}, "runs a shell command and reads its output"},
    {"os", "exec", Match::prefix, "os-exec", {}, "starts another program (or replaces this one with it)"},
    {"os", "spawn", Match::prefix, "os-exec", {}, "starts another program (or replaces this one with it)"},
    {"os", "posix_spawn", Match::prefix, "os-exec", {}, "starts another program (or replaces this one with it)"},
    {"os", "fork", Match::exact, "os-process", {}, kProcessControl},
    {"os", "forkpty", Match::exact, "os-process", {}, kProcessControl},
    {"os", "kill", Match::exact, "os-process", {}, kProcessControl},
    {"os", "killpg", Match::exact, "os-process", {}, kProcessControl},
    {"os", "abort", Match::exact, "os-process", {}, kProcessControl},
    {"os", "setuid", Match::exact, "os-process", {}, kProcessControl},
    {"os", "setgid", Match::exact, "os-process", {}, kProcessControl},
    {"os", "seteuid", Match::exact, "os-process", {}, kProcessControl},
    {"os", "setsid", Match::exact, "os-process", {}, kProcessControl},
    {"os", "setresuid", Match::exact, "os-process", {}, kProcessControl},
    {"os", "pidfd_open", Match::exact, "os-process", {}, kProcessControl},
    {"os", "plock", Match::exact, "os-process", {}, kProcessControl},
    {"os", "register_at_fork", Match::exact, "os-process", {}, kProcessControl},
    {"os", "tcsetpgrp", Match::exact, "os-process", {}, kProcessControl},
    {"os", "remove", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "unlink", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "rmdir", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "removedirs", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "rename", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "renames", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "replace", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "chmod", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "chown", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "lchown", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "truncate", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "symlink", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "link", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "mkfifo", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "mknod", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "chroot", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "putenv", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "unsetenv", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "fchmod", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "fchown", Match::exact, "os-file-mutation", {}, kFileMutation},
    {"os", "environ", Match::exact, "os-environ", {}, kEnvironment},
    {"os", "getenv", Match::exact, "os-environ", {}, kEnvironment},
    {"os", "environb", Match::exact, "os-environ", {}, kEnvironment},
    {"os", "getenvb", Match::exact, "os-environ", {}, kEnvironment},
    {"sys", "modules", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "_getframe", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "settrace", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "setprofile", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "_current_frames", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "meta_path", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "path_hooks", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "addaudithook", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "_getframemodulename", Match::exact, "sys-internals", {}, kInternals},
    {"sys", "__dict__", Match::exact, "sys-internals", {}, kInternals},
    {"importlib", "import_module", Match::exact, "importlib-import-module", {}, kImportByName, "calls"},
    {"importlib", "__import__", Match::exact, "importlib-import-module", {}, kImportByName, "calls"},
    {"importlib", "util", Match::exact, "importlib-import-module", {}, kImportByName, "calls"},
    {"importlib", "machinery", Match::exact, "importlib-import-module", {}, kImportByName, "calls"},
    {"importlib", "reload", Match::exact, "importlib-import-module", {}, kImportByName, "calls"},
    {"asyncio", "create_subprocess_exec", Match::exact, "os-exec", {}, kStartsProgram},
    {"asyncio", "create_subprocess_shell", Match::exact, "os-exec", {}, kStartsProgram},
    {"asyncio", "open_connection", Match::exact, "import-network", {}, "opens network connections", "uses", true},
    {"asyncio", "start_server", Match::exact, "import-network", {}, "opens network connections", "uses", true},
    {"asyncio", "open_unix_connection", Match::exact, "import-network", {}, "opens network connections", "uses", true},
    {"builtins", "", Match::any, "builtins-access", {},
     "reaches the builtins by another name, around the other checks"},
};

static_assert(all_rules_of(kImports, Language::python) && all_rules_of(kMembers, Language::python));
static_assert(std::ranges::all_of(kMembers, [](const PythonMemberRule& row) {
    return !row.rule_when_imported || row.rule_when_imported.rule().language == Language::python;
}));

}  // namespace

const ImportRule* python_import_rule(std::string_view module) {
    const std::string_view root = module.substr(0, module.find('.'));
    return find_row(kImports, [&](const ImportRule& row) { return row.module == root; });
}

const PythonMemberRule* python_member_rule(std::string_view module, std::string_view member) {
    if (module == "posix" || module == "nt") module = "os";
    if (module == "__builtins__") module = "builtins";
    return find_row(kMembers, [&](const PythonMemberRule& row) {
        if (row.module != module) return false;
        switch (row.match) {
            case Match::exact: return member == row.member;
            case Match::prefix: return member.starts_with(row.member);
            case Match::any: return true;
        }
        return false;
    });
}

}  // namespace e2beval::detail
