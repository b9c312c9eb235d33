#!/usr/bin/env bash
# What a from-scratch build of the library, the Python module and the CLI costs (the build `pip install .` does),
# with ccache off: wall time, CPU seconds in total and per translation unit, the ten costliest units.
#
#   scripts/build_time.sh                 the working tree
#   scripts/build_time.sh --compare [REF] the working tree, then REF (default: HEAD^) in the same run
#   scripts/build_time.sh --ref REF       REF only
#   options: -j N (parallel jobs, default: ninja's), --top N (units listed, default 10), --keep (keep the trees)
#
# CPU time (user + system of each compiler and linker process, from bash's `times`) is what to compare on a
# machine shared with other builds: wall time there depends on the neighbours, CPU time hardly. Each build is
# configured as the ref's own pyproject.toml configures `pip install .` (its cmake.build-type and
# cmake.define), with the module and the CLI on and the tests off. The trees go in build/build-time/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
refs=()
measure_worktree=1
jobs=()
top=10
keep=0
while (($#)); do
  case "$1" in
    --compare) shift; if (($#)) && [[ "$1" != -* ]]; then refs+=("$1"); shift; else refs+=("HEAD^"); fi ;;
    --ref) [ $# -ge 2 ] || usage; refs+=("$2"); measure_worktree=0; shift 2 ;;
    -j) [ $# -ge 2 ] || usage; jobs=(-j "$2"); shift 2 ;;
    --top) [ $# -ge 2 ] || usage; top="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage ;;
    *) echo "build_time.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
for ref in "${refs[@]}"; do
  git rev-parse --verify -q "$ref^{commit}" >/dev/null || { echo "build_time.sh: '$ref' is not a commit in this repository" >&2; exit 2; }
done

PYTHON="$ROOT/.venv/bin/python"
[ -x "$PYTHON" ] || { echo "build_time.sh: no .venv: run scripts/setup.sh first (the module's build needs its pybind11)" >&2; exit 1; }
PYBIND11_DIR="$("$PYTHON" -m pybind11 --cmakedir)"
WORK="$ROOT/build/build-time"
mkdir -p "$WORK"
export CCACHE_DISABLE=1

# The compiler and linker launcher: runs the command, then appends "cpu_seconds output_file" to $TIMING_LOG.
LAUNCHER="$WORK/timed"
cat >"$LAUNCHER" <<'SH'
#!/usr/bin/env bash
out=""; previous=""
for argument in "$@"; do [ "$previous" = "-o" ] && out="$argument"; previous="$argument"; done
"$@"; status=$?
# `times`' second line: the user and system time of this shell's waited-for children (the compiler and the
# cc1plus and as it waits for), as "XmY.YYYs XmY.YYYs".
# Written to a file: `times` in a command substitution would report the subshell's children instead.
times >"$TIMING_LOG.$$"
cpu="$(tail -n 1 "$TIMING_LOG.$$" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%.2f", s }')"
rm -f "$TIMING_LOG.$$"
echo "$cpu $out" >>"$TIMING_LOG"
exit $status
SH
chmod +x "$LAUNCHER"

# cmake -D arguments for `pip install .` as REF's pyproject.toml (given as a file) configures it.
pyproject_defines() {
  "$PYTHON" - "$1" <<'PY'
import sys, tomllib
settings = tomllib.load(open(sys.argv[1], "rb")).get("tool", {}).get("scikit-build", {})
cmake = settings.get("cmake", {})
print(f"-DCMAKE_BUILD_TYPE={cmake.get('build-type', 'Release')}")
for name, value in cmake.get("define", {}).items():
    if isinstance(value, bool):
        value = "ON" if value else "OFF"
    print(f"-D{name}={value}")
PY
}

# measure LABEL SOURCE_DIR: a from-scratch build in $WORK/LABEL; prints a summary, leaves LABEL's figures in
# $WORK/LABEL.summary (wall cpu units) and $WORK/LABEL.units (cpu unit, costliest first).
measure() {
  local label="$1" source="$2" tree="$WORK/$1"
  rm -rf "$tree"
  local -a defines
  mapfile -t defines < <(pyproject_defines "$source/pyproject.toml")
  export TIMING_LOG="$WORK/$label.log"
  : >"$TIMING_LOG"
  echo "== $label: configuring ($source; ${defines[*]})" >&2
  cmake -S "$source" -B "$tree" -G Ninja -Wno-dev "${defines[@]}" \
    -DE2BEVAL_BUILD_PYTHON=ON -DE2BEVAL_BUILD_CLI=ON -DE2BEVAL_BUILD_TESTS=OFF \
    -DPython_EXECUTABLE="$PYTHON" -Dpybind11_DIR="$PYBIND11_DIR" \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$LAUNCHER" -DCMAKE_CXX_LINKER_LAUNCHER="$LAUNCHER" >"$WORK/$label.configure.log"
  echo "== $label: building (ccache off; load average before: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  local start end
  start="$(date +%s.%N)"
  cmake --build "$tree" -- "${jobs[@]}" >"$WORK/$label.build.log" ||
    { tail -n 30 "$WORK/$label.build.log" >&2; echo "build_time.sh: the build of $label failed" >&2; return 1; }
  end="$(date +%s.%N)"
  # Object and output paths relative to the tree; the units sorted by CPU.
  sed "s|$tree/||" "$TIMING_LOG" | sort -k1,1 -g -r >"$WORK/$label.units"
  awk -v wall="$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')" '{ cpu += $1; n++ } END { printf "%.1f %.1f %d\n", wall, cpu, n }' \
    "$WORK/$label.units" >"$WORK/$label.summary"
  read -r wall cpu count <"$WORK/$label.summary"
  echo "$label: wall ${wall} s, CPU ${cpu} s in ${count} compiles and links (ninja's own log: $tree/.ninja_log)"
  echo "  the $top costliest (CPU seconds):"
  head -n "$top" "$WORK/$label.units" | awk '{ printf "  %8.1f  %s\n", $1, $2 }'
  [ "$keep" = 1 ] || rm -rf "$tree"
}

labels=()
if [ "$measure_worktree" = 1 ]; then
  # A copy of the working tree's files (tracked, and untracked ones git does not ignore): edits made while
  # this runs do not reach the build.
  rm -rf "$WORK/worktree.src" && mkdir -p "$WORK/worktree.src"
  git ls-files -z --cached --others --exclude-standard | xargs -0 tar -c --ignore-failed-read 2>/dev/null | tar -x -C "$WORK/worktree.src"
  measure worktree "$WORK/worktree.src"
  [ "$keep" = 1 ] || rm -rf "$WORK/worktree.src"
  labels+=(worktree)
fi
for ref in "${refs[@]}"; do
  label="ref-$(git rev-parse --short "$ref")"
  rm -rf "$WORK/$label.src" && mkdir -p "$WORK/$label.src"
  git archive "$ref" | tar -x -C "$WORK/$label.src"
  measure "$label" "$WORK/$label.src"
  [ "$keep" = 1 ] || rm -rf "$WORK/$label.src"
  labels+=("$label")
done

if ((${#labels[@]} > 1)); then
  echo
  echo "== side by side"
  printf '%-22s %10s %10s %8s\n' build wall_s cpu_s units
  for label in "${labels[@]}"; do
    read -r wall cpu count <"$WORK/$label.summary"
    printf '%-22s %10s %10s %8s\n' "$label" "$wall" "$cpu" "$count"
  done
fi
