#!/usr/bin/env bash
# The long soak test (not part of scripts/test.sh): thousands of sequential and concurrent executions,
# then checks that the supervisor's fds, memory, mounts, cgroups, processes and temp dirs did not grow.
# Usage: bash scripts/soak.sh [EXECUTIONS]   (default 5000)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
source "$ROOT/scripts/env.sh"
exec python "$ROOT/tests/soak/soak.py" "$@"
