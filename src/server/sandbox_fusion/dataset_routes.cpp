// Placeholder until the dataset API lands: every dataset route answers 404.
#include "server/sandbox_fusion/dataset_routes.hpp"

#include "server/plan.hpp"
#include "server/server_context.hpp"

namespace e2beval::server::sandbox_fusion {

struct Datasets {};

std::shared_ptr<const Datasets> load_datasets(const std::vector<std::pair<std::string, std::filesystem::path>>&) {
    return std::make_shared<Datasets>();
}

bool is_dataset_route(std::string_view path) {
    return path == "/list_datasets" || path == "/list_ids" || path == "/get_prompts" || path == "/get_prompt_by_id" ||
           path == "/submit" || path == "/get_metrics" || path == "/get_metrics_function";
}

boost::asio::awaitable<void> serve_dataset_route(ServerContext& context, Exchange& exchange, std::string) {
    co_await carry_out(context, exchange, Plan(error_response(http::status::not_found, "the dataset API is not served yet")));
}

}  // namespace e2beval::server::sandbox_fusion
