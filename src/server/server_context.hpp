// What every handler of the server shares: the backend, the served sandboxes, the limits, the call threads.
// One per Server object; nothing here is process-wide.
#pragma once

#include <atomic>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "e2beval/sandbox.hpp"
#include "server/admission.hpp"
#include "server/auth.hpp"
#include "server/blocking_calls.hpp"
#include "server/sandbox_store.hpp"
#include "server/server.hpp"

namespace e2beval::server {

namespace sandbox_fusion {
struct Datasets;
class FairQueue;
}

struct ServerContext {
    ServerContext(const ServerOptions& server_options, std::unique_ptr<Sandbox> sandbox_backend,
                  std::shared_ptr<SessionRegistry> session_registry)
        : options(server_options), keys(server_options.api_keys), admission(server_options.admission),
          registry(std::move(session_registry)), backend(std::move(sandbox_backend)) {}

    ServerOptions options;
    ApiKeys keys;
    Admission admission;
    std::shared_ptr<SessionRegistry> registry;
    std::unique_ptr<Sandbox> backend;
    SandboxStore sandboxes;
    BlockingCalls calls;
    std::atomic<std::uint64_t> next_sequence{1};
    std::atomic<bool> stopping{false};  // a sandbox created from now on is killed at once
    // SandboxFusion's API (src/server/sandbox_fusion/): the datasets of --dataset, loaded before the server listens.
    std::shared_ptr<const sandbox_fusion::Datasets> sandbox_fusion_datasets;
    // Its runs' fair queue (--sandbox-fusion-jobs, --sandbox-fusion-queue); only the I/O thread touches it.
    std::shared_ptr<sandbox_fusion::FairQueue> sandbox_fusion_queue;
};

}  // namespace e2beval::server
