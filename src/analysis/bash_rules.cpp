// The scanner's rules for bash, on the shell tokenizer's words and operators: network tools and /dev/tcp,
// rm -r of /, downloaded or decoded text piped into a shell, reads and writes outside the workspace, privileged
// commands, eval, and the code that `python -c`, `node -e` and `bash -c` are given (scanned in its language).
#include <algorithm>
#include <array>
#include <optional>

#include "analysis/bash_tokenizer.hpp"
#include "analysis/python_tokenizer.hpp"
#include "analysis/scan_support.hpp"
#include "analysis/scripting_rules.hpp"

namespace e2beval::detail {

namespace {

std::string_view basename_of(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_assignment_word(const ShToken& token) {
    const std::size_t equals = token.value.find('=');
    if (equals == std::string::npos || equals == 0) return false;
    return std::all_of(token.value.begin(), token.value.begin() + static_cast<std::ptrdiff_t>(equals), [](char c) {
        return python_tokenizer_internal::is_identifier_char(c);
    });
}

bool is_dev_network_path(std::string_view value) {
    return value.starts_with("/dev/tcp/") || value.starts_with("/dev/udp/");
}

// Paths outside the workspace that a bash answer has no business reading or writing.
bool is_outside_workspace(std::string_view value) {
    static constexpr std::array<std::string_view, 9> kRoots{"/etc/", "/proc/", "/sys/", "/root", "/home/",
                                                            "/var/", "/boot/", "/run/", "/dev/"};
    static constexpr std::array<std::string_view, 8> kHarmless{"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
                                                               "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/"};
    if (std::any_of(kHarmless.begin(), kHarmless.end(), [&](std::string_view h) { return value.starts_with(h); }))
        return false;
    if (is_dev_network_path(value)) return false;
    return std::any_of(kRoots.begin(), kRoots.end(), [&](std::string_view root) { return value.starts_with(root); }) ||
           value == "/etc" || value == "/proc" || value.starts_with("~/.") || value.starts_with("$HOME/.") ||
           value.starts_with("${HOME}/.") || value.starts_with("../") || value == "..";
}

bool is_harmless_write_target(std::string_view value) {
    return value == "/dev/null" || value == "/dev/stdout" || value == "/dev/stderr" || value.starts_with("/dev/fd/") ||
           value.starts_with("/tmp/") || value == "/tmp" || value.starts_with("&");
}

class BashRules {
public:
    BashRules(std::string_view code, FindingSink& sink, int depth)
        : tokens_(ShTokenizer(code).run()), sink_(sink), depth_(depth) {}

    void run();

private:
    void report(RuleId rule, const ShToken& at, std::string message, const Subject& subject = {}) {
        sink_.add(rule, at.line, at.column, std::move(message), subject);
    }

    void check_rm(std::size_t at) {
        bool recursive = false;
        bool options_done = false;
        std::optional<std::string> root_target;
        for (std::size_t i = at + 1; i < tokens_.size() && tokens_[i].kind == ShTokenKind::word; ++i) {
            const std::string& argument = tokens_[i].value;
            if (!options_done && argument == "--") {
                options_done = true;
            } else if (!options_done && argument.starts_with("--")) {
                recursive = recursive || argument == "--recursive";
            } else if (!options_done && argument.starts_with("-") && argument.size() > 1) {
                recursive = recursive || argument.find_first_of("rR") != std::string::npos;
            } else if (argument == "/" || argument == "/*") {
                root_target = argument;
            }
        }
        if (recursive && root_target)
            report("bash-rm-root", tokens_[at], "runs rm recursively on " + *root_target + ": deletes every file it can reach");
    }

    // The command's arguments: system paths read or written, interpreters given code with -c.
    void check_arguments(std::size_t at, std::string_view command) {
        const bool interpreter_c = command == "python" || command == "python3" || command == "python2" ||
                                   command == "node" || command == "sh" || command == "bash" || command == "zsh" ||
                                   command == "dash";
        for (std::size_t i = at + 1; i < tokens_.size() && tokens_[i].kind == ShTokenKind::word; ++i) {
            const ShToken& argument = tokens_[i];
            if (is_outside_workspace(argument.value))
                report("bash-outside-workspace", argument, std::string(command) + " on " + argument.value +
                                                           ": system files, devices or home directories, outside the "
                                                           "workspace");
            else if (argument.value.starts_with("of=/") && !is_harmless_write_target(argument.value.substr(3)))
                report("bash-write-absolute", argument, "dd writes to " + argument.value.substr(3) +
                                                        ": outside the workspace");
            if (interpreter_c && (argument.value == "-c" || argument.value == "-e") && i + 1 < tokens_.size() &&
                tokens_[i + 1].kind == ShTokenKind::word) {
                const Language language = command.starts_with("python") ? Language::python
                                          : command == "node"            ? Language::javascript
                                                                         : Language::bash;
                const ShToken& code = tokens_[i + 1];
                if (code.value.find("$(...)") != std::string::npos || code.value.find('$') != std::string::npos) {
                    if (language == Language::bash)
                        report("bash-eval", code, std::string(command) + " -c with a computed string: runs text these "
                                                  "checks cannot see");
                }
                scan_nested(code.value, language, sink_, depth_, code.line, code.column,
                            "in the code that " + std::string(command) + " " + argument.value + " runs");
                ++i;
            }
        }
    }

    std::vector<ShToken> tokens_;
    FindingSink& sink_;
    int depth_;
};

void BashRules::run() {
    static constexpr std::array<std::string_view, 11> kCommandSeparators{
        ";", "&", "&&", "||", "|", "|&", "(", "$(", ";;", "{", "!"};
    static constexpr std::array<std::string_view, 9> kCommandPrefixes{
        "then", "do", "else", "elif", "if", "while", "until", "time", "!"};
    static constexpr std::array<std::string_view, 7> kWrappers{"sudo", "env", "exec", "command", "nohup", "xargs", "doas"};
    static constexpr std::array<std::string_view, 18> kNetworkTools{
        "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "ftp", "rsync", "nmap",
        "aria2c", "lynx", "links", "w3m", "httpie"};
    static constexpr std::array<std::string_view, 8> kDecoders{"base64", "xxd", "openssl", "gunzip", "zcat", "uudecode",
                                                               "rev", "tr"};
    static constexpr std::array<std::string_view, 12> kInterpreters{
        "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "php", "source"};
    static constexpr std::array<std::string_view, 22> kPrivileged{
        "sudo", "su", "doas", "mount", "umount", "chroot", "nsenter", "unshare", "insmod", "modprobe", "rmmod",
        "iptables", "nft", "shutdown", "reboot", "halt", "poweroff", "systemctl", "crontab", "mkfs", "fdisk", "useradd"};
    const auto in = [](const auto& list, std::string_view value) {
        return std::find(list.begin(), list.end(), value) != list.end();
    };

    bool command_position = true;
    bool after_pipe = false;
    bool pipeline_fetches = false;  // a network tool or a decoder earlier in this pipeline
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
        const ShToken& token = tokens_[i];
        if (token.kind == ShTokenKind::newline) {
            command_position = true;
            after_pipe = false;
            pipeline_fetches = false;
            continue;
        }
        if (token.kind == ShTokenKind::op) {
            const bool redirect = token.value.find_first_of("<>") != std::string::npos;
            // <(...) and >(...): process substitution, a command list of its own.
            if (redirect && i + 1 < tokens_.size() && tokens_[i + 1].kind == ShTokenKind::op && tokens_[i + 1].value == "(") {
                command_position = true;
                continue;
            }
            if (redirect && i + 1 < tokens_.size() && tokens_[i + 1].kind == ShTokenKind::word) {
                const ShToken& target = tokens_[i + 1];
                const bool writes = token.value.find('>') != std::string::npos && token.value != "<>";
                if (is_dev_network_path(target.value))
                    report("bash-dev-tcp", target, "redirects to " + target.value + ": bash opens a network connection" +
                                                       std::string(kNoNetwork));
                else if (is_outside_workspace(target.value))
                    report("bash-outside-workspace", target, std::string(writes ? "writes to " : "reads from ") +
                                                                 target.value + ": outside the workspace");
                else if (writes && target.value.starts_with("/") && !is_harmless_write_target(target.value))
                    report("bash-write-absolute", target, "writes to " + target.value + ": outside the workspace");
                ++i;  // the redirect's target is not a command
                continue;
            }
            if (token.value == "|" || token.value == "|&") {
                after_pipe = true;
            } else if (token.value != "(" && token.value != "$(") {
                after_pipe = false;
                if (token.value != ")") pipeline_fetches = false;
            }
            command_position = in(kCommandSeparators, token.value) || command_position;
            continue;
        }
        if (!token.quoted && is_dev_network_path(token.value))
            report("bash-dev-tcp", token, "uses " + token.value + ": bash opens a network connection" + std::string(kNoNetwork));
        if (!command_position) continue;
        if (!token.quoted && (in(kCommandPrefixes, token.value) || token.value == "{")) continue;
        if (is_assignment_word(token)) continue;
        const std::string_view command = basename_of(token.value);
        const Subject subject{Subject::Kind::call, std::string(command), token.value};
        if (call_listed(sink_.policy().deny_calls, command, token.value))
            report("denied-call", token, "runs " + std::string(command) + ", which the policy denies", subject);
        if (in(kPrivileged, command) || command.starts_with("mkfs."))
            report("bash-privileged", token, "runs " + std::string(command) + ": needs privileges or changes the "
                                                                             "machine, not the workspace", subject);
        if (in(kWrappers, command)) continue;  // the next word is the command that really runs
        command_position = false;
        if (in(kNetworkTools, command)) {
            report("bash-network-tool", token, "runs " + std::string(command) + ": network access from generated code" +
                                                   std::string(kNoNetwork), subject);
            pipeline_fetches = true;
        }
        if (in(kDecoders, command)) pipeline_fetches = true;
        if (after_pipe && in(kInterpreters, command)) {
            if (pipeline_fetches)
                report("bash-pipe-to-shell", token, "pipes downloaded or decoded text into " + std::string(command) +
                                                        ": runs code nobody has read", subject);
            else
                report("bash-eval", token, "pipes text into " + std::string(command) + ": runs code built at run time",
                       subject);
        }
        if (command == "eval")
            report("bash-eval", token, "runs eval: executes a string built at run time", subject);
        if (command == "rm") check_rm(i);
        if (command == "tee" || command == "cp" || command == "mv" || command == "ln" || command == "install" ||
            command == "chmod" || command == "chown" || command == "touch" || command == "mkdir") {
            for (std::size_t k = i + 1; k < tokens_.size() && tokens_[k].kind == ShTokenKind::word; ++k)
                if (tokens_[k].value.starts_with("/") && !is_harmless_write_target(tokens_[k].value) &&
                    !is_outside_workspace(tokens_[k].value))
                    report("bash-write-absolute", tokens_[k], std::string(command) + " on " + tokens_[k].value +
                                                              ": outside the workspace", subject);
        }
        check_arguments(i, command);
    }
}

}  // namespace

void scan_bash(std::string_view code, FindingSink& sink, int depth) { BashRules(code, sink, depth).run(); }

}  // namespace e2beval::detail
