#!/usr/bin/env bash
# Runs the E2B examples under real `promptfoo eval` against a local `e2beval serve`: starts the server on a free
# port, exports the three variables the official SDKs read (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY), runs
# each example and stops the server, whatever happens.
#
#   bash examples/e2b/run.sh                      # all four: promptfoo-page, code-execution, polyglot, tutorial
#   bash examples/e2b/run.sh polyglot tutorial    # some of them
#
# Each prints promptfoo's table. Some tests fail on purpose (README.md lists the expected counts), so
# promptfoo's exit code 100 counts as a run; this script exits 0 when every eval ran, 1 otherwise.
# E2B_EXAMPLES_OUTPUT_DIR=DIR also writes each eval's results to DIR/<example>.json (promptfoo's -o).
# The server's first start on a machine builds the template code-interpreter-v1 (E2B's packages, the SDK's
# default template; minutes, pip's log is shown); later starts reuse it (docs/templates.md).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=../../scripts/env.sh
source "$ROOT/scripts/env.sh"

examples=("$@")
((${#examples[@]})) || examples=(promptfoo-page code-execution polyglot tutorial)
for example in "${examples[@]}"; do
  [ -f "$HERE/$example/promptfooconfig.yaml" ] || { echo "run.sh: no example '$example' (promptfoo-page, code-execution, polyglot, tutorial)" >&2; exit 2; }
done
for tool in e2beval promptfoo; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is not installed: run scripts/setup.sh first" >&2; exit 2; }
done
[ -d "$ROOT/node_modules/@e2b/code-interpreter" ] || { echo "run.sh: @e2b/code-interpreter is not installed: run scripts/setup.sh --e2b first" >&2; exit 2; }

scratch="$(mktemp -d)"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"   # the server kills every sandbox it still has before it exits
    wait "$server_pid" || true
  fi
  rm -rf "$scratch"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

# --port 0: a free port, printed in the export lines. promptfoo runs four tests at once, each creating a
# sandbox: a creation rate above the default keeps the SDKs from waiting out 429s.
# Its log goes to stderr as it comes: the template's build, the first time, shows there.
e2beval serve --port 0 --creation-rate 50 >"$scratch/serve.out" 2> >(tee "$scratch/serve.err" >&2) &
server_pid=$!
until [ "$(grep -c '^export E2B_' "$scratch/serve.out" || true)" -ge 3 ]; do
  kill -0 "$server_pid" 2>/dev/null || { echo "run.sh: e2beval serve ended before it listened (its log is above)" >&2; exit 1; }
  sleep 0.1
done
while IFS='=' read -r name value; do
  export "${name#export }=$value"
done < <(grep '^export E2B_' "$scratch/serve.out")
echo "e2beval serve at $E2B_API_URL (pid $server_pid)"

status=0
for example in "${examples[@]}"; do
  echo
  echo "=== $example: promptfoo eval -c examples/e2b/$example/promptfooconfig.yaml"
  output=()
  if [ -n "${E2B_EXAMPLES_OUTPUT_DIR:-}" ]; then
    mkdir -p "$E2B_EXAMPLES_OUTPUT_DIR"
    output=(-o "$E2B_EXAMPLES_OUTPUT_DIR/$example.json")
  fi
  code=0
  (cd "$HERE/$example" && promptfoo eval -c promptfooconfig.yaml --no-cache --no-share --no-progress-bar "${output[@]}") || code=$?
  case "$code" in
    0) echo "=== $example: every test passed" ;;
    100) echo "=== $example: promptfoo exit code 100 (some tests fail on purpose: see examples/e2b/README.md)" ;;
    *) echo "=== $example: promptfoo failed to run (exit code $code)" >&2; status=1 ;;
  esac
done
exit "$status"
