#!/usr/bin/env bash
# README command two: set everything up, then run every test: C++ (doctest via ctest), Python (pytest),
# the integration tests that drive the real promptfoo CLI, and the C++ consumer projects (packaging).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" --tests  # also what only the tests need (Chromium, doctest)
source "$ROOT/scripts/env.sh"
cd "$ROOT"

# build/cpp is the tree setup.sh built the module and the CLI in: only the tests' own sources compile here.
echo "== C++: build the tests (build/cpp) and doctest"
cmake --build build/cpp --target e2beval_tests
ctest --test-dir build/cpp --output-on-failure

echo "== Python, integration and the security corpus: pytest"
python -m pytest -q tests/python tests/integration tests/security tests/serve tests/templates

echo "== C++ consumers: install, find_package, add_subdirectory, pkg-config, one version"
bash tests/consumers/run.sh
