#include "cli/command_options.hpp"

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/python_interpreter.hpp"
#include "core/read_file.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"

namespace e2beval::cli {

namespace json = boost::json;

std::string read_file(const std::string& path, std::string_view what) {
    if (path == "-") {
        std::stringstream content;
        content << std::cin.rdbuf();
        return content.str();
    }
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw input_error(std::string(what) + " '" + path + "' does not exist; check the path");
    if (std::filesystem::is_directory(path, ec))
        throw input_error(std::string(what) + " '" + path + "' is a directory; give a file");
    auto content = e2beval::read_file(path);
    if (!content) throw io_error("cannot read " + std::string(what) + " '" + path + "'");
    return std::move(*content);
}

Language language_option(const ParsedArgs& args) {
    const auto tag = args.value("--language");
    if (!tag) return Language::python;
    const auto language = language_from_tag(*tag);
    if (!language) throw usage_error("--language must be one of " + language_names_text() + ", got '" + *tag + "'");
    return *language;
}

Policy policy_option(const ParsedArgs& args) {
    Policy policy;
    const auto preset_name = args.value("--policy").value_or("standard");
    const auto preset = policy_preset_from_string(preset_name);
    if (!preset) throw usage_error("--policy must be tutorial, standard or strict, got '" + preset_name + "'");
    policy.preset = *preset;
    policy.allow_rules = args.names("--allow-rule");
    policy.deny_rules = args.names("--deny-rule");
    policy.allow_modules = args.names("--allow-module");
    policy.deny_modules = args.names("--deny-module");
    policy.allow_calls = args.names("--allow-call");
    policy.deny_calls = args.names("--deny-call");
    return policy;
}

namespace {

const std::vector<OptionSpec> kPolicyOptions = {
    {"--policy", "PRESET", "scanner preset: tutorial (the tutorial's ten checks), standard (default) or strict"},
    {"--allow-rule", "IDS", "comma-separated rule ids never reported (see `e2beval scan --list-rules`)"},
    {"--deny-rule", "IDS", "comma-separated rule ids raised to block"},
    {"--allow-module", "NAMES", "comma-separated modules whose import is never a finding"},
    {"--deny-module", "NAMES", "comma-separated modules whose import blocks"},
    {"--allow-call", "NAMES", "comma-separated calls (eval, os.getcwd) whose findings are dropped"},
    {"--deny-call", "NAMES", "comma-separated calls that block"},
};

}  // namespace

std::vector<OptionSpec> with_policy_options(std::vector<OptionSpec> options) {
    options.insert(options.end(), kPolicyOptions.begin(), kPolicyOptions.end());
    return options;
}

Profile profile_option(const ParsedArgs& args) {
    Profile profile;
    if (const auto path = args.value("--profile")) {
        const auto content = e2beval::read_file(*path);
        if (!content) throw input_error("profile '" + *path + "' cannot be read; check the path");
        boost::system::error_code ec;
        const auto value = json::parse(*content, ec);
        if (ec || !value.is_object())
            throw input_error("profile '" + *path + "' is not a JSON object like {\"limits\": {...}, \"isolation\": {...}}");
        for (const auto& [key, section] : value.get_object()) {
            if (!section.is_object()) throw input_error("profile section '" + std::string(key) + "' must be an object");
            if (key == "limits") profile.limits = limits_from_json(section.get_object(), profile.limits);
            else if (key == "isolation") profile.isolation = isolation_from_json(section.get_object(), profile.isolation);
            else throw input_error("unknown profile section '" + std::string(key) + "'; valid sections are: limits, isolation");
        }
    }
    auto& limits = profile.limits;
    if (auto seconds = args.number("--timeout")) limits.wall_time = std::chrono::milliseconds(static_cast<long long>(*seconds * 1000));
    if (auto seconds = args.number("--cpu")) limits.cpu_time = std::chrono::milliseconds(static_cast<long long>(*seconds * 1000));
    if (auto megabytes = args.number("--memory")) limits.memory_bytes = static_cast<std::uint64_t>(*megabytes * kMiB);
    if (auto processes = args.number("--pids")) limits.max_processes = static_cast<std::uint32_t>(*processes);
    if (auto cpus = args.number("--cpus")) limits.cpus = *cpus;
    if (auto bytes = args.number("--output-limit")) limits.output_bytes = static_cast<std::uint64_t>(*bytes);
    if (args.flag("--network")) profile.isolation.network = true;
    if (const auto mode = args.value("--seccomp")) {
        const auto parsed = seccomp_mode_from_string(*mode);
        if (!parsed) throw usage_error("--seccomp must be deny or kill, got '" + *mode + "'");
        profile.isolation.seccomp = *parsed;
    }
    if (const auto level = args.value("--min-isolation")) {
        const auto parsed = isolation_level_from_string(*level);
        if (!parsed) throw usage_error("--min-isolation must be standard or full, got '" + *level + "'");
        profile.isolation.minimum_level = *parsed;
    }
    return profile;
}

LocalSandboxOptions sandbox_option(const ParsedArgs& args) {
    LocalSandboxOptions options;
    options.python_executable = args.value("--python").value_or("");
    options.python_info = require_working_python(chosen_python(args.value("--python")));
    // The warm pool pays off over many executions; `run` makes one, so it always runs cold.
    options.pool.enabled = args.flag("--pool") ? true : !args.flag("--no-pool");
    return options;
}

// The backend an execution runs on: the local sandbox (the default) or E2B's cloud (docs/e2b.md).
std::unique_ptr<Sandbox> sandbox_backend(const ParsedArgs& args, bool pool) {
    const auto name = args.value("--backend").value_or("local");
    if (name == "local") {
        auto options = sandbox_option(args);
        if (!pool) options.pool.enabled = false;
        return std::make_unique<LocalSandbox>(std::move(options));
    }
    if (name == "e2b") {
        BackendConfig config;
        config.backend = "e2b";
        // On E2B a template is one of E2B's (its template ID); the default is code-interpreter-v1.
        config.e2b_template = args.value("--template").value_or("");
        return make_sandbox(config);
    }
    throw usage_error("--backend must be local or e2b, got '" + name + "'");
}

namespace {

const std::vector<OptionSpec> kSandboxOptions = {
    {"--backend", "NAME", "local (default: this machine) or e2b (E2B's cloud: E2B_API_KEY, E2B_DOMAIN, E2B_API_URL; docs/e2b.md)"},
    {"--timeout", "SECONDS", "wall-clock limit per execution (default 10)"},
    {"--cpu", "SECONDS", "cpu-time limit per execution, all processes together (default 5)"},
    {"--memory", "MB", "memory limit per execution (default 256)"},
    {"--pids", "N", "most processes at once (default 64)"},
    {"--cpus", "N", "CPUs' worth of time the program may use at once, a cgroup CPU quota (default: no cap; 0.5 is half a CPU)"},
    {"--output-limit", "BYTES", "most bytes kept per output stream; more kills the program (default 1048576)"},
    {"--network", "", "let the code use the host's network (off by default: no network at all)"},
    {"--seccomp", "MODE", "denied system calls: deny (fail with EPERM, default) or kill (end the sandbox)"},
    {"--min-isolation", "LEVEL", "refuse to run below standard (default) or full (needs cgroups)"},
    {"--profile", "FILE", "JSON {\"limits\": {...}, \"isolation\": {...}}; flags override it"},
    {"--python", "PATH", "Python interpreter to run code with (default: $E2BEVAL_PYTHON, else python3)"},
    {"--template", "NAME", "run the code in a template's environment (`e2beval template build`; docs/templates.md); with --backend e2b, an E2B template ID"},
};

}  // namespace

std::vector<OptionSpec> with_sandbox_options(std::vector<OptionSpec> options) {
    options.insert(options.end(), kSandboxOptions.begin(), kSandboxOptions.end());
    return options;
}

void print_json(const json::value& value) { std::cout << to_json_text(value) << std::endl; }

FileLanguage file_language(const ParsedArgs& args, const std::string& path) {
    if (args.value("--language")) return {language_option(args), "--language"};
    if (const auto from_name = language_from_file_name(path)) return {*from_name, "its extension"};
    const auto name = std::filesystem::path(path).filename().string();
    const auto dot = name.find_last_of('.');
    return {Language::python, path == "-"                                           ? "the default for standard input"
                              : dot == std::string::npos || dot == 0                 ? "the default for a file without an extension"
                                                                                     : "the default: " + name.substr(dot) + " names no language"};
}

}  // namespace e2beval::cli
