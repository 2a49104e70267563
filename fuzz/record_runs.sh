# Sourced by fuzz/run_all.sh (libFuzzer targets) and fuzz/atheris/run.sh (atheris targets): what a long run
# of one fuzzer leaves behind, read from libFuzzer's log (atheris prints the same lines).

# record_run NAME LOG STATUS OUT: appends libFuzzer's "Done N runs in S second(s)" to OUT/totals.tsv and
# prints the rate; a run that exited non-zero or never finished prints what it found and returns 1.
record_run() {
  local t="$1" log="$2" status="$3" out="$4" done_line runs secs
  done_line="$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)"
  if [ "$status" -ne 0 ] || [ -z "$done_line" ]; then
    echo "fuzz_$t FAILED (exit $status): $log"
    grep -E 'ERROR|SUMMARY|runtime error|Uncaught|Test unit written|ALARM|out-of-memory' "$log" | head -8 || true
    return 1
  fi
  runs="$(echo "$done_line" | awk '{print $2}')"
  secs="$(echo "$done_line" | awk '{print $5}')"
  printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$runs" "$secs" >>"$out/totals.tsv"
  echo "fuzz_$t: $runs inputs in $secs s ($((runs / (secs > 0 ? secs : 1))) per second)"
}

# print_totals OUT: each target's inputs, seconds and runs summed over OUT/totals.tsv.
print_totals() {
  local out="$1"
  echo "Totals over every recorded run ($out/totals.tsv):"
  touch "$out/totals.tsv"
  awk -F'\t' '{ runs[$2] += $3; secs[$2] += $4; n[$2] += 1 }
    END { for (t in runs) printf "  %-16s %12d inputs  %7d s  %3d runs\n", t, runs[t], secs[t], n[t] }' "$out/totals.tsv" | sort
}
