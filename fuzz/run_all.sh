#!/usr/bin/env bash
# Runs every fuzzer of fuzz/ for $1 seconds each (default 600) in a clang build with libFuzzer, ASan and
# UBSan (build/fuzz), keeping what each finds in build/fuzz/fuzz/corpus_<name>/ between runs, and prints
# how many inputs each ran. CI runs the same targets for a few seconds each (CTest fuzz.*, in scripts/test).
# Usage: fuzz/run_all.sh [seconds] [jobs]   e.g. fuzz/run_all.sh 3600 2
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
jobs="${2:-1}"
CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUBRIDGE_BUILD_FUZZERS=ON \
  -DCUBRIDGE_SANITIZE=address,undefined,fuzzer-no-link -DCUBRIDGE_FUZZ_SECONDS="$seconds" >/dev/null
ninja -C build/fuzz --quiet $(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 ctest --test-dir build/fuzz -R '^fuzz\.' -j"$jobs" \
  --output-on-failure -V 2>&1 | grep -E "stat::number_of_executed_units|fuzz\.[a-z_]+ \.|Passed|Failed|ERROR|SUMMARY" || true
