// Internal: every rule the scanner knows, one table per language (its id, its severity under each preset, its
// summary for `e2beval scan --list-rules`), and RuleId: a rule named in code is looked up in these tables at
// compile time, so a misspelled id does not compile (it used to drop its findings silently at run time).
// The rules' logic is elsewhere, one file per language: python_rules.cpp, javascript_rules.cpp, bash_rules.cpp,
// and rules/ for the C family, TypeScript and JavaScript's file access.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "e2beval/analysis/safety.hpp"

namespace e2beval::detail {

enum class Level : std::uint8_t { off, info, warning, block };

struct Rule {
    std::string_view id;
    Language language;
    std::array<Level, 3> levels;  // under tutorial, standard, strict
    std::string_view summary;
};

namespace rule_catalog {

constexpr Level O = Level::off;
constexpr Level I = Level::info;
constexpr Level W = Level::warning;
constexpr Level B = Level::block;
constexpr Language kPy = Language::python;
constexpr Language kJs = Language::javascript;
constexpr Language kSh = Language::bash;
constexpr Language kC = Language::c;
constexpr Language kGo = Language::go;
constexpr Language kRust = Language::rust;
constexpr Language kJava = Language::java;
constexpr Language kTs = Language::typescript;

// `tutorial` is exactly the ten checks of the tutorial's validate_and_run_code_e2b.py (on tokens), so results
// stay comparable with it; as the tutorial checked only Python, no other language's rule is on under it.
// eval is a warning under `standard`: evaluating an expression string is a legitimate idiom (HumanEval/160's
// reference solution does it) and the sandbox contains whatever it runs; eval fed by obfuscation still blocks.
inline constexpr Rule kPythonRules[] = {
    {"import-socket", kPy, {B, B, B}, "imports socket (raw network access)"},
    {"import-requests", kPy, {B, B, B}, "imports requests (HTTP client)"},
    {"import-urllib", kPy, {B, B, B}, "imports urllib, urllib2 or urllib3 (URL fetching)"},
    {"os-system", kPy, {B, B, B}, "os.system: runs a shell command"},
    {"subprocess", kPy, {B, B, B}, "any use of the subprocess module"},
    {"call-eval", kPy, {B, W, B}, "eval(): evaluates a string as an expression"},
    {"call-exec", kPy, {B, B, B}, "exec(): runs a string as statements"},
    {"open-etc", kPy, {B, B, B}, "open() of a path under /etc"},
    {"open-proc", kPy, {B, B, B}, "open() of a path under /proc"},
    {"dunder-import", kPy, {B, B, B}, "__import__(): imports a module by a computed name"},
    {"import-os-system", kPy, {O, B, B}, "from os import system (or *)"},
    {"import-ctypes", kPy, {O, B, B}, "imports ctypes or cffi (foreign functions, raw memory)"},
    {"import-process", kPy, {O, B, B}, "imports pty, multiprocessing, signal, pexpect, sh or plumbum"},
    {"import-network", kPy, {O, B, B}, "imports a network client or server module (http, ftplib, smtplib, ssl, ...)"},
    {"import-serialization", kPy, {O, B, B}, "imports pickle, marshal, shelve or dill (code execution on load)"},
    {"import-shutil", kPy, {O, B, B}, "imports shutil (recursive deletes and moves)"},
    {"import-importlib", kPy, {O, B, B}, "imports importlib"},
    {"import-interpreter", kPy, {O, B, B}, "imports code, codeop, runpy, imp, zipimport or pkgutil"},
    {"import-introspection", kPy, {O, W, B}, "imports inspect or gc (frames and every live object)"},
    {"os-popen", kPy, {O, B, B}, "os.popen: runs a shell command"},
    {"os-exec", kPy, {O, B, B}, "os.exec*, os.spawn*, os.posix_spawn*, asyncio subprocesses"},
    {"os-process", kPy, {O, B, B}, "os.fork, os.kill, os.setuid and other process control"},
    {"os-file-mutation", kPy, {O, B, B}, "os.remove, os.rename, os.chmod and other file-system changes"},
    {"os-environ", kPy, {O, W, B}, "os.environ, os.getenv (secrets in the environment)"},
    {"sys-internals", kPy, {O, B, B}, "sys.modules, sys._getframe, sys.settrace and other interpreter internals"},
    {"importlib-import-module", kPy, {O, B, B}, "importlib.import_module: imports a module by a computed name"},
    {"builtins-access", kPy, {O, B, B}, "__builtins__ or the builtins module (eval, exec, __import__ by another name)"},
    {"dunder-subclasses", kPy, {O, B, B}, "__subclasses__: walks the class tree to reach unimported objects"},
    {"dunder-globals", kPy, {O, B, B}, "__globals__: a function's module namespace"},
    {"dunder-escape", kPy, {O, B, B}, "__code__, __mro__, __bases__, frame attributes and other sandbox-escape dunders"},
    {"dynamic-lookup", kPy, {O, B, B}, "getattr or a namespace subscript reaching a dangerous name"},
    {"obfuscated-code", kPy, {O, B, B}, "eval, exec, getattr or an import fed by chr, base64, bytes, reversal or taint"},
    {"assembled-name", kPy, {O, B, B}, "a dangerous name assembled from string pieces"},
    {"globals-mutation", kPy, {O, B, B}, "writes into globals(), locals() or vars()"},
    {"call-compile", kPy, {O, W, B}, "compile(): builds code objects from strings"},
    {"call-globals", kPy, {O, O, B}, "globals(), locals() or vars() read"},
    {"call-breakpoint", kPy, {O, W, B}, "breakpoint(): starts a debugger"},
    {"open-system-path", kPy, {O, B, B}, "a file call on /sys, /dev, /root, /home, /var, /boot, /run, ~ (or /etc, /proc)"},
    {"open-parent-path", kPy, {O, B, B}, "a file call on a path that climbs out with .."},
    {"open-absolute-path", kPy, {O, W, B}, "a file call on another absolute path"},
    {"open-write", kPy, {O, W, B}, "open() with a write, append or update mode"},
};

inline constexpr Rule kJavaScriptRules[] = {
    {"js-child-process", kJs, {O, B, B}, "require/import of child_process or cluster"},
    {"js-fs", kJs, {O, W, B}, "require/import of fs (a warning under standard: reading stdin needs it)"},
    {"js-fs-system-path", kJs, {O, B, B}, "an fs call on /etc, /proc, /sys, /dev, /root, /home, /var, /boot, /run, ~"},
    {"js-fs-parent-path", kJs, {O, B, B}, "an fs call on a path that climbs out with .."},
    {"js-fs-absolute-path", kJs, {O, W, B}, "an fs call on another absolute path"},
    {"js-fs-computed-path", kJs, {O, W, B}, "an fs call on a path computed at run time"},
    {"js-network", kJs, {O, B, B}, "require/import of net, http, https, http2, dgram, tls or dns; fetch, WebSocket"},
    {"js-vm", kJs, {O, B, B}, "require/import of vm, worker_threads, v8, inspector, module or repl"},
    {"js-dynamic-require", kJs, {O, B, B}, "require/import of a computed name, process.mainModule, module.constructor"},
    {"js-global-lookup", kJs, {O, B, B}, "globalThis[...] or global[...] with a computed key"},
    {"js-eval", kJs, {O, W, B}, "eval(), or setTimeout/setInterval with a string"},
    {"js-function-constructor", kJs, {O, W, B}, "Function(...), new Function(...), .constructor.constructor"},
    {"js-obfuscated-code", kJs, {O, B, B}, "eval, require or an fs path fed by fromCharCode, atob, Buffer, escapes, reversal"},
    {"js-process-env", kJs, {O, W, B}, "process.env (secrets in the environment)"},
    {"js-process-binding", kJs, {O, B, B}, "process.binding, process.dlopen, process.kill"},
};

inline constexpr Rule kBashRules[] = {
    {"bash-network-tool", kSh, {O, B, B}, "curl, wget, nc, ssh and other network tools"},
    {"bash-dev-tcp", kSh, {O, B, B}, "/dev/tcp and /dev/udp (network connections from bash)"},
    {"bash-rm-root", kSh, {O, B, B}, "rm -r of / or /*"},
    {"bash-pipe-to-shell", kSh, {O, B, B}, "downloaded or decoded text piped into a shell or interpreter"},
    {"bash-outside-workspace", kSh, {O, B, B}, "reads or writes system paths (/etc, /proc, /root, ...) or ../"},
    {"bash-privileged", kSh, {O, B, B}, "sudo, su, mount, chroot, iptables, shutdown and other privileged commands"},
    {"bash-eval", kSh, {O, W, B}, "eval, or text piped or passed with -c to a shell from a computed string"},
    {"bash-write-absolute", kSh, {O, W, B}, "writes to an absolute path outside /tmp"},
};

inline constexpr Rule kCRules[] = {
    {"c-process", kC, {O, B, B}, "C/C++: system, popen, fork, the exec family, posix_spawn, clone (starts processes)"},
    {"c-syscall", kC, {O, B, B}, "C/C++: syscall() and <sys/syscall.h> (raw system calls around libc)"},
    {"c-inline-asm", kC, {O, B, B}, "C/C++: inline assembly (asm, __asm__): raw system calls and machine code"},
    {"c-network", kC, {O, B, B}, "C/C++: socket headers and calls (sys/socket.h, netinet, netdb; socket, getaddrinfo)"},
    {"c-privileged", kC, {O, B, B}, "C/C++: mount, unshare, setns, ptrace, chroot, setuid, kill, prctl, io_uring, bpf "
                                    "and <linux/...> interfaces"},
    {"c-dynamic-load", kC, {O, B, B}, "C/C++: dlopen, dlsym and <dlfcn.h> (code loaded or found by name at run time)"},
    {"c-include-path", kC, {O, B, B}, "C/C++: #include or #embed of an absolute path, /dev, ~ or a path with .. (a "
                                      "compile-time read of host files)"},
    {"c-system-path", kC, {O, B, B}, "C/C++: a string naming a host path (/etc, /proc, /sys, /dev, /root, /home, ...) "
                                     "or climbing out with .."},
    {"c-assert-override", kC, {O, B, B}, "C/C++: #define or #undef of assert, NDEBUG or static_assert (empties the "
                                         "tests' assertions: a forged verdict)"},
    {"c-exit", kC, {O, W, B}, "C/C++: exit, _exit, quick_exit (ends the program before the tests finish)"},
    {"c-env", kC, {O, W, B}, "C/C++: getenv, secure_getenv, environ (secrets in the environment)"},
    {"c-file-mutation", kC, {O, W, B}, "C/C++: unlink, rmdir, chmod, chown, std::filesystem::remove_all"},
};

inline constexpr Rule kGoRules[] = {
    {"go-process", kGo, {O, B, B}, "Go: os/exec, os.StartProcess (starts other programs)"},
    {"go-syscall", kGo, {O, B, B}, "Go: the syscall package and golang.org/x/sys (raw system calls)"},
    {"go-unsafe", kGo, {O, B, B}, "Go: unsafe, //go:linkname, plugin (raw memory, the runtime's internals, native code)"},
    {"go-cgo", kGo, {O, B, B}, "Go: import \"C\" (cgo: C code and compiler flags in the program)"},
    {"go-network", kGo, {O, B, B}, "Go: net, net/http, net/rpc, net/smtp, crypto/tls (network access)"},
    {"go-embed", kGo, {O, B, B}, "Go: //go:embed and the embed package (files read into the program at compile time)"},
    {"go-system-path", kGo, {O, B, B}, "Go: a string naming a host path (/etc, /proc, /sys, /dev, /root, /home, ...) or "
                                       "climbing out with .."},
    {"go-exit", kGo, {O, W, B}, "Go: os.Exit (ends the program before the tests finish)"},
    {"go-env", kGo, {O, W, B}, "Go: os.Getenv, os.LookupEnv, os.Environ (secrets in the environment)"},
    {"go-file-mutation", kGo, {O, W, B}, "Go: os.Remove, os.RemoveAll, os.Chmod, os.Chown, os.Rename"},
};

inline constexpr Rule kRustRules[] = {
    {"rust-process", kRust, {O, B, B}, "Rust: std::process::Command and CommandExt (starts other programs)"},
    {"rust-network", kRust, {O, B, B}, "Rust: std::net and unix sockets (TcpStream, UdpSocket, UnixStream, ...)"},
    {"rust-ffi", kRust, {O, B, B}, "Rust: extern blocks and functions, #[link], the libc and nix crates (foreign "
                                   "functions, raw system calls)"},
    {"rust-inline-asm", kRust, {O, B, B}, "Rust: asm!, global_asm!, naked_asm! (raw system calls and machine code)"},
    {"rust-include-path", kRust, {O, B, B}, "Rust: include_str!, include_bytes! or include! of an absolute path, ~, a "
                                            "path with .., or a computed one (a compile-time read of host files)"},
    {"rust-system-path", kRust, {O, B, B}, "Rust: a string naming a host path (/etc, /proc, /sys, /dev, /root, /home, "
                                           "...) or climbing out with .."},
    {"rust-unsafe", kRust, {O, W, B}, "Rust: unsafe blocks, functions and impls (around the borrow checker)"},
    {"rust-include", kRust, {O, W, B}, "Rust: include_str!, include_bytes!, include! of a workspace file"},
    {"rust-exit", kRust, {O, W, B}, "Rust: std::process::exit (ends the program before the tests finish)"},
    {"rust-env", kRust, {O, W, B}, "Rust: env!, option_env!, std::env::var (secrets in the environment)"},
    {"rust-file-mutation", kRust, {O, W, B}, "Rust: fs::remove_file, fs::remove_dir_all, fs::set_permissions"},
};

inline constexpr Rule kJavaRules[] = {
    {"java-process", kJava, {O, B, B}, "Java: Runtime.exec, ProcessBuilder, ProcessHandle (starts or controls processes)"},
    {"java-network", kJava, {O, B, B}, "Java: java.net, javax.net, socket channels (network access)"},
    {"java-jni", kJava, {O, B, B}, "Java: native methods, System.loadLibrary/load, java.lang.foreign (native code)"},
    {"java-unsafe", kJava, {O, B, B}, "Java: sun.misc.Unsafe, jdk.internal, instrumentation and attach (around the "
                                      "JVM's safety)"},
    {"java-eval", kJava, {O, B, B}, "Java: javax.script, javax.tools, jdk.jshell (code compiled or run from strings)"},
    {"java-system-path", kJava, {O, B, B}, "Java: a string naming a host path (/etc, /proc, /sys, /dev, /root, /home, "
                                           "...) or climbing out with .."},
    {"java-reflection", kJava, {O, W, B}, "Java: Class.forName, setAccessible, getDeclaredMethod, method handles "
                                          "(reaches code by name)"},
    {"java-exit", kJava, {O, W, B}, "Java: System.exit, Runtime.halt (ends the program before the tests finish)"},
    {"java-env", kJava, {O, W, B}, "Java: System.getenv (secrets in the environment)"},
};

inline constexpr Rule kTypeScriptRules[] = {
    {"ts-reference-path", kTs, {O, B, B}, "TypeScript: /// <reference path> or <amd-dependency "
                                                           "path> of an absolute path, ~ or a path with .. (a "
                                                           "compile-time read of host files)"},
};

// Rules with no preset of their own: they exist only through the policy's lists, and always block.
inline constexpr Rule kPolicyListRules[] = {
    {"denied-module", kPy, {O, O, O}, "imports a module on Policy::deny_modules (any language)"},
    {"denied-call", kPy, {O, O, O}, "calls a name on Policy::deny_calls (any language)"},
};

}  // namespace rule_catalog

// Every table, in the order `SafetyScanner::rules()` lists them.
inline constexpr std::array<std::span<const Rule>, 9> kRuleTables{
    rule_catalog::kPythonRules, rule_catalog::kJavaScriptRules, rule_catalog::kBashRules,
    rule_catalog::kCRules,      rule_catalog::kGoRules,         rule_catalog::kRustRules,
    rule_catalog::kJavaRules,   rule_catalog::kTypeScriptRules, rule_catalog::kPolicyListRules};

// The rule with this id, or nullptr: for ids that arrive at run time (a policy's allow and deny lists).
constexpr const Rule* find_rule(std::string_view id) noexcept {
    for (const auto table : kRuleTables)
        for (const auto& rule : table)
            if (rule.id == id) return &rule;
    return nullptr;
}

// A rule named in the scanner's code. Built from a string literal only at compile time (consteval): an id that
// is in no table makes the build fail at that line. Default-constructed, it names no rule (a table entry that
// exempts something).
class RuleId {
public:
    constexpr RuleId() noexcept = default;
    // Not explicit: `report("os-system", ...)` and `{"os/exec", "go-process", ...}` in a table are checked as written.
    consteval RuleId(const char* id) : rule_(find_rule(id)) {  // NOLINT(google-explicit-constructor)
        if (rule_ == nullptr) unknown_rule_id();
    }

    constexpr explicit operator bool() const noexcept { return rule_ != nullptr; }
    constexpr const Rule& rule() const noexcept { return *rule_; }
    constexpr std::string_view id() const noexcept { return rule_ ? rule_->id : std::string_view(); }
    friend constexpr bool operator==(RuleId a, RuleId b) noexcept { return a.rule_ == b.rule_; }

private:
    // Not constexpr: calling it in a constant evaluation is the compile error a misspelled id produces.
    static void unknown_rule_id() {}

    const Rule* rule_ = nullptr;
};

// For a static_assert beside a table of rows (module -> rule, name -> rule): every row names a rule of
// `language`, or none (a row that exempts). A Go table that named a Java rule would compile without it.
template <typename Rows>
consteval bool all_rules_of(const Rows& rows, Language language) {
    for (const auto& row : rows)
        if (row.rule && row.rule.rule().language != language) return false;
    return true;
}

// The first row of a table for which `matches` holds, or nullptr.
template <typename Row, std::size_t N, typename Predicate>
constexpr const Row* find_row(const Row (&rows)[N], Predicate matches) {
    for (const Row& row : rows)
        if (matches(row)) return &row;
    return nullptr;
}

}  // namespace e2beval::detail
