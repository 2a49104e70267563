#!/usr/bin/env bash
# Instructions per launch of host_launch.py's kernel on one argument kind, counted by callgrind: a run of N
# launches minus a run of none, divided by N, with the top functions by the same difference. Deterministic
# where wall-clock timings on a shared machine are not (OpenBLAS's threads and hash seeds fixed).
# Usage: [PYTHON=python] bench/host_driver/callgrind_launch.sh "KIND" [N]   (KIND as host_launch.py names it)
#        SHAPE="1 array" [LOADED=1] ... callgrind_launch.sh "KIND" [N]: host_lazy_launch.py's lazy @jit launch
#        (or with LOADED=1 its loaded kernel) on SHAPE as that script names it (run it once first: the first
#        run compiles, later ones read the code cache)
#        TOGGLE='*lazy_call*' ...: count only inside the functions matching it (callgrind's --toggle-collect: the
#        launch alone, without the Python loop around it); CG_TOP=N: list N functions (25)
#        HOST_NUMBA_STANDIN=1 CUBRIDGE_HOST_DEVICES=2 SHAPE=... callgrind_launch.sh "numba stand-in (reader)": the
#        numba reader on tests/python/arrays/numba_devicearray_standin.py's arrays (two stand-in devices keep the
#        allocations' ranges the memo needs)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON:-python3}"
kind="$1"
n="${2:-10000}"
work="$(mktemp -d)"
lib="$(PYTHON="$py" "$here/build.sh" "$work/libcuda.so")"
export CUBRIDGE_LIBCUDA="$lib" HOST_TORCHLIKE_DIR="$work" OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0
script=("$here/host_launch.py")
base=0
if [ -n "${SHAPE:-}" ]; then
  # The first lazy launches compile, load and fill caches whose cost differs from run to run: both runs
  # make 1,000 launches more than that before the difference is taken.
  script=("$here/host_lazy_launch.py" --shape "$SHAPE")
  base=1000
  if [ -n "${LOADED:-}" ]; then script+=(--loaded); fi
fi
for m in "$base" "$n"; do
  valgrind --tool=callgrind ${TOGGLE:+--toggle-collect="$TOGGLE"} --callgrind-out-file="$work/cg.$m" "$py" \
    "${script[@]}" --loop "$kind" -n "$m" \
    >/dev/null 2>&1
  callgrind_annotate --threshold=100 "$work/cg.$m" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | sed 's/ (.*%)  / /' \
    >"$work/cg.$m.txt"
done
"$py" - "$work" "$n" "$base" <<'PY'
import collections, sys
work, n, base = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def load(path):
    counts = collections.Counter()
    for line in open(path):
        ir, _, name = line.strip().partition(" ")
        counts[name[:150]] += int(ir.replace(",", ""))
    return counts
none, some = load(f"{work}/cg.{base}.txt"), load(f"{work}/cg.{n}.txt")
n -= base
print(f"instructions per launch: {(some['PROGRAM TOTALS'] - none['PROGRAM TOTALS']) / n:.0f}")
rows = sorted(((some[k] - none[k]) / n, k) for k in some if k != "PROGRAM TOTALS")
for per, name in reversed(rows[-int(__import__("os").environ.get("CG_TOP", "25")):]):
    print(f"{per:9.1f} {name}")
PY
rm -rf "$work"
