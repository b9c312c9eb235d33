#!/usr/bin/env bash
# Every place that reports e2beval's version reports the one written in include/e2beval/version.hpp:
# the installed CMake package, the pkg-config module, the CLI, the Python module and the Python package's
# metadata (pyproject.toml). Usage: check_versions.sh ROOT PREFIX (an install prefix of e2beval).
set -uo pipefail
ROOT="$1"
PREFIX="$2"

written="$(sed -n 's/^#define E2BEVAL_VERSION "\(.*\)"$/\1/p' "$ROOT/include/e2beval/version.hpp")"
if [ -z "$written" ]; then
    echo "include/e2beval/version.hpp has no line #define E2BEVAL_VERSION \"X.Y.Z\""
    exit 1
fi
echo "include/e2beval/version.hpp: $written"

mismatches=0
# agree WHERE REPORTED: compares one report with the written version.
agree() {
    if [ "$2" = "$written" ]; then
        echo "$1: $2"
    else
        echo "$1: '$2', but version.hpp says $written"
        mismatches=$((mismatches + 1))
    fi
}

agree "installed e2bevalConfigVersion.cmake" \
    "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$PREFIX/lib/cmake/e2beval/e2bevalConfigVersion.cmake")"
agree "pkg-config --modversion e2beval" "$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --modversion e2beval)"
if ! command -v e2beval >/dev/null; then
    echo "no e2beval CLI on PATH: run scripts/setup.sh (it installs e2beval into .venv), then source scripts/env.sh"
    exit 1
fi
agree "e2beval --version" "$(e2beval --version | sed -n 's/^e2beval //p')"
agree "e2beval.__version__" "$(python -c 'import e2beval; print(e2beval.__version__)')"
agree "the Python package's metadata" "$(python -c 'import importlib.metadata as m; print(m.version("e2beval"))')"
[ "$mismatches" -eq 0 ]
