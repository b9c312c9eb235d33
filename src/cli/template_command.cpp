// `e2beval template build | list | rm`: the template store of docs/templates.md, over e2beval/local/templates.hpp.
#include <boost/json.hpp>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/python_interpreter.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/local/templates.hpp"

namespace e2beval::cli {

namespace {

namespace json = boost::json;

json::object manifest_json(const TemplateManifest& manifest) {
    json::object packages;
    for (const auto& [name, version] : manifest.packages) packages[name] = version;
    json::array files;
    for (const auto& file : manifest.files) files.emplace_back(file);
    json::object object;
    object["name"] = manifest.name;
    object["directory"] = manifest.directory.string();
    object["python"] = manifest.python().string();
    object["python_version"] = manifest.python_version;
    object["requirements_hash"] = manifest.requirements_hash;
    object["packages"] = std::move(packages);
    object["files"] = std::move(files);
    object["built_at"] = manifest.built_at;
    object["build_seconds"] = manifest.build_seconds;
    object["size_bytes"] = manifest.size_bytes;
    return object;
}

std::string mebibytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return text;
}

std::vector<std::pair<std::filesystem::path, std::string>> file_options(const ParsedArgs& args) {
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    const auto found = args.repeated.find("--file");
    std::vector<std::string> values;
    if (found != args.repeated.end()) values = found->second;
    else if (const auto one = args.value("--file")) values = {*one};
    for (const auto& value : values) {
        const auto colon = value.find(':');
        const std::filesystem::path source = value.substr(0, colon);
        files.emplace_back(source, colon == std::string::npos ? source.filename().string() : value.substr(colon + 1));
    }
    return files;
}

TemplateManifest build(const ParsedArgs& args) {
    const auto& name = args.positional[1];
    const auto requirements = args.value("-r") ? args.value("-r") : args.value("--requirements");
    // The interpreter the local backend runs code with, unless --python names another.
    const auto python = chosen_python(args.value("--python")).interpreter;
    if (const auto builtin = builtin_template_name(name); !builtin.empty() && !requirements) {
        // The built-in template, from e2beval's own requirements (E2B's): what its first use would build.
        if (args.value("--file") || args.repeated.count("--file"))
            throw usage_error(builtin + " is built from e2beval's own requirements (E2B's); it takes no --file");
        return build_builtin_template(builtin, python, args.flag("--force"));
    }
    if (!requirements)
        throw usage_error("template build needs a requirements file: -r requirements.txt (only the built-in " +
                          std::string(kCodeInterpreterTemplate) + " is built without one)");
    TemplateBuildOptions options;
    options.name = name;
    options.requirements = *requirements;
    options.python = python;
    options.files = file_options(args);
    options.force = args.flag("--force");
    return build_template(options);
}

int template_command(const ParsedArgs& args) {
    const auto& action = args.positional[0];
    const bool as_json = args.flag("--json");
    if (action == "build") {
        if (args.positional.size() != 2) throw usage_error("template build takes one NAME: e2beval template build NAME -r requirements.txt");
        const auto manifest = build(args);
        if (as_json) {
            std::cout << to_json_text(manifest_json(manifest)) << std::endl;
        } else {
            std::cout << manifest.name << ": Python " << manifest.python_version << ", " << manifest.packages.size()
                      << " packages, " << mebibytes(manifest.size_bytes) << ", built " << manifest.built_at << " in "
                      << manifest.build_seconds << " s\n  " << manifest.directory.string() << "\n";
        }
        return 0;
    }
    if (action == "list") {
        if (args.positional.size() != 1) throw usage_error("template list takes no NAME");
        const auto templates = list_templates();
        if (as_json) {
            json::array all;
            for (const auto& manifest : templates) all.push_back(manifest_json(manifest));
            std::cout << to_json_text(all) << std::endl;
            return 0;
        }
        if (templates.empty()) std::cout << "no templates in " << templates_directory().string() << "\n";
        for (const auto& manifest : templates)
            std::cout << manifest.name << "  Python " << manifest.python_version << "  " << manifest.packages.size()
                      << " packages  " << mebibytes(manifest.size_bytes) << "  built " << manifest.built_at << "\n";
        return 0;
    }
    if (action == "rm") {
        if (args.positional.size() != 2) throw usage_error("template rm takes one NAME");
        const auto builtin = builtin_template_name(args.positional[1]);
        const bool gone = remove_template(builtin.empty() ? args.positional[1] : builtin);
        std::cout << "removed " << args.positional[1]
                  << (gone ? "\n" : " (its files stay until the sandboxes still running with it end)\n");
        return 0;
    }
    throw usage_error("unknown template action '" + action + "': use build, list or rm");
}

}  // namespace

Command make_template_command() {
    return {{"template", "e2beval template build NAME -r FILE [OPTIONS] | list | rm NAME",
             "Build, list and remove templates: named environments (a Python virtualenv and files) for sandboxes.",
             "build NAME -r FILE  makes a virtualenv with the Python the sandbox uses (or --python), pip-installs\n"
             "                    FILE into it (pip's log is shown), copies each --file, writes manifest.json; a\n"
             "                    build with the same requirements, Python and files reuses the existing one.\n"
             "build code-interpreter-v1\n"
             "                    the built-in template: E2B's code-interpreter packages at E2B's pins (no -r); its\n"
             "                    first use builds it anyway (Sandbox.create(\"code-interpreter-v1\"), e2beval serve).\n"
             "list                the built templates (name, Python, packages, size, build time)\n"
             "rm NAME             removes one; sandboxes still running with it keep working\n"
             "Templates live in $E2BEVAL_CACHE_DIR/templates (else $XDG_CACHE_HOME/e2beval, else ~/.cache/e2beval).\n"
             "Use one with `run`/`eval --template NAME`, e2beval.Sandbox.create(\"NAME\"), the promptfoo\n"
             "assertion's `config: {template: NAME}` or serve's templateID. A failed build leaves nothing.\n"
             "Exit status: 0 done; 2 bad input (unknown template, missing file); 125 the build failed.",
             {{"-r", "FILE", "build: the pip requirements file"},
              {"--requirements", "FILE", "same as -r"},
              {"--python", "PATH", "build: the Python to make the virtualenv with (default: $E2BEVAL_PYTHON, else python3)"},
              {"--file", "SRC[:DEST]", "build: copy SRC into the template at files/DEST (read-only in the sandbox; repeatable)"},
              {"--force", "", "build: rebuild even when an identical build exists"},
              {"--json", "", "print the manifest(s) as JSON"}},
             1, 2},
            template_command};
}

}  // namespace e2beval::cli
