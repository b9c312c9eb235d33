// Errors: one exception base `e2beval::error` carrying an `errc`, with a subclass per family of failure.
// Messages say what went wrong and what to do; syscall failures name the call and its arguments.
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace e2beval {

enum class errc {
    invalid_input = 1,  // bad user input: missing field, invalid UTF-8, NUL byte, unknown option
    no_code_found,      // the model output holds no code we can run
    io_error,           // a file could not be read or written
    sandbox_setup,      // the sandbox could not be built (a syscall failed)
    unsupported,        // the host lacks something the configured isolation needs
    session_closed,     // a session was used after it was killed, timed out or its sandbox died
};

const std::error_category& error_category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), error_category()}; }

class error : public std::runtime_error {
public:
    error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
    errc code() const noexcept { return code_; }

private:
    errc code_;
};

class input_error : public error {
public:
    explicit input_error(const std::string& message) : error(errc::invalid_input, message) {}
};

// A template name (docs/templates.md) that names no built template; the message lists the known ones. `e2beval
// serve` answers it with E2B's 404 for an unknown template.
class unknown_template_error : public input_error {
public:
    using input_error::input_error;
};

class extraction_error : public error {
public:
    explicit extraction_error(const std::string& message) : error(errc::no_code_found, message) {}
};

class io_error : public error {
public:
    explicit io_error(const std::string& message) : error(errc::io_error, message) {}
};

class sandbox_error : public error {
public:
    explicit sandbox_error(const std::string& message, errc code = errc::sandbox_setup) : error(code, message) {}
};

// "call(args): strerror" for a failed syscall, as the sandbox reports it.
std::string describe_syscall_failure(const std::string& call, int error_number);

}  // namespace e2beval

template <>
struct std::is_error_code_enum<e2beval::errc> : std::true_type {};
