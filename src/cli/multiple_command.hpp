// `e2beval eval --multipl-e FILE`: MultiPL-E rows, each answer assembled, run and judged as MultiPL-E judges its
// language (eval/multipl_e.hpp), pass@k per language. commands.cpp parses the shared options and calls this.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "cli/options.hpp"
#include "e2beval/core/types.hpp"
#include "e2beval/sandbox.hpp"

namespace e2beval::cli {

struct MultiplESettings {
    ExecRequest request;               // limits and isolation from the shared options
    bool limits_given = false;         // --timeout/--cpu/--profile given: else MultiPL-E's timeouts per language
    bool memory_given = false;         // --memory/--profile given: else kMultiplEMemoryBytes
    std::size_t jobs = 2;
    std::vector<std::size_t> ks;
    std::function<std::unique_ptr<Sandbox>()> make_sandbox;
};

int multipl_e_command(const ParsedArgs& args, const MultiplESettings& settings);

}  // namespace e2beval::cli
