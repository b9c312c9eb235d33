#!/usr/bin/env bash
# The benches' own set-up for their bubblewrap contender (issue 14): installs Debian's `bubblewrap` package
# when `bwrap` is missing. Called by bench/run_all.sh, never by CI's scripts/setup.sh: CI does not need a
# second sandbox, only the benches compare against one.
#
# Prints nothing on stdout when bwrap is (now) on PATH; otherwise prints one line saying why it is not,
# which run_all.sh hands to the bench (E2BEVAL_BENCH_BWRAP_MISSING) so its rows say
# `n/a (bubblewrap not installed: <why>)` instead of vanishing. Always exits 0: a missing contender is
# reported, not an error.
set -uo pipefail

command -v bwrap >/dev/null 2>&1 && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "no apt-get on this host; install bubblewrap by hand"
  exit 0
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "not root and no password-less sudo; run \`sudo apt-get install -y bubblewrap\`"
    exit 0
  fi
fi

echo "bench: installing Debian's bubblewrap package for the bwrap contender" >&2
log="$(mktemp "${TMPDIR:-/tmp}/e2beval-bench-bwrap.XXXXXX")"
trap 'rm -f "$log"' EXIT
if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q bubblewrap >"$log" 2>&1; then
  # the package lists may be missing or stale (a fresh container): refresh them once and retry
  "${sudo[@]}" apt-get update -q >>"$log" 2>&1
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q bubblewrap >>"$log" 2>&1
fi
if ! command -v bwrap >/dev/null 2>&1; then
  echo "apt-get install bubblewrap failed: $(grep -E '^(E|W):' "$log" | tail -1 | cut -c1-120)"
fi
exit 0
