// What the supervisor is asked to run: the child's finalized plan, its id maps, limits and isolation.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/system/error_code.hpp>

#include <string>

#include "e2beval/core/types.hpp"
#include "local/spawn_plan.hpp"
#include "local/userns.hpp"

namespace e2beval::local {

struct SupervisionRequest {
    SpawnPlan plan;  // finalized
    IdMapping ids;
    Limits limits;
    IsolationProfile isolation;
    Language language = Language::python;
    std::string stdin_data;
    // Whether the end of stderr may name the limit a failure ran into (stderr_reports_limit). Off for a compiler:
    // its diagnostics quote the program's text, which may say anything.
    bool read_limit_messages = true;
};

// How a supervised execution completes, exactly once. The error code is set only when the request was refused
// before anything ran: errc::invalid_input (bad input) or errc::unsupported (the host cannot give the isolation
// asked for); the result says why then too (outcome sandbox_error). Any other failure to build the sandbox is a
// result with outcome sandbox_error and no error code.
using SupervisionHandler = boost::asio::any_completion_handler<void(boost::system::error_code, ExecResult)>;

}  // namespace e2beval::local
