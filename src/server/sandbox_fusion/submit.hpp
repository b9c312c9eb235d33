// /submit: one answer judged against one row, as SandboxFusion's EvalResult {id, accepted, extracted_code,
// full_code, test_code, tests: [{passed, exec_info (a whole RunCodeResponse), test_info}], extracted_type, extra}.
// HumanEval and MultiPL-E rows run one program (programs.hpp); stdin/stdout rows run one /run_code per case,
// at most three at once per submission, stopping at the first failure unless config.extra.run_all_cases
// (stdio_cases.hpp). docs/sandbox-fusion-datasets.md.
#pragma once

#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "server/sandbox_fusion/dataset_requests.hpp"
#include "server/sandbox_fusion/datasets.hpp"

namespace e2beval::server {
struct ServerContext;
}

namespace e2beval::server::sandbox_fusion {

// The EvalResult as JSON. Throws SubmitRefused (programs.hpp): 400 for a row or request that cannot be judged,
// 500 when a run ends in SandboxError (the sandbox failed, or the language cannot run here: upstream answers 500
// too, and the official client retries), 503 when the fair queue is full (QueueFull from run_code).
boost::asio::awaitable<boost::json::object> evaluate_submission(ServerContext& context, const SubmitRequest& request,
                                                                DatasetClass kind, const boost::json::object& row,
                                                                std::string client);

// How many cases of one submission run at once (SandboxFusion's dataset.max_runner_concurrency).
inline constexpr std::size_t kCasesAtOnce = 3;

}  // namespace e2beval::server::sandbox_fusion
