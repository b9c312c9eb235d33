// Reading a multipart/form-data body (RFC 7578), as the SDKs upload files: each part's field name, file name
// and bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace e2beval::server {

struct FormPart {
    std::string name;      // the field's name ("file")
    std::string filename;  // the file name the client gave (the SDKs put the sandbox path there)
    std::string data;
};

// The boundary of a `multipart/form-data; boundary=...` content type, if it is one.
std::optional<std::string> multipart_boundary(std::string_view content_type);

// The parts, or a message saying what is malformed.
std::variant<std::vector<FormPart>, std::string> parse_multipart(std::string_view body, std::string_view boundary);

}  // namespace e2beval::server
