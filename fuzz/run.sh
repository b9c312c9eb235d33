#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) and fuzzes each target in parallel; -fork=1
# -ignore_crashes=1 keeps going after a crash, so one run finds several. Crash inputs land in
# build/fuzz/artifacts/; copy them into fuzz/regressions/, where tests/cpp/test_fuzz_regressions.cpp replays
# them in the normal test build.
#   bash fuzz/run.sh                  # every target: extract and scan for FUZZ_SECONDS (default 660),
#                                     # request for FUZZ_REQUEST_SECONDS (default 30: a short run)
#   bash fuzz/run.sh request          # only the named targets
#   FUZZ_REQUEST_SECONDS=600 bash fuzz/run.sh request   # a longer run of the server's request parsing
# Targets: extract (CodeExtractor), scan (SafetyScanner), request (`e2beval serve`'s request parsing: Beast's
# parser, JSON, multipart, Connect envelopes, URLs; fuzz/fuzz_request.cpp).
# Needs: apt-get install -y clang libclang-rt-14-dev (Debian's clang 14; libFuzzer and the sanitizer runtimes
# are in libclang-rt-14-dev, which clang only recommends).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=build/fuzz
mkdir -p "$OUT" "$OUT/artifacts"
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(extract scan request)
FLAGS="-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc"
ANALYSIS_SOURCES="src/analysis/extract.cpp src/analysis/safety.cpp src/analysis/c_family_tokenizer.cpp src/analysis/c_family_scan.cpp
  src/analysis/rules/*.cpp src/core/text.cpp src/core/error.cpp src/core/types.cpp src/core/languages.cpp src/core/languages/*.cpp"
SERVER_SOURCES="src/server/request_json.cpp src/server/multipart.cpp src/server/connect_protocol.cpp"
for target in "${TARGETS[@]}"; do
  case "$target" in
    extract|scan)
      clang++ $FLAGS fuzz/fuzz_$target.cpp $ANALYSIS_SOURCES -o "$OUT/fuzz_$target" ;;
    request)
      # http_exchange.cpp only writes answers (the harness needs its json_response); its coroutines trip clang
      # 14's assembler under the fuzzer's instrumentation ("Cannot represent a difference across sections"),
      # so it is built plain and linked in uninstrumented, with the stream it writes on (server_stream.cpp).
      clang++ -std=c++20 -O1 -Iinclude -Isrc -DBOOST_ASIO_NO_DEPRECATED -c src/server/http_exchange.cpp -o "$OUT/http_exchange.o"
      clang++ -std=c++20 -O1 -Iinclude -Isrc -DBOOST_ASIO_NO_DEPRECATED -c src/server/server_stream.cpp -o "$OUT/server_stream.o"
      clang++ $FLAGS -DBOOST_ASIO_NO_DEPRECATED fuzz/fuzz_request.cpp $SERVER_SOURCES "$OUT/http_exchange.o" "$OUT/server_stream.o" \
        -o "$OUT/fuzz_request" -lboost_json -lboost_url -lssl -lcrypto ;;
    *) echo "fuzz/run.sh: unknown target '$target' (extract, scan, request)" >&2; exit 2 ;;
  esac
done
for target in "${TARGETS[@]}"; do
  mkdir -p "$OUT/corpus_$target"
  seconds="${FUZZ_SECONDS:-660}"
  # Seeds: realistic inputs (fuzz/corpus_seed: answers and programs; fuzz/corpus_request: the requests the
  # E2B SDKs send, each after a selector byte) and the regression inputs.
  seeds="fuzz/corpus_seed fuzz/regressions"
  if [ "$target" = request ]; then seconds="${FUZZ_REQUEST_SECONDS:-30}"; seeds="fuzz/corpus_request"; fi
  timeout $((seconds + 60)) "$OUT/fuzz_$target" "$OUT/corpus_$target" $seeds \
    -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -fork=1 -ignore_crashes=1 \
    -artifact_prefix="$OUT/artifacts/${target}-" -print_final_stats=1 > "$OUT/fuzz_$target.log" 2>&1 &
done
wait
for target in "${TARGETS[@]}"; do tail -n 15 "$OUT/fuzz_$target.log"; done
