// SandboxFusion's dataset routes (sandbox/server/online_judge_api.py): which class and which rows a request means,
// and the answers, with upstream's status codes and messages ({"detail": ...}). The evaluation is submit.cpp's.
#include "server/sandbox_fusion/dataset_routes.hpp"

#include <optional>
#include <variant>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "server/plan.hpp"
#include "server/sandbox_fusion/client_wait.hpp"
#include "server/sandbox_fusion/dataset_requests.hpp"
#include "server/sandbox_fusion/datasets.hpp"
#include "server/sandbox_fusion/programs.hpp"
#include "server/sandbox_fusion/prompts.hpp"
#include "server/sandbox_fusion/run_code.hpp"
#include "server/sandbox_fusion/submit.hpp"
#include "server/sandbox_fusion/validation.hpp"
#include "server/server_context.hpp"

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;
using boost::asio::awaitable;

namespace {

constexpr std::string_view kServedClasses = "HumanEvalDataset, MultiPLEDataset, CommonOJDataset";

// A request refused before anything runs.
struct Refusal {
    Response response;
};

// get_dataset_cls: a dataset registered here (--dataset) or by SandboxFusion keeps its class, whatever
// config.dataset_type says; any other name needs config.dataset_type.
std::variant<DatasetClass, Refusal> resolve_class(const Datasets& datasets, const std::string& name, const TestConfig& config) {
    if (const auto* dataset = datasets.find(name)) return dataset->kind;
    if (const auto registered = sandbox_fusion_id(name)) {
        if (registered->served) return *registered->served;
        return Refusal{detail_response(http::status::bad_request,
                              "eval class " + std::string(registered->class_name) + " not found: SandboxFusion evaluates dataset " +
                                  name + " with it, and e2beval serves only " + std::string(kServedClasses))};
    }
    if (!config.dataset_type)
        return Refusal{detail_response(http::status::bad_request,
                              "no eval class found for dataset " + name + " (register it with `e2beval serve --dataset " + name +
                                  "=FILE`, or name its class in config.dataset_type: " + std::string(kServedClasses) + ")")};
    if (const auto kind = class_from_name(*config.dataset_type)) return *kind;
    return Refusal{detail_response(http::status::bad_request, "eval class " + *config.dataset_type + " not found (e2beval serves " +
                                                         std::string(kServedClasses) + ")")};
}

// An empty list or dict is "no provided_data", as Python's truthiness makes it upstream.
bool has_provided_data(const TestConfig& config) {
    const auto& data = config.provided_data;
    return (data.is_array() && !data.get_array().empty()) || (data.is_object() && !data.get_object().empty());
}

Refusal no_rows(const std::string& name) {
    return Refusal{detail_response(http::status::not_found,
                          "dataset " + name + " has no rows on this server: register a file with `e2beval serve --dataset " + name +
                              "=FILE.jsonl`, or send the row in config.provided_data")};
}

// What a row needs for its prompt: an id, and the text the prompt is made of.
std::optional<std::string> prompt_row_problem(DatasetClass kind, const json::object& row, bool needs_id) {
    if (needs_id) {
        const auto* id = row_id(row);
        if (!id || !(id->is_string() || id->is_int64() || id->is_uint64()))
            return std::string("it has no id: a string or integer field `id`, `task_id` or `name`");
    }
    const auto key = kind == DatasetClass::common_oj ? "content" : "prompt";
    if (const auto* text = row.if_contains(key); !text || !text->is_string())
        return "it has no string field `" + std::string(key) + "`";
    return std::nullopt;
}

// The rows a prompts request means: provided_data's list (offset and limit ignored, as upstream), or the
// registered file's rows from offset, at most limit of them.
std::variant<std::vector<json::object>, Refusal> prompt_rows(const Datasets& datasets, const GetPromptsRequest& request,
                                                             DatasetClass kind) {
    std::vector<json::object> rows;
    if (has_provided_data(request.config)) {
        if (!request.config.provided_data.is_array())
            return Refusal{detail_response(http::status::bad_request, "request.config.provided_data should be a list of str -> str | int")};
        for (const auto& row : request.config.provided_data.get_array()) {
            if (auto problem = prompt_row_problem(kind, row.get_object(), true))
                return Refusal{detail_response(http::status::bad_request, "config.provided_data row " + std::to_string(rows.size()) +
                                                                     " cannot be served as " + std::string(class_name(kind)) + ": " + *problem)};
            rows.push_back(row.get_object());
        }
        return rows;
    }
    const auto* dataset = datasets.find(request.dataset);
    if (!dataset) return no_rows(request.dataset);
    // SQLite's LIMIT offset, limit: a negative limit is no limit, a negative offset none.
    const std::size_t size = dataset->rows.size();
    const std::size_t first = request.offset > 0 ? std::min<std::size_t>(static_cast<std::size_t>(request.offset), size) : 0;
    const std::size_t count = request.limit < 0 ? size - first : std::min<std::size_t>(static_cast<std::size_t>(request.limit), size - first);
    rows.assign(dataset->rows.begin() + static_cast<std::ptrdiff_t>(first), dataset->rows.begin() + static_cast<std::ptrdiff_t>(first + count));
    return rows;
}

// The one row a by-id or submit request means: provided_data's dict (the request's id only echoed), or the
// registered row with that id.
std::variant<json::object, Refusal> one_row(const Datasets& datasets, const std::string& name, const TestConfig& config,
                                           const json::value& id) {
    if (has_provided_data(config)) {
        if (!config.provided_data.is_object())
            return Refusal{detail_response(http::status::bad_request, "request.config.provided_data should be a dict with str -> str | int")};
        return config.provided_data.get_object();
    }
    const auto* dataset = datasets.find(name);
    if (!dataset) return no_rows(name);
    const auto* row = dataset->find(id_text(id));
    if (!row)
        return Refusal{detail_response(http::status::not_found, "dataset " + name + " has no row with id " + id_text(id) +
                                                           " (a row's id is its `id`, else `task_id`, else `name`)")};
    return *row;
}

const Datasets& datasets_of(const ServerContext& context) {
    static const Datasets none;
    return context.sandbox_fusion_datasets ? *context.sandbox_fusion_datasets : none;
}

Response list_datasets(const ServerContext& context) {
    json::array names;
    for (const auto& dataset : datasets_of(context).datasets) names.emplace_back(dataset.name);
    for (const auto id : served_sandbox_fusion_ids())
        if (!datasets_of(context).find(id)) names.emplace_back(id);
    return json_response(http::status::ok, names);
}

// /get_prompts and /list_ids.
Response prompts(const ServerContext& context, std::string_view body, bool ids_only) {
    auto parsed = parse_get_prompts(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto& request = std::get<GetPromptsRequest>(parsed);
    const auto kind = resolve_class(datasets_of(context), request.dataset, request.config);
    if (auto* refusal = std::get_if<Refusal>(&kind)) return std::move(refusal->response);
    auto rows = prompt_rows(datasets_of(context), request, std::get<DatasetClass>(kind));
    if (auto* refusal = std::get_if<Refusal>(&rows)) return std::move(refusal->response);
    json::array answer;
    for (const auto& row : std::get<std::vector<json::object>>(rows)) {
        auto prompt = make_prompt(std::get<DatasetClass>(kind), request.dataset, row, request.config);
        if (ids_only) answer.push_back(prompt["id"]);
        else answer.emplace_back(std::move(prompt));
    }
    return json_response(http::status::ok, answer);
}

Response prompt_by_id(const ServerContext& context, std::string_view body) {
    auto parsed = parse_get_prompt_by_id(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto& request = std::get<GetPromptByIdRequest>(parsed);
    const auto kind = resolve_class(datasets_of(context), request.dataset, request.config);
    if (auto* refusal = std::get_if<Refusal>(&kind)) return std::move(refusal->response);
    auto row = one_row(datasets_of(context), request.dataset, request.config, request.id);
    if (auto* refusal = std::get_if<Refusal>(&row)) return std::move(refusal->response);
    const auto& found = std::get<json::object>(row);
    if (auto problem = prompt_row_problem(std::get<DatasetClass>(kind), found, false))
        return detail_response(http::status::bad_request, "config.provided_data cannot be served as " +
                                                     std::string(class_name(std::get<DatasetClass>(kind))) + ": " + *problem);
    auto prompt = make_prompt(std::get<DatasetClass>(kind), request.dataset, found, request.config);
    if (prompt["id"].is_null()) prompt["id"] = request.id;  // a provided row without an id: the request's
    return json_response(http::status::ok, prompt);
}

Response metrics(const ServerContext& context, std::string_view body, bool with_results) {
    auto parsed = parse_metrics(body, with_results);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto& request = std::get<MetricsRequest>(parsed);
    const auto kind = resolve_class(datasets_of(context), request.dataset, request.config);
    if (auto* refusal = std::get_if<Refusal>(&kind)) return std::move(refusal->response);
    // None of the three classes defines metrics upstream: {} and {"function": null}.
    json::object answer;
    if (!with_results) answer["function"] = nullptr;
    return json_response(http::status::ok, answer);
}

// A submission ready to run, or the answer that refuses it.
struct Submission {
    SubmitRequest request;
    DatasetClass kind = DatasetClass::humaneval;
    json::object row;
};

std::variant<Submission, Refusal> prepare_submission(const ServerContext& context, std::string_view body) {
    auto parsed = parse_submit(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return Refusal{std::move(*refusal)};
    Submission submission;
    submission.request = std::move(std::get<SubmitRequest>(parsed));
    const auto& request = submission.request;
    if (request.config.custom_extract_logic)
        return Refusal{detail_response(http::status::bad_request,
                              "config.custom_extract_logic is not supported: SandboxFusion runs it as Python inside its own "
                              "server process; e2beval runs no request's code outside a sandbox. Extract the code yourself and "
                              "submit it as the completion (or leave custom_extract_logic null)")};
    const auto kind = resolve_class(datasets_of(context), request.dataset, request.config);
    if (auto* refusal = std::get_if<Refusal>(&kind)) return std::move(*refusal);
    submission.kind = std::get<DatasetClass>(kind);
    auto row = one_row(datasets_of(context), request.dataset, request.config, request.id);
    if (auto* refusal = std::get_if<Refusal>(&row)) return std::move(*refusal);
    submission.row = std::move(std::get<json::object>(row));
    if (has_provided_data(request.config)) {
        auto checked = submission.row;
        if (!row_id(checked)) checked["id"] = request.id;  // the id is only echoed: a provided row need not have one
        if (auto problem = row_problem(checked, submission.kind))
            return Refusal{detail_response(http::status::bad_request, "config.provided_data cannot be judged as " +
                                                                 std::string(class_name(submission.kind)) + ": " + *problem)};
    }
    return submission;
}

Response refused(const SubmitRefused& refusal) { return detail_response(static_cast<http::status>(refusal.status), refusal.what()); }

Response client_gone() { return detail_response(http::status::service_unavailable, "the client went away before its runs ended"); }

Response evaluated(const json::object& result) { return json_response(http::status::ok, result); }

// The EvalResult, or the refusal; nothing when the client went away (its runs were cancelled: nobody reads an answer).
awaitable<std::optional<Response>> submit(ServerContext& context, Exchange& exchange, const Submission& submission, std::string client) {
    std::optional<Response> failure;
    try {
        json::object result = co_await while_client_waits(
            exchange, evaluate_submission(context, submission.request, submission.kind, submission.row, std::move(client)));
        co_return evaluated(result);
    } catch (const boost::system::system_error& ended) {
        if (ended.code() != boost::asio::error::operation_aborted) throw;
        co_return std::nullopt;
    } catch (const SubmitRefused& refusal) {
        failure = refused(refusal);
    } catch (const QueueFull& full) {
        failure = queue_full_response(full);
    } catch (const std::exception& unexpected) {
        failure = detail_response(http::status::internal_server_error, std::string("/submit failed: ") + unexpected.what());
    }
    co_return std::move(*failure);
}

Plan answer(ServerContext& context, const Exchange& exchange, std::string_view path) {
    const auto& request = exchange.request();
    const bool get = path == "/list_datasets";
    if (request.method() != (get ? http::verb::get : http::verb::post)) {
        auto refusal = detail_response(http::status::method_not_allowed, "Method Not Allowed");
        refusal.headers.emplace_back("Allow", get ? "GET" : "POST");
        return refusal;
    }
    const std::string_view body = request.body();
    if (path == "/list_datasets") return list_datasets(context);
    if (path == "/get_prompts") return prompts(context, body, false);
    if (path == "/list_ids") return prompts(context, body, true);
    if (path == "/get_prompt_by_id") return prompt_by_id(context, body);
    if (path == "/get_metrics") return metrics(context, body, true);
    if (path == "/get_metrics_function") return metrics(context, body, false);
    return Streaming{};  // /submit: the caller's coroutine runs it
}

std::string_view path_of(const Exchange& exchange) {
    std::string_view target = exchange.request().target();
    return target.substr(0, target.find('?'));
}

}  // namespace

bool is_dataset_route(std::string_view path) {
    path = path.substr(0, path.find('?'));
    return path == "/list_datasets" || path == "/list_ids" || path == "/get_prompts" || path == "/get_prompt_by_id" ||
           path == "/submit" || path == "/get_metrics" || path == "/get_metrics_function";
}

awaitable<void> serve_dataset_route(ServerContext& context, Exchange& exchange, std::string client) {
    const std::string path(path_of(exchange));
    Plan plan = answer(context, exchange, path);
    if (!std::holds_alternative<Streaming>(plan)) co_return co_await carry_out(context, exchange, std::move(plan));
    auto prepared = prepare_submission(context, exchange.request().body());
    if (auto* refusal = std::get_if<Refusal>(&prepared)) co_return co_await carry_out(context, exchange, Plan(std::move(refusal->response)));
    const Submission submission = std::move(std::get<Submission>(prepared));
    auto response = co_await submit(context, exchange, submission, std::move(client));
    if (!response) {
        exchange.close_after();  // the client is gone: the answer is for the connection's sake only
        response = client_gone();
    }
    co_await exchange.reply(std::move(*response));
}

}  // namespace e2beval::server::sandbox_fusion
