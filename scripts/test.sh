#!/usr/bin/env bash
# README command two: set everything up, then run every test: C++ (doctest via ctest), Python (pytest),
# the integration tests that drive the real promptfoo CLI, and the C++ consumer projects (packaging).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" --tests  # also what only the tests need (Chromium, doctest)
source "$ROOT/scripts/env.sh"
cd "$ROOT"
# pytest keeps its rewritten test modules, Python its compiled ones, in __pycache__ (ignored by git): an environment
# that turns that off (PYTHONDONTWRITEBYTECODE) made every pytest process and every Python the tests start compile
# them again (pytest's collection: 4.0 s instead of 2.1 s, in each of the four processes).
unset PYTHONDONTWRITEBYTECODE
# setup.sh --tests installed every compiled language's toolchain: a test that finds one missing fails here
# instead of skipping (tests/cpp/test_compile_stage.cpp; docs/testing.md).
export E2BEVAL_REQUIRE_TOOLCHAINS=1

# The tests' template store (tests/template_cache.py): every test and what it starts finds templates there, and
# pip its downloads. The built-in template code-interpreter-v1 (E2B's packages, what `e2beval serve` gives the
# SDKs' default template) is built once per run at most, in the background while the tests that do not need it
# run (they come first: tests/conftest.py): pip mostly downloads and unpacks, the tests mostly compute. A later
# run of the same checkout reuses it.
export E2BEVAL_CACHE_DIR="$ROOT/build/test-templates" PIP_CACHE_DIR="$ROOT/build/pip-cache"
mkdir -p build
template_log="build/code-interpreter-v1.log"
echo "== code-interpreter-v1: building in the background (log: $template_log)"
template_started=$SECONDS

# in_background LOG COMMAND...: COMMAND in the background, its output in LOG, its pid in $background_pid. In a
# process group of its own (job control on for this one job), so that when the script ends early all of it is
# interrupted (the template's build: the CLI, its builder and pip, which then keep nothing half-built).
in_background() {
  local log="$1"
  shift
  set -m
  "$@" >"$log" 2>&1 &
  background_pid=$!
  set +m
}
# finished PID: waits for it, its exit status in $finished_status (a failing `wait` would end the script: set -e).
finished() {
  finished_status=0
  wait "$1" || finished_status=$?
}

in_background "$template_log" e2beval template build code-interpreter-v1
template_pid=$background_pid
# Go's standard library compiled once per Go toolchain into the same store (docs/languages.md, "Go's standard
# library"; ~80 CPU-seconds the first time, nothing when it is there): in the background too, so that no test waits
# for it unless it compiles Go before it is ready (that compile then waits on its lock, never prepares it twice).
go_std_log="build/go-std-cache.log"
echo "== Go's standard library: preparing in the background (log: $go_std_log)"
in_background "$go_std_log" e2beval cache prepare go
go_std_pid=$background_pid
# What is still running in the background is interrupted, a process group at a time, when the script ends early.
ctest_pid=""
interrupt_background() {
  local group
  for group in "$template_pid" "$go_std_pid" "$ctest_pid"; do
    [ -n "$group" ] && kill -INT -- "-$group" 2>/dev/null || true
  done
}
trap interrupt_background EXIT

# Every part below runs to its end even when an earlier one failed, so that one run shows every failure; the
# script fails at the end if any did.
failed=()

# setup.sh --tests built the tests with the module and the CLI in build/cpp: nothing is left to compile here
# unless a source changed since.
echo "== C++: the tests (build/cpp)"
cmake --build build/cpp --target e2beval_tests
# The doctest suite's three runs (warm, cold, the E2B client) at once, in the background beside pytest's parallel
# part: each checks only what its own process made, and they mostly wait (on timeouts, on their sandboxes), so
# they cost those parts little. Their output is shown when they have ended, before the exclusive part.
ctest_log="build/ctest.log"
echo "== C++: doctest through ctest, in the background (log: $ctest_log)"
in_background "$ctest_log" ctest --test-dir build/cpp --output-on-failure -j 2
ctest_pid=$background_pid

# pytest in two parts (docs/testing.md). The parallel part uses one pytest-xdist worker per core and one more,
# each test file whole on one worker (--dist loadfile: a module's fixtures, servers and daemons are started once,
# as in a serial run): with one per core the cores were idle a good part of the time, the tests waiting on
# promptfoo, servers and timeouts (on 2 cores: 325 s with 2 workers, 243 s with 3, the machine 98 % busy). The
# files that need code-interpreter-v1 come last in it, and wait for its build if they reach it first. The tests
# that need the machine to themselves (mark `exclusive`) run last, one at a time.
PYTEST_PATHS=(tests/python tests/integration tests/security tests/serve tests/sandbox_fusion tests/templates)
PARALLEL=(-n "${E2BEVAL_TEST_WORKERS:-$(($(nproc) + 1))}" --dist loadfile)

echo "== pytest, part 1 of 2: all but the exclusive tests, in parallel (those that need code-interpreter-v1 last)"
python -m pytest -q "${PARALLEL[@]}" -m "not exclusive" "${PYTEST_PATHS[@]}" || failed+=("pytest part 1 (parallel)")

finished "$template_pid"
template_pid=""
if [ "$finished_status" -ne 0 ]; then
  cat "$template_log" >&2
  failed+=("code-interpreter-v1's build (pip's log is above)")
else
  echo "== code-interpreter-v1: built after $((SECONDS - template_started)) s ($(tail -n 2 "$template_log" | head -n 1))"
fi

finished "$go_std_pid"
go_std_pid=""
if [ "$finished_status" -ne 0 ]; then
  cat "$go_std_log" >&2
  failed+=("the preparation of Go's standard library (its log is above)")
else
  echo "== $(tail -n 1 "$go_std_log")"
fi

finished "$ctest_pid"
ctest_pid=""
if [ "$finished_status" -eq 0 ]; then
  echo "== C++: doctest: $(grep -E "tests passed|tests failed" "$ctest_log")"
else
  cat "$ctest_log"
  failed+=("C++ tests (ctest)")
fi
trap - EXIT

echo "== pytest, part 2 of 2: what needs the machine to itself, one test at a time"
python -m pytest -q -m exclusive "${PYTEST_PATHS[@]}" || failed+=("pytest part 2 (exclusive)")

echo "== C++ consumers: install, find_package, add_subdirectory, pkg-config, one version"
bash tests/consumers/run.sh || failed+=("C++ consumers")

if ((${#failed[@]})); then
  echo "== failed: ${failed[*]} (the failures are listed above)" >&2
  exit 1
fi
echo "== every test passed"
