#!/usr/bin/env bash
# Runs the atheris fuzzers of cubridge's Python glue (fuzz/atheris/fuzz_*.py) against the installed
# package, one after another (each uses one core). CI runs each for a few seconds (scripts/test); long runs
# use the same script: what each finds stays in build/fuzz-atheris/corpus_<name>/ between runs, its log in
# build/fuzz-atheris/logs/, its input count ("Done N runs in S second(s)") in build/fuzz-atheris/totals.tsv,
# and the script ends with each target's total over every run recorded there (issue 25 asks for 10^7).
# Usage: fuzz/atheris/run.sh [seconds per target, default 600] [target ...]   e.g. fuzz/atheris/run.sh 5 cai
# Environment: PYTHON (default python), FUZZ_RSS_MB (default 2048), FUZZ_NICE (default 10), FUZZ_OUT (the
# output folder), LD_PRELOAD (for an ASan build of the extension: clang's libclang_rt.asan, see bench/NOTES.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-600}"
shift $(($# > 0 ? 1 : 0))
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cd fuzz/atheris && ls fuzz_*.py | sed 's/^fuzz_//; s/\.py$//')
fi
python="${PYTHON:-python}"
out="$(realpath -m "${FUZZ_OUT:-build/fuzz-atheris}")"
mkdir -p "$out/logs"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus_$t"
  log="$out/logs/$t-$(date -u +%Y%m%dT%H%M%SZ).log"
  status=0
  # Crash inputs are written beside the log (-artifact_prefix), never into the source tree.
  (cd fuzz/atheris && nice -n "${FUZZ_NICE:-10}" "$python" "fuzz_$t.py" -max_total_time="$seconds" -max_len=4096 \
    -timeout=20 -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -print_final_stats=1 -artifact_prefix="$out/logs/$t-" \
    "$out/corpus_$t") >"$log" 2>&1 || status=$?
  done_line="$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)"
  if [ "$status" -ne 0 ] || [ -z "$done_line" ]; then
    failed=1
    echo "atheris fuzz_$t FAILED (exit $status): $log"
    grep -E 'ERROR|Uncaught|Error|Traceback|SUMMARY|Test unit written|ALARM|out-of-memory' "$log" | head -8 || true
    continue
  fi
  runs="$(echo "$done_line" | awk '{print $2}')"
  secs="$(echo "$done_line" | awk '{print $5}')"
  printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$runs" "$secs" >>"$out/totals.tsv"
  echo "atheris fuzz_$t: $runs inputs in $secs s ($((runs / (secs > 0 ? secs : 1))) per second)"
done
echo "Totals over every recorded run ($out/totals.tsv):"
touch "$out/totals.tsv"
awk -F'\t' '{ runs[$2] += $3; secs[$2] += $4; n[$2] += 1 }
  END { for (t in runs) printf "  %-16s %12d inputs  %7d s  %3d runs\n", t, runs[t], secs[t], n[t] }' "$out/totals.tsv" | sort
exit "$failed"
