// Reading the dataset API's request bodies, with FastAPI's 422 for what pydantic would refuse.
#include "server/sandbox_fusion/dataset_requests.hpp"

#include "server/sandbox_fusion/validation.hpp"

#include <cmath>
#include <initializer_list>

#include <boost/json/parse.hpp>

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

namespace {

// The languages config.language may name: the official client 0.3.7's Language literal (a superset of the
// server's), so a request the client lets through is never refused here.
constexpr std::string_view kLanguages[] = {
    "python", "python2", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash", "typescript",
    "sql", "rust", "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala", "julia", "pytest", "junit",
    "kotlin_script", "jest", "verilog", "python_gpu", "lean", "swift", "racket", "gtest", "react"};

class Reader {
public:
    // `where` is the location below "body" (["config", "language"]).
    void error(std::string_view type, const json::array& where, std::string_view message, const json::value& input) {
        json::array loc{"body"};
        for (const auto& part : where) loc.push_back(part);
        errors.add(type, std::move(loc), message, input);
    }
    bool failed() const { return !errors.empty(); }

    const json::value* required(const json::object& object, json::array where, std::string_view key) {
        const auto* found = object.if_contains(key);
        where.push_back(json::value(key));
        if (!found) error("missing", where, "Field required", object);
        return found;
    }

    std::optional<std::string> string(const json::value& value, json::array where) {
        if (value.is_string()) return std::string(value.get_string());
        error("string_type", where, "Input should be a valid string", value);
        return std::nullopt;
    }

