// The request bodies of SandboxFusion's dataset API (sandbox/datasets/types.py: TestConfig, GetPromptsRequest,
// GetPromptByIdRequest, SubmitRequest, GetMetricsRequest) read into value types, or the 422 FastAPI gives for
// them: {"detail": [{"type", "loc", "msg", "input"}, ...]}. Unknown top-level fields are refused (extra_forbidden);
// unknown fields inside `config` are ignored, as upstream ignores them. docs/sandbox-fusion-datasets.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "server/http_exchange.hpp"

namespace e2beval::server::sandbox_fusion {

struct TestConfig {
    std::optional<std::string> dataset_type;
    std::optional<std::string> language;  // a SandboxFusion language name ("python", "cpp", "nodejs", ...)
    std::optional<std::string> locale;
    std::optional<bool> is_fewshot;
    std::optional<double> compile_timeout;
    std::optional<double> run_timeout;
    std::optional<std::string> custom_extract_logic;
    // null, or a row (a dict), or rows (a list of dicts). An empty one counts as none, as upstream's truthiness.
    boost::json::value provided_data;
    boost::json::object extra;

    // A truthy extra flag (is_freeform, run_all_cases, return_full_case), as Python's `if extra.get(key)`.
    bool flag(std::string_view key) const;
};

struct GetPromptsRequest {
    std::string dataset;
    TestConfig config;
    std::int64_t offset = 0;
    std::int64_t limit = 1000000;
};

struct GetPromptByIdRequest {
    std::string dataset;
    TestConfig config;
    boost::json::value id;  // an integer or a string
};

struct SubmitRequest {
    std::string dataset;
    boost::json::value id;
    std::string completion;
    TestConfig config;
};

// /get_metrics and /get_metrics_function: only the dataset and config matter (the answers are trivial).
struct MetricsRequest {
    std::string dataset;
    TestConfig config;
};

// The request, or the 422 to answer (validation.hpp).
template <class T>
using Parsed = std::variant<T, Response>;

Parsed<GetPromptsRequest> parse_get_prompts(std::string_view body);
Parsed<GetPromptByIdRequest> parse_get_prompt_by_id(std::string_view body);
Parsed<SubmitRequest> parse_submit(std::string_view body);
// `with_results`: /get_metrics (which has a `results` list) rather than /get_metrics_function.
Parsed<MetricsRequest> parse_metrics(std::string_view body, bool with_results);

}  // namespace e2beval::server::sandbox_fusion
