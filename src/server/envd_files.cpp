// envd's /files: GET downloads a file's bytes, POST uploads (multipart/form-data, one part per file, or
// application/octet-stream with `path`, optionally gzip-encoded). Paths are resolved inside the sandbox by
// the session's agent (files_read / files_write): `..` and symlinks never leave the sandbox's filesystem.
#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <zlib.h>

#include "core/base64.hpp"
#include "server/envd.hpp"
#include "server/plan.hpp"
#include "server/multipart.hpp"
#include "server/session_failures.hpp"
#include "server/streaming_call.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

std::optional<std::string> query_value(const Request& request, std::string_view name) {
    const auto target = request.target();
    auto url = boost::urls::parse_origin_form(std::string_view(target.data(), target.size()));
    if (!url) return std::nullopt;
    const auto found = url->params().find(name);
    if (found == url->params().end()) return std::nullopt;
    return std::string((*found).value);
}

// A gzip body, inflated up to `limit` bytes; nullopt when it is not gzip or inflates past the limit.
std::optional<std::string> gunzip(std::string_view compressed, std::size_t limit) {
    z_stream stream{};
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return std::nullopt;
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    stream.avail_in = static_cast<uInt>(compressed.size());
    std::string out;
    char buffer[64 * 1024];
    int status = Z_OK;
    while (status == Z_OK) {
        stream.next_out = reinterpret_cast<Bytef*>(buffer);
        stream.avail_out = sizeof buffer;
        status = inflate(&stream, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END) break;
        out.append(buffer, sizeof buffer - stream.avail_out);
        if (out.size() > limit) {
            status = Z_MEM_ERROR;
            break;
        }
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END) return std::nullopt;
    return out;
}

// One file request through the session; the reply, or the answer to send instead.

json::object write_request(const std::string& path, const std::string& data) {
    auto request = session_request(session_op::files_write, "path", path);
    request["data"] = base64_encode(data);
    return request;
}

json::object write_info(const json::object& reply, const std::string& path) {
    json::object info{{"path", path}, {"name", path.substr(path.rfind('/') + 1)}, {"type", "file"}};
    if (const auto* entry = reply.if_contains("entry"); entry && entry->is_object()) {
        const auto& fields = entry->as_object();
        for (const char* key : {"path", "name"})
            if (const auto* value = fields.if_contains(key); value && value->is_string()) info[key] = *value;
    }
    return info;
}

}  // namespace

Plan plan_files(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox) {
    const auto& request = exchange.request();
    const auto path = query_value(request, "path");
    if (request.method() == http::verb::get) {
        if (!path || path->empty()) return error_response(http::status::bad_request, "the \"path\" query parameter is required");
        return std::function<Response()>([sandbox, request = session_request(session_op::files_read, "path", *path)]() mutable -> Response {
            auto answer = unary_call(sandbox, std::move(request));
            if (auto* failure = std::get_if<Response>(&answer)) return std::move(*failure);
            const auto* data = std::get<json::object>(answer).if_contains("data");
            Response response;
            response.content_type = "application/octet-stream";
            response.body = base64_decode(data && data->is_string() ? std::string_view(data->as_string()) : std::string_view());
            return response;
        });
    }

    // Upload: the files as (path, bytes).
    std::vector<std::pair<std::string, std::string>> files;
    const auto content_type = request[http::field::content_type];
    std::string_view body = request.body();
    std::string inflated;
    if (const auto encoding = request[http::field::content_encoding]; !encoding.empty() && encoding != "identity") {
        if (encoding != "gzip") return error_response(http::status::bad_request, "Content-Encoding " + std::string(encoding) + " is not accepted (gzip is)");
        auto plain = gunzip(body, context.options.max_body_bytes);
        if (!plain) return error_response(http::status::bad_request, "the gzip body is malformed or inflates past the server's body limit");
        inflated = std::move(*plain);
        body = inflated;
    }
    if (auto boundary = multipart_boundary(std::string_view(content_type.data(), content_type.size()))) {
        auto parts = parse_multipart(body, *boundary);
        if (auto* problem = std::get_if<std::string>(&parts)) return error_response(http::status::bad_request, *problem);
        auto& list = std::get<std::vector<FormPart>>(parts);
        for (auto& part : list) {
            if (part.name != "file") continue;
            // One file: `path` names it; several: each part's file name is its path (what the SDKs send).
            std::string target = path && list.size() == 1 ? *path : part.filename;
            if (target.empty()) return error_response(http::status::bad_request, "a file part has no path: give ?path= or a filename");
            files.emplace_back(std::move(target), std::move(part.data));
        }
        if (files.empty()) return error_response(http::status::bad_request, "the multipart body has no part named \"file\"");
    } else {
        if (!path || path->empty()) return error_response(http::status::bad_request, "the \"path\" query parameter is required");
        files.emplace_back(*path, std::string(body));
    }
    return std::function<Response()>([sandbox, files = std::move(files)]() mutable -> Response {
        json::array written;
        for (auto& [target, data] : files) {
            auto answer = unary_call(sandbox, write_request(target, data));
            if (auto* failure = std::get_if<Response>(&answer)) return std::move(*failure);
            written.push_back(write_info(std::get<json::object>(answer), target));
        }
        return json_response(http::status::ok, written);
    });
}

}  // namespace e2beval::server
