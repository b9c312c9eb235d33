// The Connect protocol's envelopes (a flag byte, a 4-byte big-endian length, the message), as envd's
// server streams carry them: encoding a request, and cutting a response stream into messages as bytes arrive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace e2beval::e2b {

std::string encode_envelope(std::uint8_t flags, std::string_view payload);

struct Envelope {
    bool end_stream = false;  // flag 0x02: the last message, with the stream's error if any
    std::string payload;
};

class EnvelopeReader {
public:
    void feed(std::string_view bytes) { pending_.append(bytes); }
    // The next whole envelope, or nullopt until more bytes come.
    std::optional<Envelope> next();

private:
    std::string pending_;
};

}  // namespace e2beval::e2b
