#!/usr/bin/env bash
# Runs this promptfoo project: promptfoo evaluates the answers in promptfooconfig.yaml with e2beval's
# assertion, then the tutorial's report (promptfoo_report.md) is written from the eval's metrics files.
# Written by `e2beval init`. Extra arguments go to `promptfoo eval`, e.g. `bash run.sh -o out.json`.
# Exit status: promptfoo's (0 all passed, 100 a test failed), 2 or 127 when something is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# Found by `e2beval init`: the Python that has e2beval (promptfoo runs the assertion file with it), and
# promptfoo with the Node >= 22 it needs as e2beval's scripts/setup.sh installs them (empty: none found).
INIT_PYTHON=@E2BEVAL_PYTHON@
INIT_PROMPTFOO_BIN=@PROMPTFOO_BIN@
INIT_INSTALL=@E2BEVAL_INSTALL@  # how to install e2beval into another Python (it is not on PyPI)
INIT_E2BEVAL=@E2BEVAL_BIN@  # the e2beval that wrote this project (its `report` command makes other formats)

has_e2beval() { [ -n "$1" ] && "$1" -c "import e2beval.promptfoo" >/dev/null 2>&1; }
if has_e2beval "${PROMPTFOO_PYTHON:-}"; then
  python="$PROMPTFOO_PYTHON"
elif has_e2beval "$INIT_PYTHON"; then
  python="$INIT_PYTHON"
else
  echo "run.sh: no Python with e2beval found (tried ${PROMPTFOO_PYTHON:+\$PROMPTFOO_PYTHON=$PROMPTFOO_PYTHON and }${INIT_PYTHON:-nothing})." >&2
  echo "        Install e2beval into your Python ($INIT_INSTALL, or scripts/setup.sh in e2beval's checkout)" >&2
  echo "        and set PROMPTFOO_PYTHON to that interpreter's absolute path, or run e2beval init again with it." >&2
  exit 2
fi
export PROMPTFOO_PYTHON="$python"

# promptfoo from PATH when its Node is new enough, else the one e2beval's setup installed.
node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
promptfoo_usable() { command -v promptfoo >/dev/null 2>&1 && command -v node >/dev/null 2>&1 && [ "$(node_major)" -ge 22 ]; }
if ! promptfoo_usable && [ -n "$INIT_PROMPTFOO_BIN" ] && [ -x "$INIT_PROMPTFOO_BIN/promptfoo" ]; then
  export PATH="$INIT_PROMPTFOO_BIN:$PATH"
fi
if ! promptfoo_usable; then
  echo "run.sh: promptfoo with Node.js >= 22 was not found on PATH (node: $(command -v node || echo none), version $(node_major))." >&2
  echo "        Install Node.js 22 or newer and then promptfoo (npm install -g promptfoo), or run scripts/setup.sh" >&2
  echo "        in e2beval's checkout, which installs both under tools/promptfoo, and run e2beval init again." >&2
  exit 127
fi

export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1
status=0
promptfoo eval -c promptfooconfig.yaml --no-share "$@" || status=$?

# The report of this eval (the latest run in the metrics directory), written with the Python that has e2beval:
# nothing has to be on PATH. Only after an eval that ran its tests (0: all passed, 100: some failed).
results_dir="${PROMPTFOO_RESULTS_DIR:-.promptfoo_results}"
if [ "$status" -eq 0 ] || [ "$status" -eq 100 ]; then
  if [ -d "$results_dir" ]; then
    if rows=$("$python" -c 'import sys, e2beval.report as report; print(report.gen_report(sys.argv[1], "promptfoo_report.md"))' "$results_dir"); then
      echo "run.sh: wrote promptfoo_report.md ($rows results of this eval, from $results_dir)"
      if [ -x "$INIT_E2BEVAL" ]; then
        printf 'run.sh: the same as HTML with charts: %q report %q --format html\n' "$INIT_E2BEVAL" "$results_dir"
      fi
    else
      echo "run.sh: the report could not be written (see the message above); promptfoo's results are as printed" >&2
    fi
  else
    echo "run.sh: no metrics directory $results_dir (the assertion's metrics are off?): no report written" >&2
  fi
fi
exit "$status"
