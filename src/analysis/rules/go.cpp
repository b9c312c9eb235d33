// The scanner's rules for Go: os/exec and syscall, unsafe and //go:linkname, cgo, the net packages,
// //go:embed (a compile-time read), host paths, and os.Exit, os.Getenv, file removal.
#include "analysis/c_family_rules.hpp"

namespace e2beval::detail {

namespace rules_go {

constexpr Language kGo = Language::go;

constexpr ModuleRule kModules[] = {
    {"os/exec", "go-process", "starts other programs from generated code"},
    {"syscall", "go-syscall", "raw system calls (Exec, ForkExec, Syscall, Mount, ...)"},
    {"golang.org/x/sys", "go-syscall", "raw system calls"},
    {"unsafe", "go-unsafe", "raw pointers around Go's memory safety"},
    {"plugin", "go-unsafe", "loads native code at run time"},
    {"runtime/cgo", "go-cgo", "cgo's runtime"},
    {"C", "go-cgo", "cgo: C code, and compiler and linker flags, inside the program"},
    {"net", "go-network", "network access from generated code"},
    {"net/url", {}, ""},        // parsing only
    {"net/netip", {}, ""},      // parsing only
    {"net/mail", {}, ""},       // parsing only
    {"net/textproto", {}, ""},  // parsing only
    {"net/http/httptest", "go-network", "test servers: network access from generated code"},
    {"crypto/tls", "go-network", "TLS connections: network access from generated code"},
    {"embed", "go-embed", "files read into the program at compile time"},
};

constexpr NameRule kNames[] = {
    {"os.StartProcess", NameUse::call, "go-process", "starts another program"},
    {"os.FindProcess", NameUse::call, "go-process", "reaches another process (to signal or kill it)"},
    {"syscall.Exec", NameUse::call, "go-syscall", "replaces the program with another"},
    {"syscall.ForkExec", NameUse::call, "go-syscall", "starts another program"},
    {"syscall.Syscall", NameUse::call, "go-syscall", "makes a raw system call"},
    {"syscall.RawSyscall", NameUse::call, "go-syscall", "makes a raw system call"},
    {"os.Exit", NameUse::call, "go-exit", "ends the program, with any status, before the tests are done"},
    {"os.Getenv", NameUse::call, "go-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"os.LookupEnv", NameUse::call, "go-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"os.Environ", NameUse::call, "go-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"os.Remove", NameUse::call, "go-file-mutation", "deletes a file"},
    {"os.RemoveAll", NameUse::call, "go-file-mutation", "deletes a directory tree"},
    {"os.Chmod", NameUse::call, "go-file-mutation", "changes a file's permissions"},
    {"os.Chown", NameUse::call, "go-file-mutation", "changes a file's owner"},
    {"os.Rename", NameUse::call, "go-file-mutation", "moves a file"},
};

static_assert(all_rules_of(kModules, kGo) && all_rules_of(kNames, kGo));

// //go:embed (any operand: the files are read by the compiler) and //go:linkname (a runtime symbol by name).
void special(CFamilyScan& scan) {
    const auto& tokens = scan.tokens();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].kind != CTokenKind::directive) continue;
        if (tokens[i].value == "go:embed") {
            std::string operands;
            bool outside = false;
            for (std::size_t k = i + 1; k < tokens.size() && tokens[k].kind == CTokenKind::header; ++k) {
                operands += (operands.empty() ? "" : " ") + tokens[k].value;
                outside = outside || CFamilyScan::path_leaves_workspace(tokens[k].value);
            }
            scan.report("go-embed", tokens[i], "//go:embed " + operands + ": the compiler reads these files into the "
                                               "program" + (outside ? " from outside the workspace" : std::string()) +
                                               " (the sandbox shows it none of the host's; this is advice)");
        } else if (tokens[i].value == "go:linkname") {
            scan.report("go-unsafe", tokens[i], "//go:linkname: binds a name to a runtime symbol around Go's "
                                                "visibility rules");
        }
    }
}

}  // namespace rules_go

const CFamilyRules& go_rules() {
    using namespace rules_go;
    static const CFamilyRules rules{kGo, CDialect::go, kModules, kNames, false, "go-system-path", {}, {}, special};
    return rules;
}

}  // namespace e2beval::detail
