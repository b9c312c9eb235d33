// The control plane's routes. Statuses and bodies are what the official SDKs parse (e2b 2.x): 201 with a
// Sandbox on create, 204 on kill and set timeout, 404 {"code": 404} for an unknown sandbox, 401 for a wrong
// key, 429 when the server's limits are reached.
#include "server/control_plane.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"
#include "server/access_token.hpp"
#include "server/plan.hpp"
#include "server/request_json.hpp"
#include "server/sandbox_metrics.hpp"

namespace e2beval::server {

namespace json = boost::json;
namespace urls = boost::urls;

namespace {

// The local template a create's templateID names (docs/templates.md): E2B's code-interpreter names
// ("code-interpreter-v1", the SDKs' default) are the built-in template with E2B's packages, built before the
// server listened — or the bare default environment under `--bare-code-interpreter`; "base" and "e2beval" are
// the default environment; any other name must be a template built with `e2beval template build`, and an
// unknown one is refused with E2B's 404 rather than silently served by something it did not ask for.
std::string local_template(const ServerOptions& options, const std::string& template_id) {
    if (!builtin_template_name(template_id).empty()) return options.bare_code_interpreter ? "" : kCodeInterpreterTemplate;
    return template_id;
}
constexpr const char* kClientId = "e2beval";
constexpr std::size_t kDefaultPageSize = 100;
constexpr std::size_t kMaxPageSize = 1000;

Response not_found(std::string_view id) {
    return error_response(http::status::not_found, "sandbox \"" + std::string(id) + "\" not found: it was killed, reached its timeout, or never existed on this server");
}

json::object metadata_json(const std::map<std::string, std::string>& metadata) {
    json::object object;
    for (const auto& [key, value] : metadata) object[key] = value;
    return object;
}

// The Sandbox object of create and connect, with the tokens the SDKs send back on the sandbox's traffic
// (sandbox_access.hpp): only a holder of the API key learns them.
json::object sandbox_json(const ServedSandbox& sandbox) {
    return {{"templateID", sandbox.template_id},
            {"sandboxID", sandbox.session->id()},
            {"clientID", kClientId},
            {"envdVersion", kReportedEnvdVersion},
            {"envdAccessToken", sandbox.envd_access_token},
            {"trafficAccessToken", sandbox.traffic_access_token}};
}

// SandboxDetail (get) and ListedSandbox (list): the same fields.
json::object detail_json(const ServedSandbox& sandbox) {
    const auto info = sandbox.session->info();
    return {{"templateID", sandbox.template_id},
            {"sandboxID", info.id},
            {"clientID", kClientId},
            {"startedAt", rfc3339(info.started_at)},
            {"endAt", rfc3339(info.end_at)},
            {"envdVersion", kReportedEnvdVersion},
            {"cpuCount", sandbox.cpu_count},
            {"memoryMB", sandbox.memory_mb},
            {"diskSizeMB", 0},
            {"state", "running"},
            {"metadata", metadata_json(info.metadata)},
            {"allowInternetAccess", sandbox.allow_internet_access}};
}

std::optional<std::string_view> query_param(const urls::url_view& url, std::string_view name, std::string& storage) {
    const auto found = url.params().find(name);
    if (found == url.params().end()) return std::nullopt;
    storage = (*found).value;
    return std::string_view(storage);
}

// `metadata=k1%3Dv1%26k2%3Dv2`: the SDKs form-encode the pairs into one parameter.
std::map<std::string, std::string> metadata_filter(std::string_view text) {
    std::map<std::string, std::string> filter;
    const auto decode = [](std::string_view part) {
        std::string plain;
        for (std::size_t i = 0; i < part.size(); ++i) {
            const auto hex = [](char digit) -> int {
                if (digit >= '0' && digit <= '9') return digit - '0';
                if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
                if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
                return -1;
            };
            if (part[i] == '%' && i + 2 < part.size() && hex(part[i + 1]) >= 0 && hex(part[i + 2]) >= 0) {
                plain += static_cast<char>(hex(part[i + 1]) * 16 + hex(part[i + 2]));
                i += 2;
            } else {
                plain += part[i] == '+' ? ' ' : part[i];
            }
        }
        return plain;
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('&', start), text.size());
        const auto pair = text.substr(start, end - start);
        if (!pair.empty()) {
            const auto equals = pair.find('=');
            const auto key = pair.substr(0, equals);
            const auto value = equals == std::string_view::npos ? std::string_view{} : pair.substr(equals + 1);
            filter[decode(key)] = decode(value);
        }
        start = end + 1;
    }
    return filter;
}

bool matches(const std::map<std::string, std::string>& metadata, const std::map<std::string, std::string>& filter) {
    return std::all_of(filter.begin(), filter.end(), [&](const auto& wanted) {
        const auto found = metadata.find(wanted.first);
        return found != metadata.end() && found->second == wanted.second;
    });
}

std::optional<std::chrono::seconds> timeout_field(const json::object& body, std::string& problem,
                                                  const ServerOptions& options, bool required) {
    const auto* field = body.if_contains("timeout");
    if (!field || field->is_null()) {
        if (required) problem = "\"timeout\" (seconds) is required";
        return std::nullopt;
    }
    if (!field->is_int64() && !field->is_uint64()) {
        problem = "\"timeout\" must be a whole number of seconds";
        return std::nullopt;
    }
    const auto seconds = field->is_int64() ? field->as_int64() : static_cast<std::int64_t>(std::min<std::uint64_t>(field->as_uint64(), 1ull << 40));
    if (seconds < 1 || seconds > options.max_timeout.count()) {
        problem = "\"timeout\" must be between 1 and " + std::to_string(options.max_timeout.count()) + " seconds";
        return std::nullopt;
    }
    return std::chrono::seconds(seconds);
}

Plan create_sandbox(ServerContext& context, Exchange& exchange) {
    auto parsed = parse_body_object(exchange.request().body());
    if (auto* problem = std::get_if<std::string>(&parsed)) {
        return error_response(http::status::bad_request, *problem);
    }
    const auto& body = std::get<json::object>(parsed);
    const auto* template_field = body.if_contains("templateID");
    if (!template_field || !template_field->is_string()) {
        return error_response(http::status::bad_request, "\"templateID\" (a string) is required");
    }
    const std::string template_id(template_field->as_string());
    std::string problem;
    auto timeout = timeout_field(body, problem, context.options, false);
    auto metadata = string_map_field(body, "metadata", "\"metadata\"");
    auto envs = string_map_field(body, "envVars", "\"envVars\"");
    if (auto* message = std::get_if<std::string>(&metadata)) problem = *message;
    if (auto* message = std::get_if<std::string>(&envs)) problem = *message;
    bool internet = false;
    if (const auto* field = body.if_contains("allow_internet_access"); field && !field->is_null()) {
        if (!field->is_bool()) problem = "\"allow_internet_access\" must be true or false";
        else internet = field->as_bool();
    }
    if (!problem.empty()) {
        return error_response(http::status::bad_request, problem);
    }
    // Every sandbox gets its tokens, whatever `secure` says: with E2B_SANDBOX_URL the SDKs send them anyway.
    std::string envd_access_token, traffic_access_token;
    try {
        envd_access_token = generate_access_token();
        traffic_access_token = generate_access_token();
    } catch (const std::exception& error) {
        return error_response(http::status::internal_server_error, error.what());
    }
    if (auto refusal = context.admission.admit(context.sandboxes.live_count())) {
        auto response = error_response(http::status::too_many_requests, refusal->message);
        // Should-Retry tells the SDKs (which otherwise retry 429s) whether waiting can help.
        if (refusal->retry_after_seconds) {
            response.headers.emplace_back("Retry-After", std::to_string(*refusal->retry_after_seconds));
            response.headers.emplace_back("Should-Retry", "true");
        } else {
            response.headers.emplace_back("Should-Retry", "false");
        }
        return response;
    }
    SessionOptions options = context.options.session_defaults;
    options.timeout = timeout.value_or(context.options.default_timeout);
    options.metadata = std::get<std::map<std::string, std::string>>(std::move(metadata));
    for (auto& [name, value] : std::get<std::map<std::string, std::string>>(std::move(envs))) options.env[name] = value;
    options.isolation.network = internet;
    options.template_name = local_template(context.options, template_id);

    auto served = std::make_shared<ServedSandbox>();
    served->template_id = template_id;
    served->allow_internet_access = internet;
    served->memory_mb = options.limits.memory_bytes >> 20;
    served->cpu_count = options.limits.cpus > 0 ? static_cast<unsigned>(std::ceil(options.limits.cpus))
                                                : std::max(1u, std::thread::hardware_concurrency());
    served->created_at = std::chrono::system_clock::now();
    served->sequence = context.next_sequence++;
    served->envd_access_token = std::move(envd_access_token);
    served->traffic_access_token = std::move(traffic_access_token);
    return std::function<Response()>([&context, served, options]() -> Response {
        // The creation slot goes back whatever happens; by then the sandbox counts among the live ones.
        struct Release {
            Admission& admission;
            ~Release() { admission.release(); }
        } release{context.admission};
        try {
            served->session = context.backend->create_session(options);
            context.sandboxes.add(served);
            if (context.stopping) context.sandboxes.kill(served->session->id());
            return json_response(http::status::created, sandbox_json(*served));
        } catch (const unknown_template_error& error) {
            return error_response(http::status::not_found,
                                  "template '" + served->template_id + "' not found: " + error.what() +
                                      " (E2B's code-interpreter environment is named 'code-interpreter-v1', the bare default "
                                      "environment 'base')");
        } catch (const input_error& error) {
            return error_response(http::status::bad_request, error.what());
        } catch (const std::exception& error) {
            return error_response(http::status::internal_server_error, std::string("the sandbox could not start: ") + error.what());
        }
    });
}

Response list_sandboxes(ServerContext& context, const urls::url_view& url,
                                            bool paginated) {
    std::string storage;
    std::map<std::string, std::string> filter;
    if (auto metadata = query_param(url, "metadata", storage)) filter = metadata_filter(*metadata);
    bool want_running = true;
    if (auto states = query_param(url, "state", storage)) {
        want_running = false;
        std::string_view list = *states;
        for (std::size_t start = 0; start <= list.size();) {
            const auto end = std::min(list.find(',', start), list.size());
            const auto state = list.substr(start, end - start);
            if (state == "running") want_running = true;
            else if (state != "paused" && !state.empty()) {
                return error_response(http::status::bad_request, "\"state\" takes running and paused, got '" + std::string(state) + "'");
            }
            start = end + 1;
        }
    }
    std::optional<std::string> template_filter;
    if (auto name = query_param(url, "template", storage)) template_filter = std::string(*name);
    bool descending = false;
    if (auto order = query_param(url, "order", storage)) descending = *order == "desc";
    std::size_t limit = paginated ? kDefaultPageSize : kMaxPageSize * 1000;
    if (auto text = query_param(url, "limit", storage); text && paginated) {
        std::size_t parsed = 0;
        const std::string digits(*text);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6 ||
            (parsed = std::stoul(digits)) < 1 || parsed > kMaxPageSize) {
            return error_response(http::status::bad_request, "\"limit\" must be a whole number from 1 to " + std::to_string(kMaxPageSize));
        }
        limit = parsed;
    }
    // The next token is the creation sequence number of the first sandbox of the next page.
    std::optional<std::uint64_t> from;
    if (auto token = query_param(url, "nextToken", storage); token && paginated && !token->empty()) {
        const std::string digits(*token);
        if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 19) {
            return error_response(http::status::bad_request, "\"nextToken\" is not a token this server gave");
        }
        from = std::stoull(digits);
    }
    auto sandboxes = context.sandboxes.live();
    if (descending) std::reverse(sandboxes.begin(), sandboxes.end());
    json::array page;
    std::optional<std::uint64_t> next;
    for (const auto& sandbox : sandboxes) {
        if (!want_running) break;
        if (from && (descending ? sandbox->sequence > *from : sandbox->sequence < *from)) continue;
        if (template_filter && sandbox->template_id != *template_filter) continue;
        if (!filter.empty() && !matches(sandbox->session->info().metadata, filter)) continue;
        if (page.size() == limit) {
            next = sandbox->sequence;
            break;
        }
        page.push_back(detail_json(*sandbox));
    }
    auto response = json_response(http::status::ok, page);
    if (next) response.headers.emplace_back("X-Next-Token", std::to_string(*next));
    return response;
}

}  // namespace