    // pydantic's lax int: an integer, or a float with no fractional part.
    std::optional<std::int64_t> integer(const json::value& value, json::array where) {
        if (value.is_int64()) return value.get_int64();
        if (value.is_uint64() && value.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
            return static_cast<std::int64_t>(value.get_uint64());
        if (value.is_double() && std::floor(value.get_double()) == value.get_double() && std::abs(value.get_double()) < 9e18)
            return static_cast<std::int64_t>(value.get_double());
        error("int_type", where, "Input should be a valid integer", value);
        return std::nullopt;
    }

    std::optional<json::value> id(const json::value& value, json::array where) {
        if (value.is_string() || value.is_int64() || value.is_uint64()) return value;
        if (value.is_double() && std::floor(value.get_double()) == value.get_double() && std::abs(value.get_double()) < 9e18)
            return json::value(static_cast<std::int64_t>(value.get_double()));
        error("union_type", where, "Input should be a valid integer or a valid string", value);
        return std::nullopt;
    }

    std::optional<TestConfig> config(const json::value& value) {
        const json::array where{"config"};
        if (!value.is_object()) {
            error("model_attributes_type", where, "Input should be a valid dictionary or object to extract fields from", value);
            return std::nullopt;
        }
        const auto& object = value.get_object();
        TestConfig config;
        const auto optional_string = [&](std::string_view key, std::optional<std::string>& target) {
            const auto* found = object.if_contains(key);
            if (!found || found->is_null()) return;
            json::array at = where;
            at.push_back(json::value(key));
            target = string(*found, at);
        };
        const auto optional_number = [&](std::string_view key, std::optional<double>& target) {
            const auto* found = object.if_contains(key);
            if (!found || found->is_null()) return;
            json::array at = where;
            at.push_back(json::value(key));
            if (found->is_number()) target = found->to_number<double>();
            else error("float_type", at, "Input should be a valid number", *found);
        };
        optional_string("dataset_type", config.dataset_type);
        optional_string("language", config.language);
        if (config.language) {
            bool known = false;
            for (const auto name : kLanguages) known = known || name == *config.language;
            if (!known) {
                std::string expected;
                for (const auto name : kLanguages) expected += (expected.empty() ? "'" : ", '") + std::string(name) + "'";
                error("literal_error", {json::value("config"), json::value("language")}, "Input should be " + expected,
                      object.at("language"));
            }
        }
        optional_string("locale", config.locale);
        optional_string("custom_extract_logic", config.custom_extract_logic);
        optional_number("compile_timeout", config.compile_timeout);
        optional_number("run_timeout", config.run_timeout);
        if (const auto* fewshot = object.if_contains("is_fewshot"); fewshot && !fewshot->is_null()) {
            if (fewshot->is_bool()) config.is_fewshot = fewshot->get_bool();
            else error("bool_type", {json::value("config"), json::value("is_fewshot")}, "Input should be a valid boolean", *fewshot);
        }
        if (const auto* provided = object.if_contains("provided_data"); provided && !provided->is_null()) {
            bool good = provided->is_object();
            if (provided->is_array()) {
                good = true;
                for (const auto& row : provided->get_array()) good = good && row.is_object();
            }
            if (good) config.provided_data = *provided;
            else
                error("union_type", {json::value("config"), json::value("provided_data")},
                      "Input should be a list of dictionaries (rows) or a dictionary (a row)", *provided);
        }
        if (const auto* extra = object.if_contains("extra")) {
            if (extra->is_object()) config.extra = extra->get_object();
            else error("dict_type", {json::value("config"), json::value("extra")}, "Input should be a valid dictionary", *extra);
        }
        return config;
    }

    // `dataset` and `config`, which every request has.
    template <class Request>
    void common(const json::object& object, Request& request) {
        if (const auto* dataset = required(object, {}, "dataset"))
            if (auto text = string(*dataset, {"dataset"})) request.dataset = std::move(*text);
        if (const auto* config_value = required(object, {}, "config"))
            if (auto parsed = config(*config_value)) request.config = std::move(*parsed);
    }

    ValidationErrors errors;
};

template <class T>
Parsed<T> finish(Reader& reader, T request) {
    if (reader.failed()) return reader.errors.response();
    return request;
}

}  // namespace

bool TestConfig::flag(std::string_view key) const {
    const auto* found = extra.if_contains(key);
    if (!found || found->is_null()) return false;
    if (found->is_bool()) return found->get_bool();
    if (found->is_number()) return found->to_number<double>() != 0;
    if (found->is_string()) return !found->get_string().empty();
    if (found->is_array()) return !found->get_array().empty();
    return !found->get_object().empty();
}

Parsed<GetPromptsRequest> parse_get_prompts(std::string_view body) {
    Reader reader;
    GetPromptsRequest request;
    auto parsed = body_object(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto* object = &std::get<json::object>(parsed);
    refuse_unknown_fields(*object, {"dataset", "config", "offset", "limit"}, reader.errors);
    reader.common(*object, request);
    if (const auto* offset = object->if_contains("offset"))
        if (auto value = reader.integer(*offset, {"offset"})) request.offset = *value;
    if (const auto* limit = object->if_contains("limit"))
        if (auto value = reader.integer(*limit, {"limit"})) request.limit = *value;
    return finish(reader, std::move(request));
}

Parsed<GetPromptByIdRequest> parse_get_prompt_by_id(std::string_view body) {
    Reader reader;
    GetPromptByIdRequest request;
    auto parsed = body_object(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto* object = &std::get<json::object>(parsed);
    refuse_unknown_fields(*object, {"dataset", "config", "id"}, reader.errors);
    reader.common(*object, request);
    if (const auto* id = reader.required(*object, {}, "id"))
        if (auto value = reader.id(*id, {"id"})) request.id = std::move(*value);
    return finish(reader, std::move(request));
}

Parsed<SubmitRequest> parse_submit(std::string_view body) {
    Reader reader;
    SubmitRequest request;
    auto parsed = body_object(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto* object = &std::get<json::object>(parsed);
    refuse_unknown_fields(*object, {"dataset", "id", "completion", "config"}, reader.errors);
    reader.common(*object, request);
    if (const auto* id = reader.required(*object, {}, "id"))
        if (auto value = reader.id(*id, {"id"})) request.id = std::move(*value);
    if (const auto* completion = reader.required(*object, {}, "completion"))
        if (auto text = reader.string(*completion, {"completion"})) request.completion = std::move(*text);
    return finish(reader, std::move(request));
}

Parsed<MetricsRequest> parse_metrics(std::string_view body, bool with_results) {
    Reader reader;
    MetricsRequest request;
    auto parsed = body_object(body);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto* object = &std::get<json::object>(parsed);
    if (with_results) {
        refuse_unknown_fields(*object, {"dataset", "config", "results"}, reader.errors);
        if (const auto* results = reader.required(*object, {}, "results"); results && !results->is_array())
            reader.error("list_type", {json::value("results")}, "Input should be a valid list", *results);
    } else {
        refuse_unknown_fields(*object, {"dataset", "config"}, reader.errors);
    }
    reader.common(*object, request);
    return finish(reader, std::move(request));
}

}  // namespace e2beval::server::sandbox_fusion
