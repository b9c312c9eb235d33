#!/usr/bin/env bash
# Checks that e2beval packages like a C++ library should (docs/cpp.md): installs it into a fresh prefix, then
# builds and runs consumer projects against it (find_package, add_subdirectory, pkg-config), and checks that
# every place that reports the version agrees and that docs/cpp.md shows the consumers' real code.
# Ends with "N passed, N failed"; exits non-zero when anything failed.
#
#   tests/consumers/run.sh         what scripts/test.sh (CI) runs: no library source is compiled again
#   tests/consumers/run.sh --all   and the add_subdirectory consumer built whole, which compiles the library a
#                                  second time, as its own project (about a minute and a half on 2 cores)
set -uo pipefail
full_add_subdirectory=0
case "${1:-}" in
  --all) full_add_subdirectory=1 ;;
  "") ;;
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "consumers: unknown argument '$1' (none, or --all)" >&2; exit 2 ;;
esac
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/consumers"
BUILD="$ROOT/build/consumers"  # kept between runs so rebuilds are incremental
PREFIX="$BUILD/prefix"          # emptied on every run: what is there was installed by this run
# The library is installed from the project's one build tree, the one scripts/setup.sh builds the module and
# the CLI in: nothing is compiled again for the install.
TREE="$ROOT/build/cpp"
LOGS="$BUILD/logs"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
# Release (no -g): ccache then reuses objects between build directories (it hashes the directory only with -g).
CMAKE_ARGS=(-G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev)
if command -v ccache >/dev/null; then CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
[ -f "$ROOT/scripts/env.sh" ] && source "$ROOT/scripts/env.sh"  # the e2beval CLI and Python of .venv

passed=0
failed=0
mkdir -p "$LOGS"

# check NAME COMMAND...: runs the command with its output in a log; on failure shows the log's end.
check() {
    local name="$1"; shift
    local log="$LOGS/$(echo "$name" | tr -c "A-Za-z0-9\n-" _).log"
    if "$@" >"$log" 2>&1; then
        echo "PASS  $name"
        passed=$((passed + 1))
    else
        echo "FAIL  $name (log: $log)"
        tail -n 25 "$log" | sed 's/^/      /'
        failed=$((failed + 1))
    fi
}

install_library() {
    rm -rf "$PREFIX"
    if [ ! -f "$TREE/CMakeCache.txt" ]; then
        echo "no build tree at $TREE: run scripts/setup.sh first (it builds the library there)"
        return 1
    fi
    cmake --build "$TREE" --target e2beval &&
        cmake --install "$TREE" --component development --prefix "$PREFIX"
}

# The installed tree holds the public headers only (no private src/ headers, no generated ones) and the
# CMake and pkg-config packages.
installed_tree_is_the_public_api() {
    local expected actual
    expected="$(cd "$ROOT/include" && find e2beval -name '*.hpp' | sort)"
    actual="$(cd "$PREFIX/include" && find . -type f | sed 's|^\./||' | sort)"
    if [ "$expected" != "$actual" ]; then
        echo "installed headers differ from include/e2beval/:"
        diff <(echo "$expected") <(echo "$actual")
        return 1
    fi
    local file
    for file in lib/cmake/e2beval/e2bevalConfig.cmake lib/cmake/e2beval/e2bevalConfigVersion.cmake \
                lib/cmake/e2beval/e2bevalTargets.cmake lib/pkgconfig/e2beval.pc lib/libe2beval.a; do
        [ -f "$PREFIX/$file" ] || { echo "missing from the install: $file"; return 1; }
    done
    # Consumers must not be told about the build tree's private include directories.
    if grep -n "$ROOT" "$PREFIX"/lib/cmake/e2beval/*.cmake; then
        echo "the installed package names the source or build tree"
        return 1
    fi
}

find_package_consumer() {
    rm -rf "$BUILD/find_package/CMakeCache.txt"
    cmake -S "$HERE/find_package" -B "$BUILD/find_package" "${CMAKE_ARGS[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" &&
        cmake --build "$BUILD/find_package" &&
        "$BUILD/find_package/harness"
}

# A project that builds e2beval as a subproject (add_subdirectory): it configures, e2beval defines only its
# library and adds nothing to its parent's install, and the consumer's own source compiles against what
# e2beval::e2beval gives it (include directories, definitions, the C++ standard). Building and running the whole
# consumer compiles every library source again, in the consumer's tree (ccache cannot reuse build/cpp's objects:
# a unity source's path, which ccache hashes, differs between the two trees); --all does it.
add_subdirectory_consumer() {
    cmake -S "$HERE/add_subdirectory" -B "$BUILD/add_subdirectory" "${CMAKE_ARGS[@]}" -DE2BEVAL_SOURCE_DIR="$ROOT" \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON || return 1
    # As a subproject, e2beval adds nothing to its parent's install.
    if grep -n "e2beval" "$BUILD/add_subdirectory/e2beval/cmake_install.cmake" | grep -v "^[0-9]*:#"; then
        echo "e2beval as a subproject added install rules to its parent"
        return 1
    fi
    if [ "$full_add_subdirectory" = 1 ]; then
        cmake --build "$BUILD/add_subdirectory" && "$BUILD/add_subdirectory/harness"
    else
        # The harness's compile command as the consumer's build would run it (compile_commands.json), run
        # alone: ninja's target for the object would first build what it is ordered after, the library's parts.
        (cd "$BUILD/add_subdirectory" && python3 - <<'PY'
import json, shlex, subprocess, sys
entries = [entry for entry in json.load(open("compile_commands.json")) if entry["file"].endswith("/harness.cpp")]
if len(entries) != 1:
    sys.exit(f"compile_commands.json has {len(entries)} commands for harness.cpp, not one")
command = entries[0].get("arguments") or shlex.split(entries[0]["command"])
print(" ".join(command), flush=True)
sys.exit(subprocess.run(command, cwd=entries[0]["directory"]).returncode)
PY
        )
    fi
}

pkg_config_consumer() {
    local compiler=(c++)
    command -v ccache >/dev/null && compiler=(ccache c++)
    local flags
    flags="$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs --static e2beval)" || return 1
    echo "pkg-config: $flags"
    mkdir -p "$BUILD/pkg_config"
    # shellcheck disable=SC2086  # the flags are words
    "${compiler[@]}" -std=c++20 -O2 -o "$BUILD/pkg_config/harness" "$HERE/harness.cpp" $flags &&
        "$BUILD/pkg_config/harness"
}

echo "== consumers of the C++ library (build/consumers; logs in $LOGS)"
check "install into a fresh prefix" install_library
check "installed tree is the public API" installed_tree_is_the_public_api
check "find_package consumer" find_package_consumer
if [ "$full_add_subdirectory" = 1 ]; then
  check "add_subdirectory consumer (built whole and run)" add_subdirectory_consumer
else
  check "add_subdirectory consumer (configured, its own source compiled; --all builds it whole)" add_subdirectory_consumer
fi
check "pkg-config consumer" pkg_config_consumer
check "one version everywhere" bash "$HERE/check_versions.sh" "$ROOT" "$PREFIX"
check "docs/cpp.md shows the consumers' code" python3 "$HERE/check_doc_snippets.py" "$ROOT"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
