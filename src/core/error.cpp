// The error category of e2beval::errc and the one formatter for failed syscalls.
#include "e2beval/core/error.hpp"

#include <cstring>

namespace e2beval {

namespace {
class category final : public std::error_category {
public:
    const char* name() const noexcept override { return "e2beval"; }
    std::string message(int value) const override {
        switch (static_cast<errc>(value)) {
            case errc::invalid_input: return "invalid input";
            case errc::no_code_found: return "no code found in the model output";
            case errc::io_error: return "file could not be read or written";
            case errc::sandbox_setup: return "sandbox could not be set up";
            case errc::unsupported: return "host does not support the requested isolation";
            case errc::session_closed: return "the session is closed";
        }
        return "unknown e2beval error";
    }
};
}  // namespace

const std::error_category& error_category() noexcept {
    static const category instance;
    return instance;
}

std::string describe_syscall_failure(const std::string& call, int error_number) {
    return call + ": " + std::strerror(error_number);
}

}  // namespace e2beval
