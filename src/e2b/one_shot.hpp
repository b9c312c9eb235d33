// One-shot execution on the E2B backend: an ExecRequest run as a process (envd) in a pooled remote
// sandbox, its result in the local backend's shape (outcomes, exit status, output caps, wall time).
#pragma once

#include <boost/asio/awaitable.hpp>

#include "e2b/engine.hpp"
#include "e2beval/core/types.hpp"

namespace e2beval::e2b {

boost::asio::awaitable<ExecResult> run_one_shot(E2bSandbox::Engine& engine, ExecRequest request);
// Throws input_error for a compiled language: its compile stage runs only in the local sandbox.
void check_language_runs_on_e2b(Language language);

}  // namespace e2beval::e2b
