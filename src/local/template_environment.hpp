// The Python a sandbox runs: the default environment's, or a template's virtualenv (docs/templates.md). The
// template's directory is bound read-only into the sandbox at its own path; nothing else of the host is added.
#pragma once

#include <string>

#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::local {

struct SandboxPython {
    // The interpreter to exec and what to bind for it. For a template: the virtualenv's bin/python, unresolved
    // (Python finds its virtualenv from that path), with the template's directory among read_only_paths.
    InterpreterInfo info;
    // "" for the default environment, else NAME@BUILD_ID: the warm pool and the pool of ready sessions keep
    // their sandboxes per key, so a template rebuilt under the same name never gets a sandbox of the old one.
    std::string key;
    std::string bin_directory;  // the virtualenv's bin/ (host path), first on the sandbox's PATH; "" by default
};

// `template_name` empty (or "base", "e2beval") is the default environment, `default_python`. Else the built
// template of that name, or the built-in one ("code-interpreter-v1", built with `default_python` on its first
// use: resolve_template); throws input_error listing the known ones when there is none. This process keeps
// a shared lock on every template it used until it exits, so a template removed meanwhile keeps its files for
// the sandboxes that still run with it (remove_template deletes them once nobody holds the lock).
SandboxPython sandbox_python(const InterpreterInfo& default_python, const std::string& template_name);

// The environment variables a sandbox running `python` gets besides the base ones: PATH with the template's
// bin/ first, and matplotlib's non-interactive backend; by default, PATH with the default Python's directory first.
std::vector<std::string> template_environment(const SandboxPython& python, const std::string& base_path);

}  // namespace e2beval::local
