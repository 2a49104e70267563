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
source fuzz/record_runs.sh
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
  record_run "$t" "$log" "$status" "$out" || failed=1
done
print_totals "$out"
exit "$failed"
