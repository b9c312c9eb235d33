// libFuzzer harness for what `e2beval serve` reads from a client before any sandbox is involved: the bytes of
// a request (request line, headers, body, chunked or not) through the same Beast parser and limits as
// server.cpp, then every parser a route applies to a parsed request's untrusted parts — the target as a URL
// and its query, the body as a JSON object and its string maps, as multipart/form-data (with the boundary
// from Content-Type), as a Connect envelope. Crashes, sanitizer reports and broken invariants are bugs; a
// parse error is an answer (400), not a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/url/parse.hpp>

#include "server/connect_protocol.hpp"
#include "server/multipart.hpp"
#include "server/request_json.hpp"

namespace http = boost::beast::http;
namespace server = e2beval::server;

namespace {

// The limits server.cpp sets (64 KiB of headers); the body limit is smaller here so runs stay fast.
constexpr std::size_t kHeaderLimitBytes = 64 * 1024;
constexpr std::size_t kBodyLimitBytes = 1 << 20;

void parse_parts(const server::Request& request) {
    // The target: control_plane.cpp and envd_files.cpp read it with Boost.URL, then its query parameters.
    if (auto url = boost::urls::parse_origin_form(request.target()); url) {
        for (const auto& param : url->params()) {
            if (param.key.size() > request.target().size()) __builtin_trap();
        }
    }
    const std::string_view body = request.body();
    if (auto object = server::parse_body_object(body); auto* parsed = std::get_if<boost::json::object>(&object)) {
        for (const char* key : {"metadata", "envVars", "env_vars"}) (void)server::string_map_field(*parsed, key, key);
    }
    const auto content_type = request[http::field::content_type];
    if (auto boundary = server::multipart_boundary(content_type)) {
        if (auto parts = server::parse_multipart(body, *boundary); auto* found = std::get_if<std::vector<server::FormPart>>(&parts)) {
            std::size_t total = 0;
            for (const auto& part : *found) total += part.data.size();
            if (total > body.size()) __builtin_trap();  // parts are slices of the body
        }
    }
    (void)server::connect_request_message(request);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // The bytes arrive as a client sends them; the first byte picks how they are split across reads, so one
    // corpus exercises the parser's resumption at every point.
    if (size == 0) return 0;
    const std::size_t step = 1 + data[0] % 64;
    const std::string_view wire(reinterpret_cast<const char*>(data + 1), size - 1);
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimitBytes);
    parser.body_limit(kBodyLimitBytes);
    parser.eager(true);
    std::string pending;
    boost::beast::error_code ec;
    for (std::size_t at = 0; at < wire.size() && !parser.is_done();) {
        const auto take = std::min(step, wire.size() - at);
        pending.append(wire.substr(at, take));
        at += take;
        const auto used = parser.put(boost::asio::buffer(pending), ec);
        if (ec == http::error::need_more) {
            ec = {};
            pending.erase(0, used);
            continue;
        }
        if (ec) return 0;  // malformed: the server answers 400, 413 or 431
        pending.erase(0, used);
    }
    if (!parser.is_done()) {
        // The end of the stream, as Beast's read tells the parser (only once it has seen some bytes: before
        // that, read reports end_of_stream without asking the parser).
        if (!parser.got_some()) return 0;
        parser.put_eof(ec);
        if (ec || !parser.is_done()) return 0;
    }
    parse_parts(parser.get());
    return 0;
}
