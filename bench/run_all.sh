#!/usr/bin/env bash
# Runs every e2beval benchmark (bench/*_bench.py) and prints one table: bench | figure | value | baseline |
# ratio | target | met?. Each ratio is against a baseline measured in the same run (see bench/README.md).
#
# Usage: bash bench/run_all.sh [--quick] [humaneval|latency|bwrap|session|serve|memory|promptfoo|swe|polyglot|sandbox_fusion ...]
#   --quick   fewer repeats (a smoke run; the figures are noisier)
# The bwrap bench's set-up (bench/setup_bwrap.sh) installs Debian's bubblewrap package when bwrap is missing.
# Exit status: 0 when every bench ran (a missed target is reported, not an error), 1 when a bench failed
# (e.g. a HumanEval canonical solution did not pass), 2 when a tool is missing.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
PY="$ROOT/.venv/bin/python"

missing() { echo "bench: $1 not found at $2: run \`bash scripts/setup.sh\` from $ROOT first" >&2; exit 2; }
[[ -x "$PY" ]] || missing "the project's Python (.venv)" "$PY"
[[ -x "$ROOT/.venv/bin/e2beval" ]] || missing "the e2beval command" "$ROOT/.venv/bin/e2beval"
"$PY" -c 'import e2beval' 2>/dev/null || missing "the e2beval Python module" "$PY"
[[ -x "$ROOT/tools/promptfoo/node_modules/.bin/promptfoo" ]] || missing "promptfoo" "$ROOT/tools/promptfoo/node_modules/.bin/promptfoo"

quick=0
benches=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    humaneval|latency|bwrap|session|serve|memory|promptfoo|swe|polyglot|sandbox_fusion) benches+=("$arg") ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument '$arg' (bench names: humaneval latency bwrap session serve memory promptfoo swe polyglot sandbox_fusion; option: --quick)" >&2; exit 2 ;;
  esac
done
[[ ${#benches[@]} -gt 0 ]] || benches=(humaneval latency bwrap session serve memory promptfoo swe polyglot sandbox_fusion)

quick_args() {
  case "$1" in
    humaneval) echo "--repeat 2 --naive-repeat 1" ;;
    latency) echo "--warm 100 --idle 10 --cold 30 --warm-batch 300 --cold-batch 60 --rounds 1" ;;
    bwrap) echo "--starts 20 --runs 10 --rounds 1" ;;
    session) echo "--sessions 15 --rounds 1" ;;
    serve) echo "--rounds 10 --concurrent 20" ;;
    memory) echo "--rounds 1" ;;
    promptfoo) echo "--rounds 1" ;;
    swe) echo "--rounds 2" ;;
    polyglot) echo "--rows 6 --k 3" ;;
    sandbox_fusion) echo "--quick" ;;
  esac
}

results="$(mktemp -d "${TMPDIR:-/tmp}/e2beval-bench.XXXXXX")"
trap 'rm -rf "$results"' EXIT

echo "e2beval bench: $(date -u '+%Y-%m-%d %H:%M UTC'); nproc $(nproc); $(uname -sr); $("$PY" -c 'import e2beval; print("e2beval", e2beval.__version__, "warm pool:", "yes" if hasattr(e2beval, "warm_up") else "not available")')"
echo
status=0
for bench in "${benches[@]}"; do
  if [[ $bench == bwrap ]]; then
    # the benches' own set-up, not CI's: a missing bwrap becomes visible n/a rows, with the reason
    E2BEVAL_BENCH_BWRAP_MISSING="$(bash "$BENCH/setup_bwrap.sh")"
    export E2BEVAL_BENCH_BWRAP_MISSING
  fi
  printf '\n== %s\n' "$bench" >&2
  extra=()
  [[ $quick -eq 1 ]] && read -r -a extra <<<"$(quick_args "$bench")"
  # SandboxFusion's own server as the baseline, where someone installed it (bench/README.md)
  [[ $bench == sandbox_fusion && -n ${E2BEVAL_SANDBOX_FUSION_DIR:-} ]] && extra+=(--sandbox-fusion "$E2BEVAL_SANDBOX_FUSION_DIR")
  # readable progress goes to stderr (the terminal); the one JSON result line to a file
  "$PY" "$BENCH/${bench}_bench.py" --json "${extra[@]}" >"$results/$bench.json" || status=1
done
echo >&2
files=()
for bench in "${benches[@]}"; do files+=("$results/$bench.json"); done
"$PY" "$BENCH/benchlib.py" table "${files[@]}" || status=1
exit $status
