#!/usr/bin/env bash
# Builds and runs the throughput bench (optimised, no sanitizers): bench/build.sh [repo-root]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bench
g++ -std=c++20 -O2 -DNDEBUG -Iinclude -Isrc bench/scan_extract_bench.cpp src/analysis/extract.cpp src/analysis/safety.cpp src/core/text.cpp \
  src/core/error.cpp src/core/types.cpp -o build/bench/scan_extract_bench
./build/bench/scan_extract_bench "$PWD"
