// E2B's calls, as the official SDKs make them (src/e2b/e2b_api.hpp): paths, headers and bodies of
// e2b 2.63 (control plane: /v2/sandboxes), envd's Connect JSON (process.Process/Start with its envelopes) and
// the code interpreter's /execute (NDJSON, one object a line).
#include "e2b/e2b_api.hpp"

#include <array>
#include <cstring>

#include <boost/json.hpp>

#include "core/base64.hpp"
#include "core/json_fields.hpp"
#include "e2b/connect_envelope.hpp"

namespace e2beval::e2b {

namespace json = boost::json;
namespace http = boost::beast::http;
namespace asio = boost::asio;

namespace {

constexpr int kEnvdPort = 49983;
constexpr int kInterpreterPort = 49999;

// E2B's own domains route sandbox traffic through sandbox.<domain> with headers (e2b/sandbox_domains.py).
bool routes_through_sandbox_host(const std::string& domain) {
    static const std::array<const char*, 7> kDomains = {"e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev", "e2b-tango.dev",
                                                        "e2b-juliett.dev", "foxtrot-2.e2b.dev"};
    for (const auto* known : kDomains)
        if (domain == known) return true;
    return false;
}

std::string percent_encoded(std::string_view text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') out += static_cast<char>(c);
        else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string path_segment(std::string_view text) {
    std::string out = percent_encoded(text);
    std::string escaped;
    for (const char c : out) escaped += c == '/' ? std::string("%2F") : std::string(1, c);
    return escaped;
}

json::object parse_object(const HttpCall& call, const std::string& body) {
    boost::system::error_code ec;
    auto value = json::parse(body, ec);
    if (ec || !value.is_object()) throw CallError(CallError::Stage::protocol, call.name + ": the answer is not a JSON object");
    return std::move(value.as_object());
}

json::object string_map(const std::map<std::string, std::string>& map) {
    json::object object;
    for (const auto& [key, value] : map) object[key] = value;
    return object;
}

RemoteSandbox remote_sandbox(const HttpCall& call, const json::object& body, const std::string& domain) {
    RemoteSandbox sandbox;
    sandbox.id = string_field(body, "sandboxID");
    if (sandbox.id.empty()) throw CallError(CallError::Stage::protocol, call.name + ": the answer has no sandboxID");
    sandbox.envd_access_token = string_field(body, "envdAccessToken");
    sandbox.traffic_access_token = string_field(body, "trafficAccessToken");
    sandbox.domain = string_field(body, "domain");
    if (sandbox.domain.empty()) sandbox.domain = domain;
    sandbox.envd_version = string_field(body, "envdVersion");
    return sandbox;
}

}  // namespace

E2bApi::E2bApi(HttpClient& client, const E2bSettings& settings)
    : client_(client), settings_(settings), api_(Origin::parse(settings.api_url.empty() ? "https://api." + settings.domain : settings.api_url)) {}

HttpCall E2bApi::control(std::string name, http::verb method, std::string target, bool idempotent) const {
    HttpCall call;
    call.name = std::move(name);
    call.method = method;
    call.origin = api_;
    call.target = std::move(target);
    call.idempotent = idempotent;
    call.timeout = settings_.request_timeout;
    call.headers.emplace_back("X-API-KEY", settings_.api_key);
    return call;
}

HttpCall E2bApi::sandbox_call(const RemoteSandbox& sandbox, int port, std::string name, http::verb method, std::string target,
                              bool idempotent) const {
    HttpCall call;
    call.name = std::move(name);
    call.method = method;
    const auto& domain = sandbox.domain.empty() ? settings_.domain : sandbox.domain;
    if (!settings_.sandbox_url.empty()) call.origin = Origin::parse(settings_.sandbox_url);
    else if (routes_through_sandbox_host(domain)) call.origin = Origin::parse("https://sandbox." + domain);
    else call.origin = Origin::parse("https://" + std::to_string(port) + "-" + sandbox.id + "." + domain);
    call.target = std::move(target);
    call.idempotent = idempotent;
    call.sandbox_traffic = true;
    call.timeout = settings_.request_timeout;
    call.headers.emplace_back("E2b-Sandbox-Id", sandbox.id);
    call.headers.emplace_back("E2b-Sandbox-Port", std::to_string(port));
    if (!sandbox.envd_access_token.empty()) call.headers.emplace_back("X-Access-Token", sandbox.envd_access_token);
    if (!sandbox.traffic_access_token.empty()) call.headers.emplace_back("E2B-Traffic-Access-Token", sandbox.traffic_access_token);
    return call;
}

void E2bApi::fail(const HttpCall& call, const HttpResponse& response) const {
    std::string message;
    std::string code;
    boost::system::error_code ec;
    const auto body = json::parse(response.body, ec);
    if (!ec && body.is_object()) {
        message = string_field(body.as_object(), "message");
        code = string_field(body.as_object(), "code");
    }
    if (message.empty()) message = response.body.substr(0, 300);
    // A server could echo a header back: the key never leaves through an error.
    if (!settings_.api_key.empty())
        for (auto at = message.find(settings_.api_key); at != std::string::npos; at = message.find(settings_.api_key))
            message.replace(at, settings_.api_key.size(), "<api key>");
    std::string what = call.name + " (" + std::string(http::to_string(call.method)) + " " + call.origin.key() +
                       call.origin.path_prefix + call.target.substr(0, call.target.find('?')) + "): HTTP " +
                       std::to_string(response.status);
    if (!message.empty()) what += ": " + message;
    if (response.status == 401 && !call.sandbox_traffic) what += " (the API key was refused: check E2B_API_KEY)";
    if (response.status == 429) what += " (rate limited" + std::string(response.attempts > 1 ? ", after " + std::to_string(response.attempts) + " attempts" : "") + ")";
    else if (response.attempts > 1) what += " (after " + std::to_string(response.attempts) + " attempts)";
    if (response.status == 502 && call.sandbox_traffic) what += " (the sandbox is gone: killed or timed out)";
    throw ApiError(response.status, what, code);
}

// ---- control plane --------------------------------------------------------------------------------

asio::awaitable<RemoteSandbox> E2bApi::create(const CreateSandbox& request) {
    auto call = control("create sandbox", http::verb::post, "/v2/sandboxes", false);
    call.content_type = "application/json";
    json::object body{{"templateID", request.template_id},
                      {"timeout", request.timeout.count()},
                      {"metadata", string_map(request.metadata)},
                      {"envVars", string_map(request.envs)},
                      {"secure", true},
                      {"allow_internet_access", request.allow_internet_access}};
    call.body = json::serialize(body);
    const auto response = co_await client_.request(call);
    if (response.status != 201 && response.status != 200) fail(call, response);
    co_return remote_sandbox(call, parse_object(call, response.body), settings_.domain);
}

asio::awaitable<json::object> E2bApi::get(const std::string& id) {
    auto call = control("get sandbox", http::verb::get, "/sandboxes/" + path_segment(id), true);
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
    co_return parse_object(call, response.body);
}

asio::awaitable<std::vector<json::object>> E2bApi::list(const std::map<std::string, std::string>& metadata) {
    std::vector<json::object> all;
    std::string next_token;
    std::string filter;
    for (const auto& [key, value] : metadata) filter += (filter.empty() ? "" : "&") + percent_encoded(key) + "=" + percent_encoded(value);
    do {
        std::string target = "/v2/sandboxes?state=running&limit=100";
        if (!filter.empty()) target += "&metadata=" + path_segment(filter);
        if (!next_token.empty()) target += "&nextToken=" + path_segment(next_token);
        auto call = control("list sandboxes", http::verb::get, target, true);
        const auto response = co_await client_.request(call);
        if (response.status != 200) fail(call, response);
        boost::system::error_code ec;
        auto value = json::parse(response.body, ec);
        if (ec || !value.is_array()) throw CallError(CallError::Stage::protocol, call.name + ": the answer is not a JSON array");
        for (auto& item : value.as_array())
            if (item.is_object()) all.push_back(std::move(item.as_object()));
        const auto token = response.headers.find("x-next-token");
        next_token = token == response.headers.end() ? std::string() : token->second;
    } while (!next_token.empty());
    co_return all;
}

asio::awaitable<bool> E2bApi::kill(const std::string& id) {
    auto call = control("kill sandbox " + id, http::verb::delete_, "/sandboxes/" + path_segment(id), true);
    const auto response = co_await client_.request(call);
    if (response.status == 404) co_return false;
    if (response.status != 204 && response.status != 200) fail(call, response);
    co_return true;
}

asio::awaitable<void> E2bApi::set_timeout(const std::string& id, std::chrono::seconds timeout) {
    auto call = control("set sandbox timeout", http::verb::post, "/sandboxes/" + path_segment(id) + "/timeout", true);
    call.content_type = "application/json";
    call.body = json::serialize(json::object{{"timeout", timeout.count()}});
    const auto response = co_await client_.request(call);
    if (response.status != 204 && response.status != 200) fail(call, response);
}

asio::awaitable<RemoteSandbox> E2bApi::connect(const std::string& id, std::chrono::seconds timeout) {
    auto call = control("connect to sandbox", http::verb::post, "/v2/sandboxes/" + path_segment(id) + "/connect", true);
    call.content_type = "application/json";
    call.body = json::serialize(json::object{{"timeout", timeout.count()}});
    const auto response = co_await client_.request(call);
    if (response.status != 200 && response.status != 201) fail(call, response);
    co_return remote_sandbox(call, parse_object(call, response.body), settings_.domain);
}

asio::awaitable<std::optional<json::object>> E2bApi::metrics(const std::string& id) {
    auto call = control("sandbox metrics", http::verb::get, "/sandboxes/" + path_segment(id) + "/metrics", true);
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
    boost::system::error_code ec;
    auto value = json::parse(response.body, ec);
    if (ec || !value.is_array()) throw CallError(CallError::Stage::protocol, call.name + ": the answer is not a JSON array");
    if (value.as_array().empty() || !value.as_array().back().is_object()) co_return std::nullopt;
    co_return std::move(value.as_array().back().as_object());
}

// ---- envd -------------------------------------------------------------------------------------------

asio::awaitable<void> E2bApi::health(const RemoteSandbox& sandbox) {
    auto call = sandbox_call(sandbox, kEnvdPort, "sandbox health", http::verb::get, "/health", true);
    const auto response = co_await client_.request(call);
    if (response.status != 204 && response.status != 200) fail(call, response);
}

asio::awaitable<void> E2bApi::run_process(const RemoteSandbox& sandbox, const ProcessSpec& spec, std::chrono::milliseconds timeout,
                                          const std::function<bool(const ProcessEvent&)>& on_event) {
    auto call = sandbox_call(sandbox, kEnvdPort, "start process", http::verb::post, "/process.Process/Start", false);
    call.content_type = "application/connect+json";
    call.headers.emplace_back("Connect-Protocol-Version", "1");
    call.headers.emplace_back("Connect-Content-Encoding", "identity");
    call.headers.emplace_back("Keepalive-Ping-Interval", "50");
    // The SDK's `timeout`: envd ends the process when it passes. A little later on the client's side, so that
    // envd's own end is what the client normally sees.
    if (timeout.count() > 0) {
        call.headers.emplace_back("Connect-Timeout-Ms", std::to_string(timeout.count()));
        call.timeout = timeout + std::chrono::seconds(10);
    } else {
        call.timeout = std::chrono::milliseconds(0);  // none: the process runs until it ends or is signalled
    }
    json::array args;
    for (const auto& argument : spec.args) args.push_back(json::value(argument));
    json::object process{{"cmd", spec.cmd}, {"args", std::move(args)}, {"envs", string_map(spec.envs)}};
    if (!spec.cwd.empty()) process["cwd"] = spec.cwd;
    json::object start_request{{"process", std::move(process)}, {"stdin", spec.stdin}};
    if (!spec.tag.empty()) start_request["tag"] = spec.tag;
    call.body = encode_envelope(0, json::serialize(start_request));

    EnvelopeReader reader;
    bool ended = false;
    bool left_to_caller = false;  // on_event said stop: the process goes on, followed by nobody
    std::string stream_error;
    std::string stream_error_code;
    const auto response = co_await client_.stream(call, std::chrono::seconds(70), [&](std::string_view bytes) {
        reader.feed(bytes);
        while (auto envelope = reader.next()) {
            boost::system::error_code ec;
            auto value = json::parse(envelope->payload, ec);
            if (ec || !value.is_object()) {
                stream_error = "an envelope of the process stream is not JSON";
                return false;
            }
            const auto& message = value.as_object();
            if (envelope->end_stream) {
                if (const auto* error = message.if_contains("error"); error && error->is_object()) {
                    stream_error_code = string_field(error->as_object(), "code");
                    stream_error = stream_error_code + ": " + string_field(error->as_object(), "message");
                }
                continue;  // the body ends here: reading it to its end keeps the connection for the next call
            }
            const auto* event_value = message.if_contains("event");
            if (!event_value || !event_value->is_object()) continue;
            const auto& event = event_value->as_object();
            ProcessEvent decoded;
            if (const auto* start = event.if_contains("start"); start && start->is_object()) {
                decoded.kind = ProcessEvent::Kind::start;
                if (const auto* pid = start->as_object().if_contains("pid"); pid && pid->is_number()) decoded.pid = static_cast<int>(pid->to_number<double>());
            } else if (const auto* data = event.if_contains("data"); data && data->is_object()) {
                const auto& fields = data->as_object();
                const bool is_stderr = fields.contains("stderr");
                decoded.kind = is_stderr ? ProcessEvent::Kind::stderr_data : ProcessEvent::Kind::stdout_data;
                decoded.data = base64_decode(string_field(fields, is_stderr ? "stderr" : "stdout"));
            } else if (const auto* end = event.if_contains("end"); end && end->is_object()) {
                const auto& fields = end->as_object();
                decoded.kind = ProcessEvent::Kind::end;
                if (const auto* code = fields.if_contains("exitCode"); code && code->is_number()) decoded.exit_code = static_cast<int>(code->to_number<double>());
                if (const auto* exited = fields.if_contains("exited"); exited && exited->is_bool()) decoded.exited = exited->as_bool();
                decoded.status = string_field(fields, "status");
                decoded.error = string_field(fields, "error");
                ended = true;
            }
            if (!on_event(decoded)) {
                left_to_caller = true;
                return false;
            }
        }
        return true;
    });
    if (response.status != 200) fail(call, response);
    if (left_to_caller) co_return;
    if (!ended && stream_error_code == "deadline_exceeded")
        throw CallError(CallError::Stage::timeout, call.name + ": envd ended the process at its timeout (" + stream_error + ")");
    if (!stream_error.empty()) throw CallError(CallError::Stage::protocol, call.name + ": envd ended the stream with " + stream_error);
    if (!ended) throw CallError(CallError::Stage::read, call.name + ": the stream ended before the process did (truncated)");
}

asio::awaitable<void> E2bApi::send_signal(const RemoteSandbox& sandbox, int pid, int signal) {
    auto call = sandbox_call(sandbox, kEnvdPort, "signal process", http::verb::post, "/process.Process/SendSignal", true);
    call.content_type = "application/json";
    call.headers.emplace_back("Connect-Protocol-Version", "1");
    call.body = json::serialize(json::object{{"process", json::object{{"pid", pid}}},
                                             {"signal", signal == 9 ? "SIGNAL_SIGKILL" : "SIGNAL_SIGTERM"}});
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
}

asio::awaitable<json::object> E2bApi::envd_call(const RemoteSandbox& sandbox, const std::string& method, json::object message,
                                                bool idempotent) {
    auto call = sandbox_call(sandbox, kEnvdPort, method, http::verb::post, "/" + method, idempotent);
    call.content_type = "application/json";
    call.headers.emplace_back("Connect-Protocol-Version", "1");
    call.body = json::serialize(message);
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
    co_return response.body.empty() ? json::object{} : parse_object(call, response.body);
}

asio::awaitable<json::object> E2bApi::write_file(const RemoteSandbox& sandbox, const std::string& path, const std::string& bytes) {
    auto call = sandbox_call(sandbox, kEnvdPort, "write file", http::verb::post, "/files?path=" + percent_encoded(path), true);
    const std::string boundary = "e2bevalboundary7f3a9c";
    call.content_type = "multipart/form-data; boundary=" + boundary;
    call.body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + path_segment(path) +
                "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + bytes + "\r\n--" + boundary + "--\r\n";
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
    // envd answers a list of what it wrote ([{"name", "type", "path"}]).
    boost::system::error_code ec;
    auto value = json::parse(response.body, ec);
    if (!ec && value.is_array() && !value.as_array().empty() && value.as_array().front().is_object())
        co_return std::move(value.as_array().front().as_object());
    co_return json::object{{"path", path}, {"name", path.substr(path.rfind('/') + 1)}, {"type", "file"}};
}

asio::awaitable<std::string> E2bApi::read_file(const RemoteSandbox& sandbox, const std::string& path) {
    auto call = sandbox_call(sandbox, kEnvdPort, "read file", http::verb::get, "/files?path=" + percent_encoded(path), true);
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
    co_return response.body;
}

// ---- code interpreter -----------------------------------------------------------------------------

asio::awaitable<json::object> E2bApi::create_context(const RemoteSandbox& sandbox, const std::string& language, const std::string& cwd) {
    auto call = sandbox_call(sandbox, kInterpreterPort, "create code context", http::verb::post, "/contexts", false);
    call.content_type = "application/json";
    json::object body;
    if (!language.empty()) body["language"] = language;
    if (!cwd.empty()) body["cwd"] = cwd;
    call.body = json::serialize(body);
    const auto response = co_await client_.request(call);
    if (response.status != 200 && response.status != 201) fail(call, response);
    co_return parse_object(call, response.body);
}

asio::awaitable<std::vector<json::object>> E2bApi::list_contexts(const RemoteSandbox& sandbox) {
    auto call = sandbox_call(sandbox, kInterpreterPort, "list code contexts", http::verb::get, "/contexts", true);
    const auto response = co_await client_.request(call);
    if (response.status != 200) fail(call, response);
    boost::system::error_code ec;
    auto value = json::parse(response.body, ec);
    std::vector<json::object> contexts;
    if (!ec && value.is_array())
        for (auto& item : value.as_array())
            if (item.is_object()) contexts.push_back(std::move(item.as_object()));
    co_return contexts;
}

asio::awaitable<void> E2bApi::restart_context(const RemoteSandbox& sandbox, const std::string& context_id) {
    auto call = sandbox_call(sandbox, kInterpreterPort, "restart code context", http::verb::post, "/contexts/" + path_segment(context_id) + "/restart", false);
    call.content_type = "application/json";
    const auto response = co_await client_.request(call);
    if (response.status != 200 && response.status != 204) fail(call, response);
}

asio::awaitable<void> E2bApi::delete_context(const RemoteSandbox& sandbox, const std::string& context_id) {
    auto call = sandbox_call(sandbox, kInterpreterPort, "delete code context", http::verb::delete_, "/contexts/" + path_segment(context_id), true);
    const auto response = co_await client_.request(call);
    if (response.status != 200 && response.status != 204) fail(call, response);  // 404: no such context, the caller says so
}

asio::awaitable<void> E2bApi::execute(const RemoteSandbox& sandbox, const std::string& code, const std::optional<std::string>& context_id,
                                      const std::optional<std::string>& language, const std::map<std::string, std::string>& envs,
                                      std::chrono::milliseconds timeout, const std::function<void(const json::object&)>& on_event) {
    auto call = sandbox_call(sandbox, kInterpreterPort, "execute code", http::verb::post, "/execute", false);
    call.content_type = "application/json";
    call.timeout = timeout;
    json::object body{{"code", code}};
    if (context_id) body["context_id"] = *context_id;
    if (language) body["language"] = *language;
    if (!envs.empty()) body["env_vars"] = string_map(envs);
    call.body = json::serialize(body);
    std::string pending;
    bool ended = false;
    std::string bad_line;
    const auto response = co_await client_.stream(call, std::chrono::seconds(70), [&](std::string_view bytes) {
        pending.append(bytes);
        for (auto newline = pending.find('\n'); newline != std::string::npos; newline = pending.find('\n')) {
            const auto line = pending.substr(0, newline);
            pending.erase(0, newline + 1);
            if (line.empty()) continue;
            boost::system::error_code ec;
            auto value = json::parse(line, ec);
            if (ec || !value.is_object()) {
                bad_line = line.substr(0, 80);
                return false;
            }
            const auto& event = value.as_object();
            if (string_field(event, "type") == "end_of_execution") ended = true;
            on_event(event);
        }
        return true;
    });
    if (response.status != 200) fail(call, response);
    if (!bad_line.empty()) throw CallError(CallError::Stage::protocol, call.name + ": a line of the /execute stream is not JSON: " + bad_line);
    if (!ended) throw CallError(CallError::Stage::read, call.name + ": the /execute stream ended before end_of_execution (truncated)");
}

}  // namespace e2beval::e2b
