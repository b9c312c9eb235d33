// Inside the template store: running the builder without the checks `e2beval template build` makes on a
// user's name, for the built-in template (builtin_templates.cpp), whose name those checks refuse.
#pragma once

#include "e2beval/local/templates.hpp"

namespace e2beval::local {

// Builds (or reuses, by hash) the template `options` describes: see build_template, which checks the name first.
TemplateManifest run_template_builder(const TemplateBuildOptions& options);

}  // namespace e2beval::local
