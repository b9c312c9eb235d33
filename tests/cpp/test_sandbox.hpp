// The sandbox every test uses. ctest runs the suite twice: warm (E2BEVAL_TEST_POOL=1, executions forked
// from pool zygotes) and cold (E2BEVAL_TEST_POOL=0), so each test proves both paths isolate the same.
#pragma once

#include <cstdlib>
#include <string>

#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::testing {

inline bool pool_enabled() {
    const char* setting = std::getenv("E2BEVAL_TEST_POOL");
    return !setting || std::string(setting) != "0";
}

inline LocalSandbox& test_sandbox() {
    static LocalSandbox instance([] {
        LocalSandboxOptions options;
        options.pool.enabled = pool_enabled();
        return options;
    }());
    return instance;
}

}  // namespace e2beval::testing
