// Who may reach a sandbox: whoever holds its tokens (access_token.hpp), which only the control plane hands out,
// behind the API key. Knowing a sandbox's id is not enough.
//
// - envd (49983): X-Access-Token equal to the sandbox's envd token; for /files, a file URL signature made with
//   that token (the SDK's download_url/upload_url) is accepted instead.
// - code interpreter (49999): X-Access-Token (the SDK sends it on /execute) or E2B-Traffic-Access-Token (the SDK
//   sends it on every request, /contexts included).
// A refused request gets 401 — {"code": 401, "message"} on HTTP routes (the SDK raises AuthenticationException
// for envd's), Connect's "unauthenticated" on envd's Connect routes (AuthenticationException too).
#pragma once

#include <optional>

#include "server/http_exchange.hpp"
#include "server/sandbox_store.hpp"

namespace e2beval::server {

// nullopt when the request may reach `sandbox`; the answer to send instead otherwise.
std::optional<Response> refuse_without_access(const Exchange& exchange, const ServedSandbox& sandbox, bool code_interpreter);

}  // namespace e2beval::server
