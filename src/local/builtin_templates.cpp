// The built-in template code-interpreter-v1 (docs/templates.md): E2B's code-interpreter packages, built from
// the requirements embedded at build time (src/local/templates/code-interpreter-v1.txt) into the template
// store on first use, then reused; and resolve_template, which every user of a template name goes through.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"
#include "local/builtin_templates.hpp"
#include "local/template_build.hpp"

namespace e2beval {

namespace fs = std::filesystem;

namespace {

std::string default_build_python() {
    const char* from_env = std::getenv("E2BEVAL_PYTHON");
    return from_env && *from_env ? from_env : "python3";
}

// The requirements, written where the builder can read them (it hashes the text and hands the file to pip):
// one file per text, named by its hash and written by rename, so that concurrent first uses (several processes)
// read whole files, and an interrupted build leaves no stray one behind.
fs::path requirements_file(const fs::path& directory, const std::string& text) {
    fs::create_directories(directory);
    char name[64];
    std::snprintf(name, sizeof name, ".code-interpreter-v1-%016zx.requirements.txt", std::hash<std::string>{}(text));
    const auto path = directory / name;
    std::error_code ec;
    if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) == text.size()) return path;
    const auto written = directory / (std::string(name) + "." + std::to_string(::getpid()) + ".tmp");
    {
        std::ofstream out(written, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) throw io_error("cannot write " + written.string() + " (the built-in template's requirements)");
    }
    fs::rename(written, path, ec);
    if (ec) throw io_error("cannot rename " + written.string() + " to " + path.string() + ": " + ec.message());
    return path;
}

// The built-in templates this process already built or found current, by directory (a process may change
// E2BEVAL_CACHE_DIR between two uses).
std::mutex checked_mutex;
std::set<std::string>& checked_this_process() {
    static std::set<std::string> checked;
    return checked;
}

std::string checked_key(const std::string& builtin) { return (templates_directory() / builtin).string(); }

// The built-in template as built, when it was built from the requirements embedded in this e2beval and its
// Python still runs; else nothing (it is built anew). Checked without running anything, so a process's first
// use of a built template costs a file read, not a Python start.
std::optional<TemplateManifest> current_build(const std::string& builtin) {
    try {
        auto manifest = find_template(builtin);
        std::error_code ec;
        if (manifest.requirements == local::kCodeInterpreterRequirements && fs::exists(manifest.python(), ec)) return manifest;
    } catch (const error&) {
    }
    return std::nullopt;
}

}  // namespace

std::string builtin_template_name(const std::string& name) {
    if (name == kCodeInterpreterTemplate || name == "code-interpreter" || name == "code-interpreter-beta")
        return kCodeInterpreterTemplate;
    return "";
}

TemplateManifest build_builtin_template(const std::string& name, const std::string& python, bool force) {
    const auto builtin = builtin_template_name(name);
    if (builtin.empty()) throw input_error("'" + name + "' is not a built-in template (the built-in one is " + kCodeInterpreterTemplate + ")");
    TemplateBuildOptions options;
    options.name = builtin;
    options.requirements = requirements_file(templates_directory(), local::kCodeInterpreterRequirements);
    options.python = python.empty() ? default_build_python() : python;
    options.force = force;
    std::cerr << "[template] " << builtin
              << ": E2B's code-interpreter environment (numpy, pandas, matplotlib, scipy, scikit-learn, ... at E2B's "
                 "pins); built once, then reused"
              << std::endl;
    auto manifest = local::run_template_builder(options);
    std::lock_guard lock(checked_mutex);
    checked_this_process().insert(checked_key(builtin));
    return manifest;
}

TemplateManifest resolve_template(const std::string& name, const std::string& python) {
    const auto builtin = builtin_template_name(name);
    if (builtin.empty()) return find_template(name);
    const auto key = checked_key(builtin);
    {
        std::lock_guard lock(checked_mutex);
        if (checked_this_process().count(key)) {
            try {
                return find_template(builtin);
            } catch (const unknown_template_error&) {
                checked_this_process().erase(key);  // removed since (`e2beval template rm`): built again below
            }
        }
    }
    // One build at a time: concurrent first uses wait here (and other processes on the builder's lock), then reuse it.
    static std::mutex building;
    std::lock_guard lock(building);
    {
        std::lock_guard checked(checked_mutex);
        if (checked_this_process().count(key)) return find_template(builtin);
    }
    if (auto current = current_build(builtin)) {
        std::lock_guard checked(checked_mutex);
        checked_this_process().insert(key);
        return *current;
    }
    return build_builtin_template(builtin, python);
}

}  // namespace e2beval
