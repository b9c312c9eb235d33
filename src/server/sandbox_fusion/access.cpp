// The SandboxFusion routes' access rule: loopback only, or a bearer token from everyone.
#include "server/sandbox_fusion/access.hpp"

#include <boost/asio/ip/address.hpp>

#include "server/access_token.hpp"
#include "server/sandbox_fusion/validation.hpp"

namespace e2beval::server::sandbox_fusion {

namespace asio = boost::asio;

namespace {

asio::ip::address peer_address(Exchange& exchange) {
    boost::system::error_code ec;
    auto address = exchange.stream().socket().remote_endpoint(ec).address();
    if (address.is_v6() && address.to_v6().is_v4_mapped())
        return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
    return address;
}

}  // namespace

std::string client_address(Exchange& exchange) { return peer_address(exchange).to_string(); }

std::optional<Response> refuse_without_access(Exchange& exchange, const std::string& token) {
    if (token.empty()) {
        if (peer_address(exchange).is_loopback()) return std::nullopt;
        return detail_response(http::status::forbidden,
                               "SandboxFusion's API answers loopback clients only, since its clients send no credentials: "
                               "start e2beval serve with --sandbox-fusion-token-file FILE and send "
                               "'Authorization: Bearer <token>' (a reverse proxy can add it) to serve it to other addresses");
    }
    constexpr std::string_view kScheme = "Bearer ";
    const auto header = exchange.header("Authorization");
    if (header.size() > kScheme.size() && header.substr(0, kScheme.size()) == kScheme &&
        same_secret(token, header.substr(kScheme.size())))
        return std::nullopt;
    auto refusal = detail_response(http::status::unauthorized,
                                   header.empty() ? "this server's SandboxFusion API needs 'Authorization: Bearer <token>' "
                                                    "(the token of e2beval serve --sandbox-fusion-token-file)"
                                                  : "the bearer token is not this server's SandboxFusion token");
    refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
    return refusal;
}

}  // namespace e2beval::server::sandbox_fusion
