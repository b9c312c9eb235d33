// `e2beval run FILE`: one program in the local sandbox (or E2B's), its output and its exit status.
#include <iostream>

#include "cli/command_options.hpp"
#include "cli/commands.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval::cli {

namespace {

// Whether the program failed before it ran a line: the interpreter of `language` could not parse it.
bool failed_to_parse(const ExecResult& result, Language language) {
    if (result.outcome != Outcome::exit_nonzero) return false;
    const auto& errors = result.stderr_data;
    const auto has_line_starting = [&](std::string_view prefix) {
        for (std::size_t at = 0; at < errors.size(); at = errors.find('\n', at) + 1) {
            if (errors.compare(at, prefix.size(), prefix) == 0) return true;
            if (errors.find('\n', at) == std::string::npos) break;
        }
        return false;
    };
    switch (language) {
        case Language::python:  // a script that does not compile has no traceback, only the error
            return errors.find("Traceback (most recent call last)") == std::string::npos &&
                   (has_line_starting("SyntaxError:") || has_line_starting("IndentationError:") || has_line_starting("TabError:"));
        case Language::javascript:  // node names the file and line first, then the SyntaxError
            return errors.rfind("/main.js:", errors.find('\n')) != std::string::npos && has_line_starting("SyntaxError: ");
        case Language::bash: return errors.find("main.sh: line ") != std::string::npos && errors.find(": syntax error") != std::string::npos;
        // A compiled language's parse errors are its compile stage's: outcome compile_error, never exit_nonzero.
        case Language::c:
        case Language::cpp:
        case Language::go:
        case Language::rust:
        case Language::java:
        case Language::typescript: return false;
    }
    return false;
}

std::string parse_hint(const FileLanguage& chosen) {
    std::string others;
    for (const auto* descriptor : all_languages()) {
        const auto language = descriptor->language;
        if (language == chosen.language) continue;
        others += std::string(others.empty() ? "" : "; ") + "--language " + std::string(to_string(language)) + " (or a " +
                  file_extensions_text(language) + " file)";
    }
    const std::string language_name(describe(chosen.language).display_name);
    return "the code does not parse as " + language_name + ", the language chosen by " + chosen.chosen_by +
           "; if it is written in another language, say which: " + others;
}

int run_command(const ParsedArgs& args) {
    // Options first: a typo in an option is reported before any file is read.
    const auto& path = args.positional[0];
    const auto chosen = file_language(args, path);
    ExecRequest request;
    request.language = chosen.language;
    const auto profile = profile_option(args);
    request.limits = profile.limits;
    request.isolation = profile.isolation;
    request.template_name = args.value("--template").value_or("");
    request.code = read_file(path, "code file");
    require_clean_text(request.code, "code file " + path);
    if (auto stdin_file = args.value("--stdin")) request.stdin_data = read_file(*stdin_file, "stdin file");
    // A compiled language's compile stage: its defaults (docs/languages.md), then these flags.
    if (describe(chosen.language).compiled()) {
        Limits compile = describe(chosen.language).compile_limits;
        if (auto seconds = args.number("--compile-timeout")) compile.wall_time = std::chrono::milliseconds(static_cast<long long>(*seconds * 1000));
        if (auto megabytes = args.number("--compile-memory")) compile.memory_bytes = static_cast<std::uint64_t>(*megabytes * kMiB);
        request.compile_limits = compile;
    }
    // The warm pool pays off over many executions; `run` makes one, so it always runs cold.
    const auto sandbox = sandbox_backend(args, false);
    const auto result = sandbox->execute(request);
    if (args.flag("--json")) {
        auto object = to_json(result);
        object["language"] = to_string(chosen.language);
        if (failed_to_parse(result, chosen.language)) object["hint"] = parse_hint(chosen);
        print_json(object);
    } else {
        // A failed compile: the compiler's own words first, then e2beval's line below says which stage failed.
        if (result.compile && result.compile->outcome != Outcome::ok) std::cerr << result.compile->stdout_data << result.compile->stderr_data;
        std::cout << result.stdout_data << std::flush;
        std::cerr << result.stderr_data;
        if (result.outcome != Outcome::ok && result.outcome != Outcome::exit_nonzero)
            std::cerr << "e2beval: " << to_string(result.outcome) << ": " << result.detail << "\n";
        if (failed_to_parse(result, chosen.language)) std::cerr << "e2beval run: " << parse_hint(chosen) << "\n";
    }
    switch (result.outcome) {
        case Outcome::ok: return 0;
        case Outcome::exit_nonzero: return result.exit_code;
        case Outcome::signaled: return 128 + result.signal;
        case Outcome::sandbox_error: return kExitSandbox;
        default: return kExitLimit;
    }
}

}  // namespace

Command make_run_command() {
    return {{"run", "e2beval run [OPTIONS] FILE", "Run a program in the local sandbox, print its output and exit with its status.",
          "FILE is the program ('-' reads stdin), in the language its extension names (.py; .js, .mjs, .cjs for\n"
          "JavaScript on Node.js; .sh, .bash; .c; .cpp, .cc, .cxx; .go; .rs; .java; .ts, .mts), else Python, or as\n"
          "--language says. A compiled language compiles first in a sandbox of its own (its own limits:\n"
          "--compile-timeout, --compile-memory; a compile cache under $E2BEVAL_CACHE_DIR/compile), then runs. It\n"
          "runs in new namespaces with no network, a private workspace, a scrubbed environment and hard limits.\n"
          "Exit status: the program's own; 128+N when killed by signal N; 124 when it hit a limit (timeout, cpu,\n"
          "memory, output) or the compile failed (--json says which: compile_error, compile_timeout, ...); 125 when\n"
          "the sandbox failed or a compiler is missing (the message names its package); 127 when the Python interpreter (--python, else\n"
          "$E2BEVAL_PYTHON, else python3) was not found, 126 when it cannot be used.",
          with_sandbox_options({{"--stdin", "FILE", "feed FILE to the program's standard input"},
                                {"--language", "LANG", "language of FILE: python, javascript (js, node), bash (sh), c, cpp (c++), go, rust (rs), java, typescript (ts); default: from FILE's extension, else python"},
                                {"--compile-timeout", "SECONDS", "compiled languages: wall-clock limit of the compile stage (default 60)"},
                                {"--compile-memory", "MB", "compiled languages: memory limit of the compile stage (default 1024)"},
                                {"--json", "", "print the result (outcome, output, timings, peak memory) as JSON"}}),
          1, 1},
         run_command};
}

}  // namespace e2beval::cli
