// A strict multipart/form-data reader: CRLF line ends, the boundary as the content type gives it.
#include "server/multipart.hpp"

#include <algorithm>
#include <cctype>

namespace e2beval::server {

namespace {

std::string lower(std::string_view text) {
    std::string lowered(text);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lowered;
}

// A parameter of a header value (`name="file"`, `filename="a.txt"`), unquoted.
std::optional<std::string> header_parameter(std::string_view value, std::string_view parameter) {
    std::size_t at = 0;
    while ((at = value.find(';', at)) != std::string_view::npos) {
        ++at;
        while (at < value.size() && value[at] == ' ') ++at;
        const auto equals = value.find('=', at);
        if (equals == std::string_view::npos) return std::nullopt;
        const auto key = lower(value.substr(at, equals - at));
        std::size_t start = equals + 1;
        std::string text;
        if (start < value.size() && value[start] == '"') {
            for (++start; start < value.size() && value[start] != '"'; ++start) {
                if (value[start] == '\\' && start + 1 < value.size()) ++start;
                text += value[start];
            }
        } else {
            const auto end = value.find(';', start);
            text = std::string(value.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        }
        if (key == parameter) return text;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> multipart_boundary(std::string_view content_type) {
    if (!lower(content_type.substr(0, content_type.find(';'))).starts_with("multipart/form-data")) return std::nullopt;
    auto boundary = header_parameter(content_type, "boundary");
    if (!boundary || boundary->empty() || boundary->size() > 200) return std::nullopt;
    return boundary;
}

std::variant<std::vector<FormPart>, std::string> parse_multipart(std::string_view body, std::string_view boundary) {
    const std::string delimiter = "--" + std::string(boundary);
    std::vector<FormPart> parts;
    auto at = body.find(delimiter);
    if (at == std::string_view::npos) return std::string("the multipart body has no boundary line");
    at += delimiter.size();
    for (;;) {
        if (body.substr(at, 2) == "--") return parts;  // the closing delimiter
        if (body.substr(at, 2) != "\r\n") return std::string("a multipart boundary line is malformed");
        at += 2;
        const auto headers_end = body.find("\r\n\r\n", at);
        if (headers_end == std::string_view::npos) return std::string("a multipart part has no end of headers");
        FormPart part;
        for (auto line_start = at; line_start < headers_end;) {
            auto line_end = body.find("\r\n", line_start);
            if (line_end == std::string_view::npos || line_end > headers_end) line_end = headers_end;
            const auto line = body.substr(line_start, line_end - line_start);
            const auto colon = line.find(':');
            if (colon != std::string_view::npos && lower(line.substr(0, colon)) == "content-disposition") {
                const auto value = line.substr(colon + 1);
                part.name = header_parameter(value, "name").value_or("");
                part.filename = header_parameter(value, "filename").value_or("");
            }
            line_start = line_end + 2;
        }
        const auto data_start = headers_end + 4;
        const auto next = body.find("\r\n" + delimiter, data_start);
        if (next == std::string_view::npos) return std::string("a multipart part is not closed by the boundary");
        part.data = std::string(body.substr(data_start, next - data_start));
        parts.push_back(std::move(part));
        at = next + 2 + delimiter.size();
    }
}

}  // namespace e2beval::server
