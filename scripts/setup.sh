#!/usr/bin/env bash
# Sets up everything e2beval needs on Debian 12, from nothing: system packages (apt), a project-local
# Python virtualenv with e2beval built and installed in it (pip), promptfoo and Node 22 (npm, in
# tools/promptfoo), with --e2b or --tests the official E2B SDKs (pip, and npm in node_modules). Idempotent: a second run only rebuilds what changed.
#   scripts/setup.sh           what the demo needs (scripts/demo.sh)
#   scripts/setup.sh --e2b     and the official E2B SDKs (PyPI and npm, pinned), for examples/e2b
#   scripts/setup.sh --tests   and what only the tests need (scripts/test.sh): their apt packages, pytest, the
#                              E2B SDKs, the C++ tests built in the same build tree, and the compiled languages'
#                              toolchains (Go, Rust, a JDK and javatuples, TypeScript; docs/toolchains.md)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
for_tests=0
for_e2b=0
case "${1:-}" in
  --tests) for_tests=1 ;;
  --e2b) for_e2b=1 ;;
  "") ;;
  *) echo "setup.sh: unknown argument '$1' (none, --e2b or --tests)" >&2; exit 2 ;;
esac

# ---- 1. system packages ----------------------------------------------------------------------------
APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git ca-certificates
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libssl-dev libseccomp-dev zlib1g-dev
  python3 python3-dev python3-venv
)
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)
if [ "$for_tests" = 1 ]; then
  APT_PACKAGES+=(
    doctest-dev  # the C++ tests (tests/cpp)
    chromium     # headless, for the HTML report's screenshot test (tests/integration/test_report_screenshot.py)
  )
fi

# The compiled languages' toolchains (--tests; the demo runs none of them): each from Debian's packages when the
# machine has none on PATH. A machine that has its own (this project's CI image: Go in /usr/local/go, Rust from
# rustup in ~/.cargo) keeps it: e2beval runs whichever it finds (docs/toolchains.md). gcc and g++ come with
# build-essential above. They are installed in the background, beside the C++ build (section 2).
TOOLCHAIN_PACKAGES=()
if [ "$for_tests" = 1 ]; then
  command -v go >/dev/null 2>&1 || TOOLCHAIN_PACKAGES+=(golang-go)
  command -v rustc >/dev/null 2>&1 || TOOLCHAIN_PACKAGES+=(rustc)
  { command -v javac && command -v java; } >/dev/null 2>&1 || TOOLCHAIN_PACKAGES+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null 2>&1 || TOOLCHAIN_PACKAGES+=(maven)  # fetches javatuples (section 2)
fi

