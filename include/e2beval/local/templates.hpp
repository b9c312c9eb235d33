// Templates: named, reusable environments for sandboxes (docs/templates.md). A template is a directory in the
// user's cache holding a Python virtualenv built from a requirements file, optional files, and manifest.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace e2beval {

// What manifest.json says about one built template.
struct TemplateManifest {
    std::string name;
    std::filesystem::path directory;       // the template's own directory (venv/, files/, manifest.json)
    std::string python_version;            // "3.11.7"
    std::string base_python;               // the interpreter its virtualenv was made with
    std::string requirements_hash;         // sha256 of requirements, Python and files: a rebuild with the same reuses it
    std::string requirements;              // the requirements file's text, as built
    std::map<std::string, std::string> packages;  // name -> version, as installed
    std::vector<std::string> files;        // where the copied files are, relative to files/
    std::string build_id;                  // changes with every build, so a rebuilt template is told apart
    std::string built_at;                  // ISO 8601, UTC
    double build_seconds = 0;
    std::uint64_t size_bytes = 0;          // on disk

    std::filesystem::path python() const { return directory / "venv" / "bin" / "python"; }
};

// $E2BEVAL_CACHE_DIR, else $XDG_CACHE_HOME/e2beval, else ~/.cache/e2beval: templates live in its templates/,
// compiled programs in its compile/ (docs/languages.md).
std::filesystem::path e2beval_cache_directory();
std::filesystem::path templates_directory();

// Names that mean "no template", the default environment (the interpreter e2beval runs code with): "", "base"
// (E2B's bare template) and "e2beval". Builds refuse them.
bool is_default_template(const std::string& name);

// The built-in template: E2B's code-interpreter environment (the Python packages of E2B's code-interpreter
// template, at E2B's pins: src/local/templates/code-interpreter-v1.txt), built on first use.
inline constexpr const char* kCodeInterpreterTemplate = "code-interpreter-v1";

// kCodeInterpreterTemplate for the names E2B gives its code-interpreter template ("code-interpreter-v1", the
// SDK's default, and the older "code-interpreter" and "code-interpreter-beta"); "" for any other name.
std::string builtin_template_name(const std::string& name);

// The built templates, by name.
std::vector<TemplateManifest> list_templates();

// The template called `name`, as built (a lookup: it builds nothing). Throws unknown_template_error naming the
// known templates when there is none.
TemplateManifest find_template(const std::string& name);

// The template `name` names, ready to use: a built one, or the built-in one, which is built first when it is
// missing or was built from other requirements (pip's log on stderr, as `e2beval template build` shows it; the
// check runs once per process). `python` builds it (empty: $E2BEVAL_PYTHON, else python3). Throws
// unknown_template_error naming the known templates, sandbox_error when the build fails.
TemplateManifest resolve_template(const std::string& name, const std::string& python = "");

// Builds (or reuses, by hash) the built-in template `name` (a name builtin_template_name() knows) from its
// embedded requirements with `python` (empty: $E2BEVAL_PYTHON, else python3); `force` rebuilds anyway.
TemplateManifest build_builtin_template(const std::string& name, const std::string& python, bool force = false);

struct TemplateBuildOptions {
    std::string name;
    std::filesystem::path requirements;  // a pip requirements file
    std::string python;                  // the interpreter to make the virtualenv with (a path or a name on PATH)
    std::vector<std::pair<std::filesystem::path, std::string>> files;  // host file, destination under files/
    bool force = false;                  // rebuild even when a build with the same hash exists
};

// Builds (or reuses, by hash) a template; pip's output goes to this process's stderr as the build log. Throws
// input_error for a bad name or a missing file, sandbox_error (saying pip's error is above) when the build fails;
// a failed build leaves nothing behind.
TemplateManifest build_template(const TemplateBuildOptions& options);

// Removes a template: new sandboxes can no longer use it at once; its files go when no running sandbox uses
// them any more (now, or at the next build, list or removal). Returns false when those files were kept for now.
// Throws input_error naming the known templates when there is none called `name`.
bool remove_template(const std::string& name);

}  // namespace e2beval
