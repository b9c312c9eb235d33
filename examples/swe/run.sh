#!/usr/bin/env bash
# The SWE example in one command: build the fixtures (two real PyPI projects with a deliberate bug each, cached
# under build/swe-fixtures), then grade the recorded answers with the real `promptfoo eval`. Extra arguments go
# to promptfoo (e.g. `-o results.json`). promptfoo exits 100 because some answers must fail (see the config).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
source "$ROOT/scripts/env.sh"
python "$ROOT/scripts/swe_fixtures.py" >&2
cd "$HERE"
exec promptfoo eval -c promptfooconfig.yaml --no-cache --no-share --no-progress-bar -j 2 "$@"
