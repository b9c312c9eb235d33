// Parent side of the local sandbox: start an execution cold (a new sandbox: sandbox_spawn.hpp) or warm (in a
// zygote's child: zygote.hpp), and watch it with Asio to its result (cold_watch.hpp, warm_watch.hpp, rules in
// verdict.hpp). Sessions' long-lived sandboxes: interactive_sandbox.hpp.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "local/interactive_sandbox.hpp"
#include "local/supervision_request.hpp"
#include "local/verdict.hpp"
#include "local/warm_watch.hpp"
#include "local/zygote.hpp"

namespace e2beval::local {

// Starts the sandbox and completes with its result; the handler is called exactly once, on `executor`, and
// never from inside this call, whatever fails: a refusal (bad input, a host that cannot give the isolation
// asked for) completes with its error code, any other set-up failure with outcome sandbox_error and a detail
// naming the syscall (SupervisionHandler). Never throws.
void supervise(boost::asio::any_io_executor executor, SupervisionRequest request, SupervisionHandler handler) noexcept;

// Runs `request` (plan.program_source, environment, rlimits; limits, isolation, stdin) in a child of
// `zygote`, and then calls the handler exactly once (`hooks.release` before it). Returns false, leaving
// `handler` untouched, when the zygote cannot take the request (it died: the caller runs it cold). Never throws:
// a request it refuses (stdin too large) completes the handler with its error code.
bool supervise_warm(boost::asio::any_io_executor executor, Zygote& zygote, SupervisionRequest request, WarmHooks hooks,
                    SupervisionHandler& handler) noexcept;

}  // namespace e2beval::local
