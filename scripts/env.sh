# Sourced by the project's scripts: where the project-local tools live and how promptfoo runs offline.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/.venv/bin:$ROOT/tools/promptfoo/node_modules/.bin:$PATH"
export PROMPTFOO_PYTHON="$ROOT/.venv/bin/python"
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
# promptfoo keeps its database and logs here instead of ~/.promptfoo.
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$ROOT/build/promptfoo-home}"
# The compiled languages' project-local parts (scripts/setup.sh --tests, docs/toolchains.md): the pinned TypeScript
# compiler, and the jars MultiPL-E's Java tests import (javatuples), on the compile and run stages' class path.
if [ -f "$ROOT/tools/typescript/node_modules/typescript/bin/tsc" ]; then
  export E2BEVAL_TSC="${E2BEVAL_TSC:-$ROOT/tools/typescript/node_modules/typescript/bin/tsc}"
fi
if [ -f "$ROOT/tools/java/javatuples-1.2.jar" ]; then
  export E2BEVAL_JAVA_CLASSPATH="${E2BEVAL_JAVA_CLASSPATH:-$ROOT/tools/java/javatuples-1.2.jar}"
fi
