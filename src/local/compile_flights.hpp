// Compiles of the same program at the same time (pass@k's identical samples judged --jobs at a time, one program's
// stdin cases run side by side): the first compiles, the others wait for it and then find its result in the compile
// cache, so a program compiles once however its judgings overlap. Process-wide, keyed by the compile cache's key.
#pragma once

#include <boost/asio/any_completion_handler.hpp>

#include <functional>
#include <memory>
#include <string>

namespace e2beval::local {

// Held by the compile in flight; its destruction (whatever path the compile's completion takes, an exception
// included) ends the flight and resumes every waiter, which then looks the cache up again: a result that was not
// cached (a timeout, a cancel) makes the first waiter compile, and the others wait for it in turn.
class CompileFlight {
public:
    explicit CompileFlight(std::string key) : key_(std::move(key)) {}
    CompileFlight(const CompileFlight&) = delete;
    CompileFlight& operator=(const CompileFlight&) = delete;
    ~CompileFlight();

private:
    std::string key_;
};

// The flight of `key` when no compile of it is in flight (the caller compiles); else nullptr, having called
// `make_resume` (under the registry's lock, so it must not call back in) for the handler to call once that compile's
// flight ends. The resume handler must only post work: it runs on the thread that ended the flight.
std::unique_ptr<CompileFlight> begin_compile_flight(const std::string& key,
                                                    const std::function<boost::asio::any_completion_handler<void()>()>& make_resume);

}  // namespace e2beval::local
