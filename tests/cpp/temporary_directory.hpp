// A fresh directory under /tmp for one test, removed with everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

namespace e2beval::testing {

struct TemporaryDirectory {
    std::filesystem::path path;
    TemporaryDirectory() {
        char name[] = "/tmp/e2beval-test-XXXXXX";
        if (!::mkdtemp(name)) throw std::runtime_error("cannot create a temporary directory under /tmp");
        path = name;
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    ~TemporaryDirectory() { std::filesystem::remove_all(path); }
};

}  // namespace e2beval::testing
