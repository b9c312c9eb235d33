// SandboxFusion's language names (its RunCodeRequest.language) mapped to e2beval's languages, and how each is run
// (docs/sandbox-fusion.md lists them and the differences from SandboxFusion's runners).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "e2beval/core/types.hpp"

namespace e2beval::server::sandbox_fusion {

// How one SandboxFusion language runs in e2beval.
struct ServedLanguage {
    Language language;
    enum class Shape {
        program,  // `code` is the program, as e2beval runs that language
        pytest,   // `code` is a test file run by `python -m pytest` in the sandbox
        go_test,  // `code` is a Go test file (any package name), built by `go test -c`
    } shape = Shape::program;
};

// The language SandboxFusion calls `name`, or nothing when e2beval does not serve it.
std::optional<ServedLanguage> served_language(std::string_view name) noexcept;

// "python, pytest, cpp, ...": the served names, for the message of an unsupported language.
std::string served_language_names();

// The ExecRequest's language, code and extra workspace files for `code` in `served`: a program goes as is; a
// pytest file is written to the workspace beside a small runner; a Go test file is made a test package.
void shape_program(const ServedLanguage& served, const std::string& code, ExecRequest& request);

}  // namespace e2beval::server::sandbox_fusion
