#!/usr/bin/env bash
# The A/B of bench/ab_launch.py on the GPU machine: a start commit (a git archive made here, carried in an ignored
# folder) against the checkout, each built with the bench hooks, then one process per build and round, rounds
# alternating, so that the host's drift weighs on both alike.
#   here:            mkdir -p .ab && echo /.ab/ >> .git/info/exclude && git archive START | xz -6 -T0 > .ab/start.tar.xz
#   device tool:     run(command="bash bench/ab_run.sh $OUT 3", carry=[".ab"])
# usage: bash bench/ab_run.sh OUT [ROUNDS [BATCHES [PER_BATCH]]]   (defaults 3, 15, 1000: the issue's batches)
set -euo pipefail
out="$1"; rounds="${2:-3}"; batches="${3:-15}"; per="${4:-1000}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[ -f .ab/start.tar.xz ] || { echo "bench/ab_run.sh: no .ab/start.tar.xz (see this script's opening comment)" >&2; exit 2; }
export PATH="$PATH:/usr/local/cuda/bin"
rm -rf /tmp/ab-start && mkdir -p /tmp/ab-start && tar xJf .ab/start.tar.xz -C /tmp/ab-start
build() {  # build(source folder, build folder, site): the package with the bench hooks
  (cd "$1" && python3 -m pip install -q --no-build-isolation --no-deps -C build-dir="$2" \
     -C cmake.define.CUBRIDGE_BENCH_HOOKS=ON --target "$3" . --upgrade)
}
build /tmp/ab-start /tmp/ab-build-a /tmp/site-a > "$out/build-a.log" 2>&1 &
start_build=$!
build "$root" "$root/build/ab-b" /tmp/site-b > "$out/build-b.log" 2>&1
wait "$start_build" || { tail -30 "$out/build-a.log"; exit 1; }
for r in $(seq "$rounds"); do
  for b in a b; do
    PYTHONPATH=/tmp/site-$b python3 bench/ab_launch.py --label "$b$r" --json "/tmp/ab-$b$r.json" \
      --batches "$batches" --per-batch "$per" 2>&1 | tail -1
  done
done | tee "$out/ab.txt"
