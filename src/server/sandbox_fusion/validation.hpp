// FastAPI's answers, as SandboxFusion's server gives them, for every SandboxFusion route: a 422 whose
// `{"detail": [{"type", "loc", "msg", "input", "url"}, ...]}` lists every problem of a body at once, and
// `{"detail": "<text>"}` with any other status. The body readers of /run_code and /run_jupyter (requests.cpp) and
// of the dataset API (dataset_requests.cpp) gather their errors here.
#pragma once

#include <initializer_list>
#include <string_view>
#include <variant>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "server/http_exchange.hpp"
#include "server/sandbox_fusion/run_code.hpp"

namespace e2beval::server::sandbox_fusion {

// The errors of one body, as pydantic 2.6 reports them.
struct ValidationErrors {
    boost::json::array list;

    // `loc` is the whole location, "body" first (["body", "files", "a.txt"]).
    void add(std::string_view type, boost::json::array loc, std::string_view message, const boost::json::value& input);
    bool empty() const noexcept { return list.empty(); }
    Response response() const;  // the 422
};

// ["body", field, ...]: where in the body a problem is.
boost::json::array body_loc(std::string_view field);
boost::json::array body_loc(std::string_view field, std::string_view key);
boost::json::array body_loc(std::string_view field, std::size_t index);

// The body as an object, or FastAPI's answer for one that is not (nothing, bad JSON, a list).
std::variant<boost::json::object, Response> body_object(std::string_view body);

// SandboxFusion's models ignore unknown fields; e2beval refuses them at the top level (issue 36), so that a
// misspelt field (`run_timout`) is not silently a default. No current client sends one (docs/sandbox-fusion.md).
void refuse_unknown_fields(const boost::json::object& body, std::initializer_list<std::string_view> known,
                           ValidationErrors& errors);

// A 422 with one validation error.
Response validation_error(std::string_view type, boost::json::array loc, std::string_view message,
                          const boost::json::value& input = nullptr);
Response detail_response(http::status status, std::string_view detail);
// Past the fair queue's bound: 503 with Retry-After (the official client retries it; verl scores it as a failed
// case at once, which is why the bound is large: docs/sandbox-fusion.md).
Response queue_full_response(const QueueFull& full);

}  // namespace e2beval::server::sandbox_fusion
