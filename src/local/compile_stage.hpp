// A compiled language's execution in the local backend: the compile stage in a sandbox of its own (or the
// compile cache), its artifacts brought out through the sandbox's init, then the run stage in a second cold
// sandbox whose workspace holds them. docs/sandbox.md ("Compiled languages"), docs/languages.md.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <memory>
#include <string>

#include "e2beval/core/types.hpp"
#include "local/local_settings.hpp"

namespace e2beval::local {

// Runs `request` (a compiled language) and completes `handler` exactly once with the run's result and its
// `compile` stage, or the compile stage's failure. Throws, leaving `handler` untouched, when the language's
// toolchain is missing (sandbox_error, errc::unsupported, naming the package to install).
void run_compiled(std::shared_ptr<const LocalSandbox::Settings> settings, boost::asio::any_io_executor io, ExecRequest request,
                  boost::asio::any_completion_handler<void(ExecResult)> handler);

// The compile stage's limits of `request`: its own, else the language's defaults.
Limits compile_limits_of(const ExecRequest& request);

// The first line of a compiler's diagnostics that names an error ("main.cpp:3:5: error: ...", "error[E0425]: ...",
// "main.ts(1,7): error TS2322: ...", Go's "./main.go:4:2: undefined: x"): stderr first, then stdout (tsc).
std::string first_compiler_error(const std::string& stderr_data, const std::string& stdout_data);

}  // namespace e2beval::local
