# Sourced by scripts/gpu-test and scripts/gpu-bench on the GPU machine (no package registry there; its
# python3 is 3.12 with numba-cuda, CuPy, PyTorch, JAX, nanobind, scikit-build-core): builds the Python
# package into /tmp/cubridge-site and the C++ tests into build/gpu-cpp, logging under $log_dir.
set -euo pipefail
cubridge_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$cubridge_root"
out_dir="${1:-${CUBRIDGE_LOG_DIR:-${OUT:-$cubridge_root/build/gpu-logs}}}"
# Logs are written to log_dir and packed into one logs.tgz in out_dir at exit (the device tool
# returns at most 8 files), next to the summary the scripts print.
log_dir="$(mktemp -d /tmp/cubridge-logs.XXXX)"
mkdir -p "$out_dir"
trap 'tar czf "$out_dir/logs.tgz" -C "$log_dir" . 2>/dev/null || true' EXIT
export PATH="$PATH:/usr/local/cuda/bin"
export PYTHONUNBUFFERED=1
py="${CUBRIDGE_PYTHON:-python3}"
site=/tmp/cubridge-site

echo "== building the Python package ($($py --version)) into $site"
rm -rf "$site"
# CUBRIDGE_BENCH_HOOKS=1 (scripts/gpu-bench sets it) adds cubridge._bench, the benches' C++ timing loops.
bench_hooks=()
[ -z "${CUBRIDGE_BENCH_HOOKS:-}" ] || bench_hooks=(-C cmake.define.CUBRIDGE_BENCH_HOOKS=ON)
$py -m pip install -q --no-build-isolation --no-deps -C build-dir=build/gpu-py "${bench_hooks[@]}" --target "$site" . \
  >"$log_dir/build-python.log" 2>&1 || { tail -50 "$log_dir/build-python.log"; exit 1; }
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"

cubridge_build_cpp_tests() {
  local gtest_args=()
  # No GoogleTest package there: use Debian's source tree carried in .deps/googletest (see README).
  if [ -d "$cubridge_root/.deps/googletest" ]; then
    gtest_args=(-DCUBRIDGE_GTEST_SOURCE="$cubridge_root/.deps/googletest")
  fi
  echo "== building the C++ tests"
  cmake -S . -B build/gpu-cpp -G Ninja -DCUBRIDGE_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPython_EXECUTABLE="$(command -v $py)" "${gtest_args[@]}" >"$log_dir/build-cpp.log" 2>&1 &&
    ninja -C build/gpu-cpp >>"$log_dir/build-cpp.log" 2>&1 || { tail -60 "$log_dir/build-cpp.log"; return 1; }
}
