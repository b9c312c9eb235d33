// The one place e2beval's version is written: CMake's project(VERSION), the Python package's metadata
// (scikit-build-core's regex provider), `e2beval --version` and `e2beval.__version__` all read it from here.
#pragma once

#include <string_view>

// Kept as a plain string literal on one line: CMakeLists.txt and pyproject.toml find it with a regex.
#define E2BEVAL_VERSION "0.1.0"

namespace e2beval {

inline constexpr std::string_view kVersion = E2BEVAL_VERSION;

}  // namespace e2beval
