// The backend interface: run one program to completion with hard limits and report what happened.
// Backends: LocalSandbox (Linux namespaces, the default) and, later, the E2B cloud client.
#pragma once

#include "e2beval/core/types.hpp"

namespace e2beval {

class Sandbox {
public:
    virtual ~Sandbox() = default;

    // Blocking: runs `request` to completion. Failures of the program are reported in the result's outcome;
    // only a sandbox that cannot be built throws (sandbox_error).
    virtual ExecResult execute(const ExecRequest& request) = 0;
};

}  // namespace e2beval
