#!/usr/bin/env bash
# The E2B SDKs' own test suites against `e2beval serve` (docs/serve.md, "The SDKs' own test suites"):
#
#   bash tests/sdk_suites/run.sh E2B_DIR CODE_INTERPRETER_DIR [PYTEST_ARGUMENTS...]
#
# E2B_DIR is a checkout of e2b-dev/E2B, CODE_INTERPRETER_DIR one of e2b-dev/code-interpreter; their files are
# only read (nothing of them is copied into this repository). The script
#   1. makes a virtualenv (build/sdk-suites/venv) with the SDKs at the versions the two trees declare (e2b from
#      packages/python-sdk/pyproject.toml, e2b-code-interpreter from python/pyproject.toml) and the test tools
#      they declare, from PyPI (reused while those stay the same);
#   2. starts `e2beval serve` on a free port (E2BEVAL=/path/to/e2beval to serve another build) and points the
#      SDKs at it (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY; E2B_DEBUG and E2B_DOMAIN unset);
#   3. runs, each from its own directory with its own pytest.ini and conftest.py, E2B's tests that reach a
#      sandbox (packages/python-sdk/tests/sync, tests/async, tests/shared/git) and all of code-interpreter's
#      python/tests, less the tests of what e2beval does not offer (not_offered.txt, each with its reason);
#   4. prints pass/fail counts per suite, every failure, and the deselected tests counted by reason.
# E2B's other tests (tests/test_*.py, tests/shared/{api,sandbox,template}) are the SDK's unit tests: they run
# against mocked transports and never reach a server, so they say nothing about e2beval and are not run.
# Exit status: 0 every test run passed, 1 some failed, 2 bad usage or a setup step failed.
# Results (JUnit XML, the server's log) are kept in build/sdk-suites/results. Not part of CI's default run
# (it needs the two checkouts and PyPI, and takes minutes).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
usage() { echo "usage: bash tests/sdk_suites/run.sh E2B_DIR CODE_INTERPRETER_DIR [PYTEST_ARGUMENTS...]" >&2; exit 2; }
(($# >= 2)) || usage
E2B_DIR="$(cd "$1" 2>/dev/null && pwd)" || { echo "run.sh: E2B_DIR '$1' is not a directory (a checkout of e2b-dev/E2B)" >&2; exit 2; }
CI_DIR="$(cd "$2" 2>/dev/null && pwd)" || { echo "run.sh: CODE_INTERPRETER_DIR '$2' is not a directory (a checkout of e2b-dev/code-interpreter)" >&2; exit 2; }
shift 2
[ -f "$E2B_DIR/packages/python-sdk/pyproject.toml" ] && [ -d "$E2B_DIR/packages/python-sdk/tests" ] ||
  { echo "run.sh: $E2B_DIR has no packages/python-sdk/{pyproject.toml,tests}: give a checkout of e2b-dev/E2B" >&2; exit 2; }
[ -f "$CI_DIR/python/pyproject.toml" ] && [ -d "$CI_DIR/python/tests" ] ||
  { echo "run.sh: $CI_DIR has no python/{pyproject.toml,tests}: give a checkout of e2b-dev/code-interpreter" >&2; exit 2; }

# PATH gets the repository's tools: Node 22 (tools/promptfoo), which TypeScript cells need (node 22.13 or later).
# shellcheck source=../../scripts/env.sh
source "$ROOT/scripts/env.sh"
E2BEVAL="${E2BEVAL:-$ROOT/.venv/bin/e2beval}"
[ -x "$E2BEVAL" ] || { echo "run.sh: $E2BEVAL is not an executable e2beval: run scripts/setup.sh, or set E2BEVAL" >&2; exit 2; }
WORK="${SDK_SUITES_DIR:-$ROOT/build/sdk-suites}"
PYTHON="${SDK_SUITES_PYTHON:-python3}"
VENV="$WORK/venv"
RESULTS="$WORK/results"
mkdir -p "$WORK" "$RESULTS"
rm -f "$RESULTS"/*.xml "$RESULTS"/*.deselected.json

# 1. The virtualenv, rebuilt when the declared versions change.
requirements="$("$PYTHON" "$HERE/sdk_requirements.py" "$E2B_DIR" "$CI_DIR")"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$requirements" ]; then
  echo "== SDK virtualenv $VENV:"
  echo "$requirements" | sed 's/^/   /'
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check $(echo "$requirements") ||
    { echo "run.sh: pip could not install the SDKs' requirements (above)" >&2; exit 2; }
  echo "$requirements" >"$VENV/.requirements"
fi
echo "== SDKs: $("$VENV/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(e2b|e2b-code-interpreter) ' | tr -s ' ' | paste -sd, -)"

# 2. The server, stopped whatever happens.
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"
    wait "$server_pid" || true
  fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM
# The suites create sandboxes two tests at a time (xdist), some several per test.
"$E2BEVAL" serve --port 0 --max-sandboxes 40 --creation-rate 50 --ready-sandboxes 2 \
  >"$RESULTS/serve.out" 2> >(tee "$RESULTS/serve.log" >&2) &
server_pid=$!
until [ "$(grep -c '^export E2B_' "$RESULTS/serve.out" || true)" -ge 3 ]; do
  kill -0 "$server_pid" 2>/dev/null || { echo "run.sh: e2beval serve ended before it listened (its log is above)" >&2; exit 2; }
  sleep 0.2  # the server may first build a template (its progress is above)
done
unset E2B_DEBUG E2B_DOMAIN E2B_TESTS_TEMPLATE E2B_ACCESS_TOKEN
while IFS='=' read -r name value; do
  export "${name#export }=$value"
done < <(grep '^export E2B_' "$RESULTS/serve.out")
echo "== $("$E2BEVAL" --version) serve at $E2B_API_URL (pid $server_pid)"

# 3. The suites.
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" SDK_SUITES_RESULTS="$RESULTS"
status=0
run_suite() {
  local suite="$1" directory="$2"
  shift 2
  echo
  echo "== $suite: pytest in $directory"
  (cd "$directory" && SDK_SUITE="$suite" "$VENV/bin/python" -m pytest -p sdk_suite_plugin -q -rfE \
    --junitxml="$RESULTS/$suite.xml" -o junit_family=xunit1 "$@") || status=1
}
run_suite e2b "$E2B_DIR/packages/python-sdk" --numprocesses=2 tests/sync tests/async tests/shared/git "$@"
run_suite code-interpreter "$CI_DIR/python" tests "$@"

# 4. The counts.
echo
echo "== summary (deselected: not_offered.txt)"
"$VENV/bin/python" "$HERE/summarize.py" "$RESULTS" e2b code-interpreter
exit "$status"
