#!/usr/bin/env bash
# README command one: set everything up, then run the promptfoo example through the real `promptfoo eval`
# with e2beval's assertion on the local backend, write the tutorial's report and the HTML one, and show
# what the red-team corpus does against the scanner and the sandbox.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
source "$ROOT/scripts/env.sh"
cd "$ROOT"

out="$ROOT/build/demo"
rm -rf "$out" && mkdir -p "$out"
export PROMPTFOO_RESULTS_DIR="$out/metrics"

echo
echo "== promptfoo eval: examples/promptfoo (recorded model answers, graded by e2beval in the local sandbox)"
status=0
promptfoo eval -c examples/promptfoo/promptfooconfig.yaml --no-cache --no-share --no-progress-bar \
  -o "$out/results.json" || status=$?
# promptfoo exits 100 when a test failed: this example has two answers that must fail.
if [ "$status" -ne 0 ] && [ "$status" -ne 100 ]; then
  echo "promptfoo eval failed with status $status" >&2
  exit "$status"
fi

echo
echo "== why each case passed or failed (e2beval's reasons, from $out/results.json)"
python - "$out/results.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]["results"]
for row in results:
    grading = row.get("gradingResult") or {}
    # promptfoo's own reason for a passing test is "All assertions passed"; e2beval's is the first component.
    components = grading.get("componentResults") or [grading]
    verdict = "PASS" if row.get("success") else "FAIL"
    reason = components[0].get("reason", row.get("error", "")).replace("\n", " | ")
    print(f"{verdict}  {row.get('testCase', {}).get('description', '?')}: {reason}")
PY

echo
echo "== the tutorial's report"
e2beval report --results-dir "$PROMPTFOO_RESULTS_DIR" --output "$ROOT/promptfoo_report.md"

echo
echo "== the HTML report (charts, a sortable table with code, findings and logs per case)"
e2beval report --format html "$out/results.json" --output "$out/report.html"
echo "open $out/report.html in a browser"

echo
echo "== e2beval redteam: adversarial model outputs through the scanner and the sandbox"
e2beval redteam | tail -n 2
