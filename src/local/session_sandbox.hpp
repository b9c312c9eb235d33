// The sandbox of a local session: a one-shot execution's, whose program is the session agent.
#pragma once

#include <string>

#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/session.hpp"
#include "local/supervisor.hpp"

namespace e2beval::local {

// What spawn_interactive() starts for a session with `options`: the agent (`agent_source`) as the program.
SupervisionRequest session_sandbox_request(const LocalSandbox::Settings& settings, const SessionOptions& options,
                                           const std::string& agent_source);

}  // namespace e2beval::local
