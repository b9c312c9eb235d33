# Sourced by the project's scripts: where the project-local tools live and how promptfoo runs offline.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/.venv/bin:$ROOT/tools/promptfoo/node_modules/.bin:$PATH"
export PROMPTFOO_PYTHON="$ROOT/.venv/bin/python"
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
# promptfoo keeps its database and logs here instead of ~/.promptfoo.
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$ROOT/build/promptfoo-home}"
