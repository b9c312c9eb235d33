// Streaming session calls on their own threads.
#include "server/streaming_call.hpp"

#include <boost/json/serialize.hpp>

namespace e2beval::server {

namespace json = boost::json;

json::object session_request(std::string_view op, std::string_view key, std::string_view value) {
    json::object request{{"op", op}};
    if (!key.empty()) request[key] = value;
    return request;
}

bool is_final_event(const json::object& event) {
    const auto* type = event.if_contains("type");
    if (!type || !type->is_string()) return false;
    const auto& name = type->as_string();
    return name == "end_of_execution" || name == "end" || name == "reply" || name == "failure";
}

std::shared_ptr<EventPipe> start_streaming_call(BlockingCalls& calls, boost::asio::any_io_executor io,
                                                std::shared_ptr<ServedSandbox> sandbox, json::object request) {
    auto pipe = std::make_shared<EventPipe>(io);
    calls.spawn([pipe, sandbox = std::move(sandbox), request = std::move(request)]() mutable {
        if (pipe->abandoned()) return pipe->end();
        try {
            auto final_event = sandbox->call(pipe.get(), std::move(request),
                                             [&](const SessionEvent& event) { pipe->push(json::serialize(event)); });
            pipe->push(json::serialize(final_event));
            pipe->end();
        } catch (...) {
            pipe->end(std::current_exception());
        }
    });
    return pipe;
}

void abandon_streaming_call(const std::shared_ptr<EventPipe>& pipe, ServedSandbox& sandbox, CallInterrupt::Mode mode) {
    pipe->abandon();
    sandbox.interrupt(pipe.get(), mode);
}

}  // namespace e2beval::server
