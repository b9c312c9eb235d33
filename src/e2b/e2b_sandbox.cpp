// E2bSandbox (include/e2beval/e2b/e2b_sandbox.hpp): the Sandbox interface over the engine. An execution is a
// coroutine on the engine's thread; its completion goes back to the caller's executor, and the caller's
// cancellation crosses the other way.
#include "e2beval/e2b/e2b_sandbox.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include "e2b/e2b_session.hpp"
#include "e2b/engine.hpp"
#include "e2b/one_shot.hpp"
#include "e2beval/core/error.hpp"

namespace e2beval {

namespace asio = boost::asio;

namespace {

void require_usable(const E2bSettings& settings) {
    if (settings.api_key.empty())
        throw input_error("the e2b backend needs an API key: set E2B_API_KEY (from https://e2b.dev/dashboard), or use the local backend");
    if (settings.max_sandboxes == 0) throw input_error("the e2b backend's max_sandboxes must be at least 1");
    if (settings.uses_per_sandbox == 0) throw input_error("the e2b backend's uses_per_sandbox must be at least 1");
    // Malformed URLs are refused now, not at the first execution.
    e2b::Origin::parse(settings.api_url.empty() ? "https://api." + settings.domain : settings.api_url);
    if (!settings.sandbox_url.empty()) e2b::Origin::parse(settings.sandbox_url);
}

}  // namespace

E2bSandbox::E2bSandbox(E2bSettings settings, executor_type executor)
    : Sandbox(std::move(executor)), sessions_(std::make_shared<SessionRegistry>()) {
    require_usable(settings);
    engine_ = std::make_shared<Engine>(std::move(settings));
}

E2bSandbox::~E2bSandbox() { shutdown(); }

void E2bSandbox::shutdown() { engine_->stop(); }

E2bCounters E2bSandbox::counters() const { return engine_->counters(); }

void E2bSandbox::initiate_execute(executor_type io, ExecRequest request, ExecHandler& handler) {
    e2b::check_language_runs_on_e2b(request.language);  // a refusal throws here, while `handler` is still the caller's
    auto slot = asio::get_associated_cancellation_slot(handler);
    auto signal = std::make_shared<asio::cancellation_signal>();
    auto engine = engine_;
    auto cancelled = std::make_shared<bool>(false);
    if (slot.is_connected())
        slot.assign([engine, signal, cancelled](asio::cancellation_type type) {
            asio::post(engine->io, [signal, type, cancelled] {
                *cancelled = true;
                signal->emit(type);
            });
        });
    asio::co_spawn(engine->io, e2b::run_one_shot(*engine, std::move(request)),
                   asio::bind_cancellation_slot(signal->slot(), [io, slot, signal, cancelled, handler = std::move(handler)](
                                                                    std::exception_ptr failure, ExecResult result) mutable {
                       asio::post(io, [slot, failure, cancelled, result = std::move(result), handler = std::move(handler)]() mutable {
                           auto caller_slot = slot;
                           if (caller_slot.is_connected()) caller_slot.clear();
                           result.backend = "e2b";
                           if (*cancelled) {
                               ExecResult aborted;
                               aborted.backend = "e2b";
                               aborted.outcome = Outcome::cancelled;
                               aborted.detail = "cancelled: the caller cancelled the execution (the remote sandbox was replaced)";
                               std::move(handler)(asio::error::operation_aborted, std::move(aborted));
                               return;
                           }
                           if (failure) {
                               try {
                                   std::rethrow_exception(failure);
                               } catch (const std::exception& error) {
                                   auto [ec, failed] = failure_completion(error);
                                   failed.backend = "e2b";
                                   std::move(handler)(ec, std::move(failed));
                               }
                               return;
                           }
                           std::move(handler)(boost::system::error_code(), std::move(result));
                       });
                   }));
}

std::shared_ptr<Session> E2bSandbox::create_session(const SessionOptions& options) {
    auto session = e2b::E2bSession::create(engine_, options);
    sessions_->add(session);
    return session;
}

std::vector<SessionInfo> E2bSandbox::list_sessions() { return sessions_->list(); }

std::shared_ptr<Session> E2bSandbox::find_session(const std::string& id) { return sessions_->find(id); }

}  // namespace e2beval
