// Who may reach a sandbox: whoever holds its tokens (access_token.hpp), which only the control plane hands out,
// behind the API key. Knowing a sandbox's id is not enough.
//
// - envd (49983): X-Access-Token equal to the sandbox's envd token; for /files, a file URL signature made with
//   that token (the SDK's download_url/upload_url) is accepted instead, and names the sandbox when the request
//   has no E2b-Sandbox-Id (an expired one: 401 "signature is already expired", as envd says).
// - code interpreter (49999): X-Access-Token (the SDK sends it on /execute) or E2B-Traffic-Access-Token (the SDK
//   sends it on every request, /contexts included).
// A refused request gets 401 — {"code": 401, "message"} on HTTP routes (the SDK raises AuthenticationException
// for envd's), Connect's "unauthenticated" on envd's Connect routes (AuthenticationException too).
#pragma once

#include <memory>
#include <optional>

#include "server/http_exchange.hpp"
#include "server/sandbox_store.hpp"

namespace e2beval::server {

// nullopt when the request may reach `sandbox`; the answer to send instead otherwise.
std::optional<Response> refuse_without_access(const Exchange& exchange, const ServedSandbox& sandbox, bool code_interpreter);

// The sandbox whose envd token signed this /files URL, for a request that names no sandbox: with E2B_SANDBOX_URL
// set, the SDKs' download_url/upload_url are this server's /files with the signature and nothing else (fetched by
// any HTTP client, without E2B's headers), so the signature is what names the sandbox. nullptr when no live
// sandbox signed it. A URL whose signature matches but has expired is routed too, to be refused as expired.
std::shared_ptr<ServedSandbox> sandbox_of_signed_file_url(const Exchange& exchange, SandboxStore& sandboxes);

}  // namespace e2beval::server
