// Parent side of the local sandbox: clone3 into new namespaces, write the id maps, then watch the
// child with Asio (pidfd, pipes, a wall-clock timer), cap its output, kill its whole tree, classify.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>

#include "e2beval/types.hpp"
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
};

// Starts the sandbox and completes with its result. Set-up failures complete with outcome sandbox_error
// and a detail naming the syscall; the handler is always called exactly once.
void supervise(boost::asio::any_io_executor executor, SupervisionRequest request,
               boost::asio::any_completion_handler<void(ExecResult)> handler);

}  // namespace e2beval::local
