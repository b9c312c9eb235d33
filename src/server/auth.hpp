// API keys of the control plane: E2B's SDKs send the key in X-API-KEY. The server accepts the keys it was
// given (--api-key) or one it generated, shaped like E2B's (`e2b_` + hex) so that SDKs which check the shape
// accept it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace e2beval::server {

// `e2b_` followed by 40 hex digits from the system's random source.
std::string generate_api_key();

class ApiKeys {
public:
    explicit ApiKeys(std::vector<std::string> keys) : keys_(std::move(keys)) {}
    // Compares in constant time per key, so the time taken does not tell how much of a guess was right.
    bool accepts(std::string_view presented) const;

private:
    std::vector<std::string> keys_;
};

}  // namespace e2beval::server
