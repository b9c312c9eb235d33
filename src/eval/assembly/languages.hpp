// The per-language halves of the MultiPL-E assembly: each turns the code chosen from a free-form answer (which
// defines the prompt's function) into the whole program. One file per language; assemble.cpp dispatches.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "e2beval/eval/assembly.hpp"

namespace e2beval::assembly {

struct FreeformProgram {
    std::string source;
    std::string file_name;
    std::string main_class;            // Java only
    std::vector<std::string> removed;  // what was cut from the answer, for the explanation: "int main()"
};

FreeformProgram assemble_cpp(const MultiplETask& task, std::string_view entry, std::string_view code);
FreeformProgram assemble_java(const MultiplETask& task, std::string_view entry, std::string_view code);
FreeformProgram assemble_go(const MultiplETask& task, std::string_view entry, std::string_view code);
FreeformProgram assemble_rust(const MultiplETask& task, std::string_view entry, std::string_view code);
// JavaScript and TypeScript share their rules (javascript.cpp).
FreeformProgram assemble_javascript(const MultiplETask& task, std::string_view entry, std::string_view code);
FreeformProgram assemble_bash(const MultiplETask& task, std::string_view entry, std::string_view code);

// The prompt before its last line (the entry function's signature): its includes, imports, declarations.
std::string_view prompt_preamble(const MultiplETask& task);

// Whether a bash script defines the function `name` (`name() {`, `function name {`).
bool bash_defines_function(std::string_view code, std::string_view name);

}  // namespace e2beval::assembly