missing_packages() {  # missing_packages PACKAGE...: those not installed, one per line
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
  done
}
apt_updated=0
apt_install() {  # apt_install PACKAGE...: as root, or through sudo
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { say "missing packages: $*; install them as root (apt-get install $*)"; return 1; }
    sudo="sudo"
  fi
  [ "$apt_updated" = 1 ] || $sudo apt-get update -qq
  apt_updated=1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
mapfile -t missing < <(missing_packages "${APT_PACKAGES[@]}")
if ((${#missing[@]})); then
  say "installing system packages: ${missing[*]}"
  apt_install "${missing[@]}"
else
  say "system packages: all present"
fi

# ---- 2. npm: promptfoo and the Node 22 it needs, the official E2B JavaScript SDKs -----------------------
# Installs that mostly download and unpack (npm's here, pip's of the tests' packages below) run in the background
# while the C++ compiles, each into a log of its own that is shown when it fails.
mkdir -p build/setup-logs
background_jobs=()
background_logs=()
background_names=()
in_background() {  # in_background NAME LOG COMMAND...: COMMAND in the background, its output in build/setup-logs/LOG
  local name="$1" log="$ROOT/build/setup-logs/$2"
  shift 2
  set -m  # a process group of its own, so that the trap below ends all of it, not only this subshell
  "$@" >"$log" 2>&1 &
  background_jobs+=($!)
  set +m
  background_logs+=("$log")
  background_names+=("$name")
}
npm_install() {  # npm_install DIRECTORY [ARGUMENT...]: `npm install` of DIRECTORY's lock, then a stamp
  # `npm install` rather than `npm ci`: npm's lock files omit other platforms' optional packages, which
  # makes `npm ci` refuse a lock written on another machine. --no-save: installs what the lock pins but
  # never rewrites it (a newer npm added other platforms' entries, leaving the checkout modified).
  # --prefer-offline: what npm's cache holds is taken without asking the registry again (the lock pins versions
  # and integrity hashes, so nothing newer could be wanted), the rest is downloaded.
  # The stamp holds the arguments, so that an install made another way is made again.
  local directory="$1"
  shift
  cd "$directory" && npm install --no-save --no-audit --no-fund --prefer-offline --loglevel=error "$@" &&
    printf '%s' "$*" >node_modules/.e2beval-installed
}
# promptfoo without its optional packages (other providers' SDKs and binaries: 544 of 931 packages, 1.2 of 1.6 GB),
# but with the native bindings it needs, which are optional packages too (tools/promptfoo/native-bindings.cjs).
if ! promptfoo_bindings="$(node "$ROOT/tools/promptfoo/native-bindings.cjs" "$ROOT/tools/promptfoo/package-lock.json")"; then
  say "promptfoo cannot be installed on this machine: its lock has no native bindings for it (see above)"
  exit 1
fi
# shellcheck disable=SC2206  # one package per word
promptfoo_arguments=(--omit=optional $promptfoo_bindings)
NODE_BIN="$ROOT/tools/promptfoo/node_modules/.bin"
stamp="$ROOT/tools/promptfoo/node_modules/.e2beval-installed"
if [ ! -f "$stamp" ] || [ "$ROOT/tools/promptfoo/package-lock.json" -nt "$stamp" ] ||
  [ "$(cat "$stamp")" != "${promptfoo_arguments[*]}" ]; then
  say "installing promptfoo and node@22 into tools/promptfoo in the background (npm install, versions pinned by package-lock.json)"
  in_background "npm install (promptfoo)" promptfoo.log npm_install "$ROOT/tools/promptfoo" "${promptfoo_arguments[@]}"
else
  say "promptfoo: already installed"
fi
# The E2B SDKs go at the repository's root (package.json): Node resolves `import '@e2b/code-interpreter'` from the
# importing file's directory upwards, so tests/serve/js and examples/e2b (and promptfoo loading the examples'
# .js files) all find this one node_modules.
stamp="$ROOT/node_modules/.e2beval-installed"
if [ "$for_tests" = 0 ] && [ "$for_e2b" = 0 ]; then
  say "E2B JavaScript SDKs: not needed by the demo (scripts/setup.sh --e2b or --tests installs them)"
elif [ ! -f "$stamp" ] || [ "$ROOT/package-lock.json" -nt "$stamp" ] || [ "$ROOT/package.json" -nt "$stamp" ]; then
  say "installing the E2B JavaScript SDKs (@e2b/code-interpreter, e2b) into node_modules in the background (pinned by package-lock.json)"
  in_background "npm install (the E2B JavaScript SDKs)" e2b-sdks.log npm_install "$ROOT"
else
  say "E2B JavaScript SDKs: already installed"
fi
# The compiled languages' toolchains (--tests): the apt packages chosen in section 1, then javatuples 1.2, which
# MultiPL-E's Java tests import, through Maven's own client (pinned plugin, a project-local repository under build/,
# the jar's checksum checked) into tools/java; TypeScript from npm, pinned by tools/typescript/package-lock.json.
JAVATUPLES_JAR="$ROOT/tools/java/javatuples-1.2.jar"
JAVATUPLES_SHA256=2eda5b19d9820e1cc2f69fcd01639a715a673c11f8507e3d1ed593cf765d5e0a
javatuples_present() { [ -f "$JAVATUPLES_JAR" ] && echo "$JAVATUPLES_SHA256  $JAVATUPLES_JAR" | sha256sum -c --status; }
install_toolchains() {  # install_toolchains PACKAGE...: apt's, then javatuples when it is missing
  if (($#)); then
    echo "apt-get install $*"
    # Deaf to the TERM that ends the background jobs when the script fails early: a dpkg cut off half-way leaves
    # the system's packages broken ("dpkg was interrupted"); a finished install only leaves packages installed.
    (
      trap '' TERM
      apt_install "$@"
    )
  fi
  if ! javatuples_present; then
    rm -f "$JAVATUPLES_JAR"
    echo "mvn dependency:copy org.javatuples:javatuples:1.2"
    mvn -q -B -Dmaven.repo.local="$ROOT/build/maven-repository" \
      org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      -Dartifact=org.javatuples:javatuples:1.2 -DoutputDirectory="$ROOT/tools/java"
    javatuples_present || { echo "$JAVATUPLES_JAR: not the jar expected (sha256 $JAVATUPLES_SHA256)"; return 1; }
  fi
}
if [ "$for_tests" = 1 ]; then
  if ((${#TOOLCHAIN_PACKAGES[@]})) || ! javatuples_present; then
    say "installing the compiled languages' toolchains in the background:" \
      "${TOOLCHAIN_PACKAGES[*]:-no apt package missing}$(javatuples_present || echo ", javatuples 1.2 (Maven)")"
    in_background "the toolchains (apt, Maven)" toolchains.log install_toolchains "${TOOLCHAIN_PACKAGES[@]}"
  else
    say "toolchains: Go, Rust, a JDK, Maven and javatuples present"
  fi
  stamp="$ROOT/tools/typescript/node_modules/.e2beval-installed"
  if [ ! -f "$stamp" ] || [ "$ROOT/tools/typescript/package-lock.json" -nt "$stamp" ]; then
    say "installing TypeScript into tools/typescript in the background (npm install, pinned by package-lock.json)"
    in_background "npm install (TypeScript)" typescript.log npm_install "$ROOT/tools/typescript"
  else
    say "TypeScript: already installed"
  fi
fi
# A failure below (set -e) does not leave an npm running.
trap 'for job in "${background_jobs[@]}"; do kill -- "-$job" 2>/dev/null || true; done' EXIT

# ---- 3. Python: a project-local virtualenv with e2beval built into it ---------------------------------
PYTHON="${E2BEVAL_SETUP_PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv .venv
fi
VENV_PY="$ROOT/.venv/bin/python"
# What the build needs (the demo needs nothing else from PyPI: promptfoo runs e2beval's assertion with .venv's
# Python, which imports only e2beval and the standard library).
if ! "$VENV_PY" -c "import scikit_build_core, pybind11" >/dev/null 2>&1; then
  say "installing Python build dependencies"
  # pip 23.1 or newer for `-C` (config settings) below; Debian 12's venv has 23.0.1, so it is upgraded there only.
  if ! "$VENV_PY" -c "import pip, sys; sys.exit(tuple(map(int, pip.__version__.split('.')[:2])) < (23, 1))"; then
    "$VENV_PY" -m pip install -q --upgrade pip
  fi
  "$VENV_PY" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12"
fi
# The tests' (--tests) and the E2B examples' (--e2b). The official E2B SDKs are pinned: tests check
# e2beval.Sandbox against their API and run them unchanged against `e2beval serve` (tests/serve; docs/serve.md
# names the versions tested).
if [ "$for_tests" = 1 ] || [ "$for_e2b" = 1 ]; then
  if ! "$VENV_PY" -c "import pytest, xdist, yaml, PIL, e2b_code_interpreter, importlib.metadata as m; assert m.version('e2b') == '2.63.0'; assert m.version('sandbox-fusion') == '0.3.7'" >/dev/null 2>&1; then
    # In the background beside the C++ build, which needs none of them (the wheel it installs has no dependencies).
    say "installing Python test dependencies and the E2B SDKs in the background"
    in_background "pip install (the tests' packages and the E2B SDKs)" python-packages.log \
      "$VENV_PY" -m pip install -q "pytest>=7" "pytest-xdist>=3" "PyYAML>=6" "Pillow>=10" \
      "e2b-code-interpreter==2.11.5" "e2b==2.63.0" "sandbox-fusion==0.3.7"
  fi
fi
# ---- 4. e2beval, built and installed into .venv -------------------------------------------------------
# One build tree, build/cpp, serves the module and the CLI (this wheel), the C++ tests (built here too with
# --tests) and the consumers' install (tests/consumers/run.sh): each source is
# compiled once. docs/building.md.
say "building and installing e2beval into .venv (incremental: build/cpp)"
export CMAKE_GENERATOR=Ninja
BUILD_SETTINGS=(-C "build-dir=$ROOT/build/cpp")
[ "$for_tests" = 1 ] && BUILD_SETTINGS+=(-C cmake.define.E2BEVAL_BUILD_TESTS=ON)
"$VENV_PY" -m pip install -q --no-build-isolation "${BUILD_SETTINGS[@]}" "$ROOT"

for index in "${!background_jobs[@]}"; do
  if ! wait "${background_jobs[$index]}"; then
    cat "${background_logs[$index]}" >&2
    say "${background_names[$index]} failed (its output is above; the log: ${background_logs[$index]})"
    exit 1
  fi
done
trap - EXIT
say "ready: $("$ROOT/.venv/bin/e2beval" --version), promptfoo $(PATH="$NODE_BIN:$PATH" PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 promptfoo --version 2>/dev/null | tail -n1), node $("$NODE_BIN/node" --version)"
