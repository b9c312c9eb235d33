#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) and fuzzes each target for FUZZ_SECONDS (default 660),
# both in parallel; -fork=1 -ignore_crashes=1 keeps going after a crash, so one run finds several. Crash
# inputs land in build/fuzz/artifacts/; copy them into fuzz/regressions/, where
# tests/cpp/test_fuzz_regressions.cpp replays them in the normal test build.
# Needs: apt-get install -y clang (Debian's clang 14 ships libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${FUZZ_SECONDS:-660}"
OUT=build/fuzz
mkdir -p "$OUT" "$OUT/artifacts"
SOURCES="src/analysis/extract.cpp src/analysis/safety.cpp src/core/text.cpp src/core/error.cpp src/core/types.cpp"
FLAGS="-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc"
for target in extract scan; do
  clang++ $FLAGS fuzz/fuzz_$target.cpp $SOURCES -o "$OUT/fuzz_$target"
done
for target in extract scan; do
  mkdir -p "$OUT/corpus_$target"
  # Seeds: fuzz/corpus_seed (a few realistic answers and programs) and the regression inputs.
  timeout $((SECONDS_PER_TARGET + 60)) "$OUT/fuzz_$target" "$OUT/corpus_$target" fuzz/corpus_seed fuzz/regressions \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -fork=1 -ignore_crashes=1 \
    -artifact_prefix="$OUT/artifacts/${target}-" -print_final_stats=1 > "$OUT/fuzz_$target.log" 2>&1 &
done
wait
tail -n 15 "$OUT"/fuzz_*.log
