// Waiting for a launched warm-pool zygote to report that it is ready (its interpreter started and its
// modules imported, typically 50–150 ms), on the event loop: an execution that needs a new zygote waits
// for it without blocking the loop that runs the rest of its batch.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "local/supervisor.hpp"

namespace e2beval::local {

// How long a zygote may take to start before it is given up (and its execution runs cold).
inline constexpr std::chrono::seconds kZygoteStartTimeout{20};

// Completes with ("") once `zygote` is ready, or with the reason it is not (it failed, died or took longer
// than kZygoteStartTimeout). The handler's associated cancellation slot, if any, is honoured: a cancelled
// wait completes with operation_aborted. Completes on `executor`, never inline.
void async_wait_until_ready(boost::asio::any_io_executor executor, std::shared_ptr<Zygote> zygote,
                            boost::asio::any_completion_handler<void(boost::system::error_code, std::string)> handler);

// The blocking form, for callers that asked to wait (warm_up): throws sandbox_error with the reason.
void wait_until_ready(const std::shared_ptr<Zygote>& zygote);

}  // namespace e2beval::local
