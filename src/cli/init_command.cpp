// `e2beval init [DIR]`: writes a ready promptfoo project (the tutorial's config, recorded answers, the one-line
// assertion file, README, compiled into the binary from examples/tutorial/) and a run.sh that runs it with the
// right Python and promptfoo, found now from where this binary is installed.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/init_project.hpp"
#include "cli/init_run_script.hpp"
#include "e2beval/core/error.hpp"

extern char** environ;

namespace e2beval::cli {

namespace fs = std::filesystem;

namespace {

std::string shell_word_of(const std::string& text);

fs::path this_binary() {
    std::error_code ec;
    auto path = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : path;
}

// True when `python -c "import e2beval.promptfoo"` succeeds: the interpreter promptfoo must use.
bool imports_e2beval(const fs::path& python) {
    std::error_code ec;
    if (python.empty() || !fs::exists(python, ec)) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const std::string program = python.string();
    std::string flag = "-c", statement = "import e2beval.promptfoo";
    char* argv[] = {const_cast<char*>(program.c_str()), flag.data(), statement.data(), nullptr};
    pid_t pid = -1;
    const int failed = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (failed) return false;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The interpreter next to this binary (pip installs both into the same bin/), else $PROMPTFOO_PYTHON, else
// python3 on PATH; the first that can import e2beval. Empty when none can.
fs::path find_python(const fs::path& binary) {
    std::vector<fs::path> candidates;
    if (!binary.empty())
        for (const char* name : {"python", "python3"}) candidates.push_back(binary.parent_path() / name);
    if (const char* configured = std::getenv("PROMPTFOO_PYTHON"); configured && *configured) candidates.emplace_back(configured);
    if (const char* path = std::getenv("PATH")) {
        std::string directories = path;
        for (std::size_t start = 0; start <= directories.size();) {
            const auto end = std::min(directories.find(':', start), directories.size());
            if (end > start) candidates.push_back(fs::path(directories.substr(start, end - start)) / "python3");
            start = end + 1;
        }
    }
    for (const auto& candidate : candidates)
        if (imports_e2beval(candidate)) return candidate;
    return {};
}

// The checkout this binary was built from, while it still holds e2beval's pyproject.toml (a wheel built in a
// temporary directory leaves none): what `pip install` takes, as e2beval is not on any package index.
fs::path e2beval_source() {
    std::error_code ec;
    const fs::path source = E2BEVAL_SOURCE_DIR;
    return fs::exists(source / "pyproject.toml", ec) && fs::exists(source / "python" / "e2beval", ec) ? source : fs::path();
}

// How to install e2beval into another Python, for messages.
std::string install_advice(const fs::path& source) {
    return source.empty() ? "pip install /path/to/e2beval (a checkout of e2beval; it is not on PyPI)"
                          : "pip install " + shell_word_of(source.string());
}

// promptfoo as e2beval's scripts/setup.sh installs it (tools/promptfoo/node_modules/.bin, with Node 22): in a
// checkout whose virtualenv holds this binary (.venv/bin/e2beval, or deeper under build/).
fs::path find_bundled_promptfoo(const fs::path& binary) {
    std::error_code ec;
    for (auto directory = binary.parent_path(); !directory.empty(); directory = directory.parent_path()) {
        const auto bin = directory / "tools" / "promptfoo" / "node_modules" / ".bin";
        if (fs::exists(bin / "promptfoo", ec) && fs::exists(bin / "node", ec)) return bin;
        if (directory == directory.root_path()) break;
    }
    return {};
}

std::string shell_quoted(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// For printed commands: plain when the shell would read the path as it is, else quoted.
std::string shell_word_of(const std::string& text) {
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("/._-+:@%,=").find(static_cast<char>(c)) != std::string_view::npos;
    });
    return plain ? text : shell_quoted(text);
}

std::string replaced(std::string text, const std::string& placeholder, const std::string& value) {
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
    return text;
}

void write_file(const fs::path& path, std::string_view content, bool executable) {
    fs::create_directories(path.parent_path());
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        if (!out) throw io_error("cannot write " + path.string() + "; check that the directory is writable");
    }
    if (executable) fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
}

int init_command(const ParsedArgs& args) {
    if (kTutorialProjectFiles.empty())
        throw input_error("this e2beval was built without the tutorial project (examples/tutorial/ was empty at build time); "
                          "rebuild it from a complete checkout");
    const fs::path directory = args.positional.empty() ? fs::path(".") : fs::path(args.positional[0]);
    std::error_code ec;
    if (fs::exists(directory, ec) && !fs::is_directory(directory, ec))
        throw input_error("'" + directory.string() + "' exists and is not a directory; give a new or existing directory");

    const auto binary = this_binary();
    const auto python = find_python(binary);
    const auto promptfoo_bin = find_bundled_promptfoo(binary);
    const auto source = e2beval_source();
    std::string run_script(kInitRunScript.front().content);
    for (const auto& [placeholder, value] :
         {std::pair<std::string, std::string>{"@E2BEVAL_PYTHON@", python.string()}, {"@PROMPTFOO_BIN@", promptfoo_bin.string()},
          {"@E2BEVAL_INSTALL@", install_advice(source)}, {"@E2BEVAL_BIN@", binary.string()}})
        run_script = replaced(run_script, placeholder, shell_quoted(value));

    struct Output {
        fs::path relative;
        std::string_view content;
        bool executable;
    };
    std::vector<Output> outputs;
    for (const auto& file : kTutorialProjectFiles) outputs.push_back({fs::path(file.path), file.content, false});
    outputs.push_back({"run.sh", run_script, true});

    std::vector<std::string> existing;
    for (const auto& output : outputs)
        if (fs::exists(fs::symlink_status(directory / output.relative, ec))) existing.push_back((directory / output.relative).string());
    if (!existing.empty() && !args.flag("--force")) {
        std::cerr << "e2beval init: these files exist already and would be overwritten:\n";
        for (const auto& path : existing) std::cerr << "  " << path << "\n";
        std::cerr << "nothing was written; choose another directory or add --force to overwrite them\n";
        return kExitFailed;
    }
    for (const auto& output : outputs) write_file(directory / output.relative, output.content, output.executable);

    std::cout << "e2beval init: wrote a promptfoo project to " << directory.string() << "\n";
    for (const auto& output : outputs) std::cout << "  " << output.relative.string() << "\n";
    std::cout << "\nrun.sh uses:\n  Python:    "
              << (python.empty() ? "none found with e2beval installed: install it into yours (" + install_advice(source) +
                                     ") and set PROMPTFOO_PYTHON to that interpreter's absolute path"
                               : python.string())
              << "\n  promptfoo: "
              << (promptfoo_bin.empty() ? "from PATH (needs Node.js >= 22)"
                                        : "from PATH if its Node.js is >= 22, else " + promptfoo_bin.string())
              << "\n\nNext step:\n  "
              << (directory == fs::path(".") ? std::string() : "cd " + shell_word_of(directory.string()) + " && ") << "bash run.sh\n";
    std::cout << "  (it writes the report, promptfoo_report.md, when the eval is done)\n";
    if (!python.empty())
        std::cout << "\nOr run promptfoo yourself, from that directory:\n  export PROMPTFOO_PYTHON="
                  << shell_word_of(python.string())
                  << "\n  promptfoo eval --no-cache --no-share\n  " << shell_word_of(binary.string())
                  << " report   # the report, promptfoo_report.md\n";
    return 0;
}

}  // namespace

Command make_init_command() {
    return {{"init", "e2beval init [OPTIONS] [DIR]", "Write a ready promptfoo project that evaluates code with e2beval.",
             "Writes the tutorial's project into DIR (default: the current directory): promptfooconfig.yaml with the\n"
             "tutorial's test cases and prompt template, recorded model answers served by promptfoo's offline `echo`\n"
             "provider (commented lines show real providers), the one-line assertion file, a README, and run.sh,\n"
             "which runs `promptfoo eval` with the Python that has e2beval and a promptfoo whose Node.js is >= 22.\n"
             "Existing files are never overwritten without --force; exit status 1 lists them and writes nothing.",
             {{"--force", "", "overwrite files that exist already"}},
             0, 1},
            init_command};
}

}  // namespace e2beval::cli