Plan plan_control_plane(ServerContext& context, Exchange& exchange) {
    if (!context.keys.accepts(exchange.header("X-API-KEY"))) {
        return (error_response(http::status::unauthorized,
                                               exchange.header("X-API-KEY").empty()
                                                   ? "missing API key: send the key `e2beval serve` printed in X-API-KEY (E2B_API_KEY)"
                                                   : "invalid API key: use the key `e2beval serve` printed (E2B_API_KEY)"));
    }
    const auto target = exchange.request().target();
    auto parsed = urls::parse_origin_form(std::string_view(target.data(), target.size()));
    if (!parsed) {
        return error_response(http::status::bad_request, "the request target is not a valid path");
    }
    const urls::url_view url = *parsed;
    std::vector<std::string> segments;
    for (const auto& segment : url.segments()) segments.push_back(segment);
    if (!segments.empty() && segments.front() == "v2") segments.erase(segments.begin());  // same routes, both versions
    const auto method = exchange.request().method();

    if (segments.size() == 1 && segments[0] == "sandboxes") {
        if (method == http::verb::post) return create_sandbox(context, exchange);
        if (method == http::verb::get)
            return list_sandboxes(context, url, url.path().starts_with("/v2/"));
    }
    if (segments.size() >= 2 && segments[0] == "sandboxes") {
        const std::string& id = segments[1];
        if (segments.size() == 2 && method == http::verb::get) {
            auto sandbox = context.sandboxes.find(id);
            return sandbox ? json_response(http::status::ok, detail_json(*sandbox)) : not_found(id);
        }
        if (segments.size() == 2 && method == http::verb::delete_) {
            return std::function<Response()>([&context, id]() -> Response {
                if (!context.sandboxes.kill(id)) return not_found(id);
                Response response;
                response.status = http::status::no_content;
                response.content_type.clear();
                return response;
            });
        }
        if (segments.size() == 3 && method == http::verb::post && (segments[2] == "timeout" || segments[2] == "connect")) {
            auto parsed_body = parse_body_object(exchange.request().body());
            if (auto* problem = std::get_if<std::string>(&parsed_body))
                return error_response(http::status::bad_request, *problem);
            std::string problem;
            const bool connect = segments[2] == "connect";
            const auto timeout = timeout_field(std::get<json::object>(parsed_body), problem, context.options, !connect);
            if (!problem.empty()) return error_response(http::status::bad_request, problem);
            auto sandbox = context.sandboxes.find(id);
            if (!sandbox) return not_found(id);
            bool ended = false;
            try {
                if (timeout) sandbox->session->set_timeout(*timeout);
            } catch (const error&) {
                ended = true;  // it ended between the lookup and now
            }
            if (ended) return not_found(id);
            if (connect) return json_response(http::status::ok, sandbox_json(*sandbox));
            Response response;
            response.status = http::status::no_content;
            response.content_type.clear();
            return response;
        }
        if (segments.size() == 3 && segments[2] == "metrics" && method == http::verb::get) {
            auto sandbox = context.sandboxes.find(id);
            if (!sandbox) return not_found(id);
            return std::function<Response()>([sandbox] { return sandbox_metrics(*sandbox); });
        }
        if (segments.size() == 3 && (segments[2] == "pause" || segments[2] == "resume" ||
                                     segments[2] == "logs" || segments[2] == "snapshots" || segments[2] == "fork")) {
            return error_response(
                http::status::not_implemented, "e2beval serve does not offer sandbox " + segments[2] + " (docs/serve.md lists what it serves)");
        }
    }
    return (error_response(http::status::not_found, "no such route: " + std::string(http::to_string(method)) + " " +
                                                                        std::string(url.path()) + " (docs/serve.md lists the routes served)"));
}

boost::asio::awaitable<void> serve_control_plane(ServerContext& context, Exchange& exchange) {
    co_await carry_out(context, exchange, plan_control_plane(context, exchange));
}

}  // namespace e2beval::server
