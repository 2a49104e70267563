#!/usr/bin/env bash
# Runs the fuzzers of fuzz/ for long budgets, one after another (each uses one core), in the clang build
# with libFuzzer, ASan and UBSan (build/fuzz). What each finds stays in build/fuzz/fuzz/corpus_<name>/
# between runs (the seeds in fuzz/corpus_<name>/ are read, never written). Every run's libFuzzer output
# goes to build/fuzz/fuzz/logs/, its input count ("Done N runs in S second(s)") to build/fuzz/fuzz/totals.tsv,
# and the script ends with each target's total over every run recorded there (issue 13 asks for 10^7).
# CI runs the same targets for a few seconds each (CTest fuzz.*, scripts/test).
# Usage: fuzz/run_all.sh [seconds per target, default 600] [target ...]   e.g. fuzz/run_all.sh 3600 ipc xla
# Environment: FUZZ_RSS_MB (libFuzzer's -rss_limit_mb, default 2048), FUZZ_NICE (default 10), FUZZ_NO_BUILD=1
# (run the fuzzers as built, e.g. while another build uses the tree).
set -euo pipefail
cd "$(dirname "$0")/.."
source fuzz/record_runs.sh
seconds="${1:-600}"
shift $(($# > 0 ? 1 : 0))
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cd fuzz && ls fuzz_*.cpp | sed 's/^fuzz_//; s/\.cpp$//')
fi
build=build/fuzz
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUBRIDGE_BUILD_FUZZERS=ON \
    -DCUBRIDGE_SANITIZE=address,undefined,fuzzer-no-link >/dev/null
  ninja -C "$build" --quiet $(printf 'fuzz_%s ' "${targets[@]}")
fi
out="$build/fuzz"
mkdir -p "$out/logs"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus_$t"
  log="$out/logs/$t-$(date -u +%Y%m%dT%H%M%SZ).log"
  status=0
  # Crash inputs are written beside the log (-artifact_prefix), never into the source tree.
  ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n "${FUZZ_NICE:-10}" "$out/fuzz_$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -print_final_stats=1 -artifact_prefix="$out/logs/$t-" \
    "$out/corpus_$t" "fuzz/corpus_$t" >"$log" 2>&1 || status=$?
  record_run "$t" "$log" "$status" "$out" || failed=1
done
print_totals "$out"
exit "$failed"
