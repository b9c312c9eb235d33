// The access check of sandbox traffic (sandbox_access.hpp says what is accepted).
#include "server/sandbox_access.hpp"

#include <chrono>
#include <string>

#include <boost/url/parse.hpp>

#include "server/access_token.hpp"
#include "server/connect_protocol.hpp"

namespace e2beval::server {

namespace {

enum class FileUrlSignature { absent, valid, expired, invalid };

// A /files request's query signature (the SDK's download_url/upload_url), checked against `sandbox`'s envd token
// for the request's operation. Expiry is checked after the signature, so only a URL that this sandbox signed
// learns that it expired.
FileUrlSignature check_file_url_signature(const Exchange& exchange, const ServedSandbox& sandbox) {
    const auto& request = exchange.request();
    const auto target = request.target();
    auto url = boost::urls::parse_origin_form(std::string_view(target.data(), target.size()));
    if (!url || url->path() != "/files") return FileUrlSignature::absent;
    const auto value = [&](std::string_view name) -> std::optional<std::string> {
        const auto found = url->params().find(name);
        if (found == url->params().end()) return std::nullopt;
        return std::string((*found).value);
    };
    const auto signature = value("signature");
    if (!signature) return FileUrlSignature::absent;
    std::optional<std::int64_t> expiration;
    if (const auto text = value("signature_expiration")) {
        // Negative too: the SDK signs whatever time it computed (an expiry in the past gives "expired").
        const std::string_view digits = !text->empty() && text->front() == '-' ? std::string_view(*text).substr(1) : *text;
        if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
            return FileUrlSignature::invalid;
        expiration = std::stoll(*text);
    }
    const std::string_view operation = request.method() == http::verb::get ? "read" : "write";
    const auto expected = file_url_signature(value("path").value_or(""), operation, value("username").value_or(""),
                                             sandbox.envd_access_token, expiration);
    if (!same_secret(expected, *signature)) return FileUrlSignature::invalid;
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    return expiration && *expiration < now ? FileUrlSignature::expired : FileUrlSignature::valid;
}

}  // namespace

std::optional<Response> refuse_without_access(const Exchange& exchange, const ServedSandbox& sandbox, bool code_interpreter) {
    const auto presented = exchange.header("X-Access-Token");
    if (same_secret(sandbox.envd_access_token, presented)) return std::nullopt;
    if (code_interpreter && same_secret(sandbox.traffic_access_token, exchange.header("E2B-Traffic-Access-Token")))
        return std::nullopt;
    if (!code_interpreter) {
        switch (check_file_url_signature(exchange, sandbox)) {
            case FileUrlSignature::valid: return std::nullopt;
            case FileUrlSignature::expired: return error_response(http::status::unauthorized, "signature is already expired");
            default: break;
        }
    }

    const std::string message = std::string(presented.empty() ? "missing" : "invalid") +
                                " access token for sandbox " + sandbox.session->id() +
                                ": send the envdAccessToken that creating or connecting to the sandbox returned, in X-Access-Token";
    const auto target = exchange.request().target();
    const std::string_view path(target.data(), target.size());
    if (!code_interpreter && (path.starts_with("/process.") || path.starts_with("/filesystem.")))
        return connect_error("unauthenticated", message);
    return error_response(http::status::unauthorized, message);
}

std::shared_ptr<ServedSandbox> sandbox_of_signed_file_url(const Exchange& exchange, SandboxStore& sandboxes) {
    const auto target = exchange.request().target();
    const std::string_view text(target.data(), target.size());
    if (!text.starts_with("/files?") || text.find("signature=") == std::string_view::npos) return nullptr;
    for (auto& sandbox : sandboxes.live()) {
        const auto checked = check_file_url_signature(exchange, *sandbox);
        if (checked == FileUrlSignature::valid || checked == FileUrlSignature::expired) return sandbox;
    }
    return nullptr;
}

}  // namespace e2beval::server
