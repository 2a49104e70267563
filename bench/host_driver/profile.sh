#!/usr/bin/env bash
# Times (and with --perf, profiles) cubridge's host-side allocation and launch paths on a machine without a GPU,
# against the host-memory driver stand-in host_libcuda.c. Needs cubridge installed (scripts/lib/setup.sh).
# Usage: bench/host_driver/profile.sh [--perf]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON:-python3}"
lib="$(PYTHON="$py" "$here/build.sh")"
export CUBRIDGE_LIBCUDA="$lib" OPENBLAS_NUM_THREADS=1 HOST_TORCHLIKE_DIR="$(dirname "$lib")"
$py "$here/host_paths.py"
$py "$here/host_launch.py"
if [ "${1:-}" = "--perf" ]; then
  data="${TMPDIR:-/tmp}/cubridge-host-paths.perf"
  perf record -g -o "$data" $py "$here/host_paths.py" --loop 2000000 2>/dev/null
  perf report -i "$data" --no-children --sort symbol -g none 2>/dev/null | grep '%' | head -30 | cut -c1-110
fi
