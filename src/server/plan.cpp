// Carrying out a route's Plan.
#include "server/plan.hpp"

#include "server/server_context.hpp"

namespace e2beval::server {

boost::asio::awaitable<void> carry_out(ServerContext& context, Exchange& exchange, Plan plan) {
    if (auto* later = std::get_if<std::function<Response()>>(&plan)) {
        auto work = std::move(*later);
        plan = co_await context.calls.run<Response>(std::move(work));
    }
    if (auto* awaited = std::get_if<Awaited>(&plan)) {
        auto work = std::move(*awaited);
        plan = co_await work();
    }
    if (auto* now = std::get_if<Response>(&plan)) co_await exchange.reply(std::move(*now));
}

}  // namespace e2beval::server
