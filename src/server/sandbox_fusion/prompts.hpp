// A row as SandboxFusion's Prompt {id, prompt, labels}, per class (sandbox/datasets/humaneval.py,
// common_oj.py `_generate_single_prompt`).
#pragma once

#include <string_view>

#include <boost/json/object.hpp>

#include "server/sandbox_fusion/dataset_requests.hpp"
#include "server/sandbox_fusion/datasets.hpp"

namespace e2beval::server::sandbox_fusion {

// HumanEval and MultiPL-E: the row's prompt (in a fence with an instruction when config.extra.is_freeform), and
// every other field as labels. CommonOJ: the statement with the instruction for config.language and locale, and
// the row's labels. `dataset`: the name the request gave (free-form prompts name its language).
boost::json::object make_prompt(DatasetClass kind, std::string_view dataset, const boost::json::object& row,
                                const TestConfig& config);

}  // namespace e2beval::server::sandbox_fusion
