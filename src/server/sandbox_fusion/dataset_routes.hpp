// SandboxFusion's dataset ("online judge") API: /list_datasets, /list_ids, /get_prompts, /get_prompt_by_id,
// /submit (and /get_metrics, /get_metrics_function), over the datasets `e2beval serve --dataset NAME=FILE`
// registered and the rows requests bring in `config.provided_data`. docs/sandbox-fusion.md.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"

namespace e2beval::server {
struct ServerContext;
}

namespace e2beval::server::sandbox_fusion {

// The registered datasets, loaded once before the server listens (immutable afterwards, shared by every request).
struct Datasets;

// Loads every NAME=FILE pair (JSONL, gzip or not). Throws input_error naming the file and line that cannot be
// read, so that `e2beval serve` refuses to start rather than serve half a dataset.
std::shared_ptr<const Datasets> load_datasets(const std::vector<std::pair<std::string, std::filesystem::path>>& files);

bool is_dataset_route(std::string_view path);

// Answers one dataset route. `client` is the client's address, for the fair queue of the runs /submit makes.
boost::asio::awaitable<void> serve_dataset_route(ServerContext& context, Exchange& exchange, std::string client);

}  // namespace e2beval::server::sandbox_fusion
