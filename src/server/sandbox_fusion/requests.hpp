// SandboxFusion's request bodies (/run_code's RunCodeRequest, /run_jupyter's RunJupyterRequest) read into value
// types with SandboxFusion's defaults, or the 4xx to answer instead, in FastAPI's shape
// (`{"detail": [{"type", "loc", "msg", "input"}, ...]}`, which SandboxFusion's server answers for a bad body).
// Stricter than SandboxFusion where issue 36 asks (docs/sandbox-fusion.md): unknown top-level fields, base64 that
// is not base64, and paths that would leave the workspace are refused, each naming the field or file.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json/value.hpp>

#include "server/http_exchange.hpp"
#include "server/server.hpp"
#include "server/sandbox_fusion/run_code.hpp"

namespace e2beval::server::sandbox_fusion {

struct RunJupyterRequest {
    std::vector<std::string> cells;
    double cell_timeout = 0;  // seconds; 0: no per-cell limit (only total_timeout)
    double total_timeout = 45;
    std::map<std::string, std::string> files;  // workspace path -> decoded bytes
    std::vector<std::string> fetch_files;
};

std::variant<RunCodeRequest, Response> parse_run_code_request(std::string_view body,
                                                              const ServerOptions::SandboxFusion& limits);
std::variant<RunJupyterRequest, Response> parse_run_jupyter_request(std::string_view body,
                                                                    const ServerOptions::SandboxFusion& limits);

// A number of seconds as people write it: "1", "0.5", "300".
std::string seconds_text(double seconds);

// A workspace path as e2beval takes it: relative, no `..`, no NUL; `.` and empty components dropped
// ("./a//b" is "a/b"). Empty when the path is refused.
std::string workspace_path(std::string_view path);

}  // namespace e2beval::server::sandbox_fusion
