// Connect envelopes (src/e2b/connect_envelope.hpp).
#include "e2b/connect_envelope.hpp"

namespace e2beval::e2b {

std::string encode_envelope(std::uint8_t flags, std::string_view payload) {
    std::string out;
    const auto size = static_cast<std::uint32_t>(payload.size());
    out += static_cast<char>(flags);
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((size >> shift) & 0xff);
    out.append(payload);
    return out;
}

std::optional<Envelope> EnvelopeReader::next() {
    if (pending_.size() < 5) return std::nullopt;
    std::uint32_t size = 0;
    for (int i = 1; i <= 4; ++i) size = (size << 8) | static_cast<unsigned char>(pending_[static_cast<std::size_t>(i)]);
    if (pending_.size() < 5 + std::size_t{size}) return std::nullopt;
    Envelope envelope;
    envelope.end_stream = (static_cast<unsigned char>(pending_[0]) & 0x02) != 0;
    envelope.payload = pending_.substr(5, size);
    pending_.erase(0, 5 + std::size_t{size});
    return envelope;
}

}  // namespace e2beval::e2b
