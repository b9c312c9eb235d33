// The scanner's rules for Rust: std::process, std::net, unsafe, FFI (extern blocks, libc, #[link]), asm!,
// include_str!/include_bytes!/include! (compile-time reads), env!, host paths, process::exit, file removal.
#include "analysis/c_family_rules.hpp"

namespace e2beval::detail {

namespace rules_rust {

constexpr Language kRust = Language::rust;

constexpr ModuleRule kModules[] = {
    {"std::process", "rust-process", "starts other programs from generated code"},
    {"std::process::exit", "rust-exit", "ends the program, with any status, before the tests are done"},
    {"std::process::abort", {}, ""},
    {"std::process::id", {}, ""},
    {"std::process::ExitCode", {}, ""},
    {"std::process::Termination", {}, ""},
    {"std::os::unix::process", "rust-process", "starts other programs, or replaces this one"},
    {"std::net", "rust-network", "network access from generated code"},
    {"std::os::unix::net", "rust-network", "unix sockets: talks to other processes"},
    {"libc", "rust-ffi", "the C library's functions, raw system calls included"},
    {"nix", "rust-ffi", "the system's calls, raw"},
    {"std::arch::asm", "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"core::arch::asm", "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"std::arch::global_asm", "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"core::arch::global_asm", "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"std::env::var", "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"std::env::vars", "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"std::env::var_os", "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"std::env::vars_os", "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
};

constexpr NameRule kNames[] = {
    {"process::Command", NameUse::any, "rust-process", "starts another program"},
    {"Command::new", NameUse::call, "rust-process", "starts another program"},
    {"CommandExt", NameUse::any, "rust-process", "replaces this program with another (exec) or runs code before one"},
    {"TcpStream", NameUse::any, "rust-network", "a TCP connection"},
    {"TcpListener", NameUse::any, "rust-network", "a TCP server"},
    {"UdpSocket", NameUse::any, "rust-network", "a UDP socket"},
    {"UnixStream", NameUse::any, "rust-network", "a unix socket to another process"},
    {"UnixListener", NameUse::any, "rust-network", "a unix socket server"},
    {"UnixDatagram", NameUse::any, "rust-network", "a unix socket to another process"},
    {"asm", NameUse::macro, "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"global_asm", NameUse::macro, "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"naked_asm", NameUse::macro, "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"llvm_asm", NameUse::macro, "rust-inline-asm", "inline assembly: raw system calls and machine code"},
    {"unsafe", NameUse::any, "rust-unsafe", "steps outside the borrow checker's guarantees"},
    {"process::exit", NameUse::call, "rust-exit", "ends the program, with any status, before the tests are done"},
    {"env", NameUse::macro, "rust-env", "reads the compiler's environment into the program"},
    {"option_env", NameUse::macro, "rust-env", "reads the compiler's environment into the program"},
    {"env::var", NameUse::call, "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"env::vars", NameUse::call, "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"env::var_os", NameUse::call, "rust-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"fs::remove_file", NameUse::call, "rust-file-mutation", "deletes a file"},
    {"fs::remove_dir", NameUse::call, "rust-file-mutation", "deletes a directory"},
    {"fs::remove_dir_all", NameUse::call, "rust-file-mutation", "deletes a directory tree"},
    {"fs::set_permissions", NameUse::call, "rust-file-mutation", "changes a file's permissions"},
};

static_assert(all_rules_of(kModules, kRust) && all_rules_of(kNames, kRust));

// include_str!("...") and its kin: where the compiler reads from.
void check_include(CFamilyScan& scan, std::size_t name_at) {
    const auto& tokens = scan.tokens();
    const std::string macro(tokens[name_at].text);
    const std::size_t open = name_at + 2;
    const std::size_t close = scan.matching_close(open);
    std::size_t end = open + 1;
    const auto path = scan.constant_string(open + 1, &end);
    if (!path || end != close) {
        scan.report("rust-include-path", tokens[name_at], macro + "! of a path computed at compile time (concat!, env!, "
                                                          "...): the compiler may read any file it can see");
    } else if (CFamilyScan::path_leaves_workspace(*path)) {
        scan.report("rust-include-path", tokens[name_at], macro + "!(\"" + path->substr(0, 80) + "\"): the compiler "
                                                          "reads a file outside the workspace (the sandbox shows it "
                                                          "none of the host's; this is advice)");
    } else {
        scan.report("rust-include", tokens[name_at], macro + "!(\"" + path->substr(0, 80) + "\"): the compiler reads a "
                                                     "workspace file into the program");
    }
}

// What the tables cannot say: extern blocks and functions, #[link] attributes, the include macros.
void special(CFamilyScan& scan) {
    const auto& tokens = scan.tokens();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const CToken& token = tokens[i];
        if (token.kind != CTokenKind::identifier) continue;
        if (token.text == "extern" && !scan.identifier(i + 1, "crate")) {
            scan.report("rust-ffi", token, "extern: declares or exports foreign (C) functions, which reach the system "
                                           "around Rust's safety");
        } else if ((token.text == "link" || token.text == "link_name") && i >= 2 && scan.punct(i - 1, "[") &&
                   scan.punct(i - 2, "#")) {
            scan.report("rust-ffi", token, "#[" + std::string(token.text) + "]: links native code into the program");
        } else if ((token.text == "include_str" || token.text == "include_bytes" || token.text == "include") &&
                   scan.punct(i + 1, "!") && (scan.punct(i + 2, "(") || scan.punct(i + 2, "[") || scan.punct(i + 2, "{"))) {
            check_include(scan, i);
        }
    }
}

}  // namespace rules_rust

const CFamilyRules& rust_rules() {
    using namespace rules_rust;
    static const CFamilyRules rules{kRust, CDialect::rust, kModules, kNames, true, "rust-system-path", {}, {},
                                    special};
    return rules;
}

}  // namespace e2beval::detail
