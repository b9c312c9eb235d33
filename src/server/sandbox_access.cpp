// The access check of sandbox traffic (sandbox_access.hpp says what is accepted).
#include "server/sandbox_access.hpp"

#include <chrono>
#include <string>

#include <boost/url/parse.hpp>

#include "server/access_token.hpp"
#include "server/connect_protocol.hpp"

namespace e2beval::server {

namespace {

// A /files request whose query carries a valid, unexpired signature of the envd token for its operation.
bool signed_file_url(const Exchange& exchange, const ServedSandbox& sandbox) {
    const auto& request = exchange.request();
    const auto target = request.target();
    auto url = boost::urls::parse_origin_form(std::string_view(target.data(), target.size()));
    if (!url || url->path() != "/files") return false;
    const auto value = [&](std::string_view name) -> std::optional<std::string> {
        const auto found = url->params().find(name);
        if (found == url->params().end()) return std::nullopt;
        return std::string((*found).value);
    };
    const auto signature = value("signature");
    if (!signature) return false;
    std::optional<std::int64_t> expiration;
    if (const auto text = value("signature_expiration")) {
        if (text->empty() || text->size() > 18 || text->find_first_not_of("0123456789") != std::string::npos) return false;
        expiration = std::stoll(*text);
        const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        if (*expiration < now) return false;
    }
    const std::string_view operation = request.method() == http::verb::get ? "read" : "write";
    const auto expected = file_url_signature(value("path").value_or(""), operation, value("username").value_or(""),
                                             sandbox.envd_access_token, expiration);
    return same_secret(expected, *signature);
}

}  // namespace

std::optional<Response> refuse_without_access(const Exchange& exchange, const ServedSandbox& sandbox, bool code_interpreter) {
    const auto presented = exchange.header("X-Access-Token");
    if (same_secret(sandbox.envd_access_token, presented)) return std::nullopt;
    if (code_interpreter && same_secret(sandbox.traffic_access_token, exchange.header("E2B-Traffic-Access-Token")))
        return std::nullopt;
    if (!code_interpreter && signed_file_url(exchange, sandbox)) return std::nullopt;

    const std::string message = std::string(presented.empty() ? "missing" : "invalid") +
                                " access token for sandbox " + sandbox.session->id() +
                                ": send the envdAccessToken that creating or connecting to the sandbox returned, in X-Access-Token";
    const auto target = exchange.request().target();
    const std::string_view path(target.data(), target.size());
    if (!code_interpreter && (path.starts_with("/process.") || path.starts_with("/filesystem.")))
        return connect_error("unauthenticated", message);
    return error_response(http::status::unauthorized, message);
}

}  // namespace e2beval::server
