// FastAPI's answers for SandboxFusion's routes (validation.hpp).
#include "server/sandbox_fusion/validation.hpp"

#include <boost/json.hpp>

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

void ValidationErrors::add(std::string_view type, json::array loc, std::string_view message, const json::value& input) {
    json::object error{{"type", type}, {"loc", std::move(loc)}, {"msg", message}, {"input", input}};
    // pydantic's documentation link in each error, as SandboxFusion's server (pydantic 2.6) writes it.
    error["url"] = "https://errors.pydantic.dev/2.6/v/" + std::string(type);
    list.push_back(std::move(error));
}

Response ValidationErrors::response() const {
    return json_response(http::status::unprocessable_entity, json::object{{"detail", list}});
}

json::array body_loc(std::string_view field) { return json::array{"body", field}; }
json::array body_loc(std::string_view field, std::string_view key) { return json::array{"body", field, key}; }
json::array body_loc(std::string_view field, std::size_t index) { return json::array{"body", field, index}; }

std::variant<json::object, Response> body_object(std::string_view body) {
    ValidationErrors errors;
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        errors.add("missing", json::array{"body"}, "Field required", nullptr);
        return errors.response();
    }
    json::stream_parser parser;
    boost::system::error_code ec;
    const auto used = parser.write_some(body.data(), body.size(), ec);
    if (!ec) parser.finish(ec);
    if (!ec && used != body.size() && body.find_first_not_of(" \t\r\n", used) != std::string_view::npos)
        ec = json::make_error_code(json::error::extra_data);
    if (ec) {
        errors.add("json_invalid", json::array{"body", used}, "JSON decode error", json::object{});
        errors.list.back().as_object()["ctx"] = json::object{{"error", ec.message()}};
        return errors.response();
    }
    auto value = parser.release();
    if (!value.is_object()) {
        errors.add("model_attributes_type", json::array{"body"},
                   "Input should be a valid dictionary or object to extract fields from", value);
        return errors.response();
    }
    return std::move(value.as_object());
}

void refuse_unknown_fields(const json::object& body, std::initializer_list<std::string_view> known, ValidationErrors& errors) {
    for (const auto& [name, value] : body) {
        bool is_known = false;
        for (const auto known_name : known) is_known = is_known || name == known_name;
        if (!is_known) errors.add("extra_forbidden", body_loc(name), "Extra inputs are not permitted", value);
    }
}

Response validation_error(std::string_view type, json::array loc, std::string_view message, const json::value& input) {
    ValidationErrors errors;
    errors.add(type, std::move(loc), message, input);
    return errors.response();
}

Response detail_response(http::status status, std::string_view detail) {
    return json_response(status, json::object{{"detail", detail}});
}

Response queue_full_response(const QueueFull& full) {
    auto response = detail_response(http::status::service_unavailable, full.what());
    response.headers.emplace_back("Retry-After", "1");
    return response;
}

}  // namespace e2beval::server::sandbox_fusion
