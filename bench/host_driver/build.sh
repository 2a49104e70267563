#!/usr/bin/env bash
# Builds the host driver stand-in (host_libcuda.c) and prints the library's path, for CUBRIDGE_LIBCUDA.
# Used by profile.sh (host-side timings) and scripts/test (the memory and array layers' GPU tests on a
# machine without a GPU). With PYTHON set, also builds host_torchlike.c (a PyTorch-like exchange-table
# producer for host_launch.py) as an extension module next to OUTPUT.so.
# Usage: [PYTHON=python] bench/host_driver/build.sh [OUTPUT.so]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-${TMPDIR:-/tmp}/cubridge-host-libcuda.so}"
cuda_include="${CUDA_HOME:-/usr/local/cuda}/include"
cc -O2 -shared -fPIC -Wall -Wextra -Werror -I"$cuda_include" "$here/host_libcuda.c" -o "$out"
if [ -n "${PYTHON:-}" ]; then
  ext="$(dirname "$out")/host_torchlike$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
  py_include="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  cc -O2 -shared -fPIC -Wall -Wextra -Werror -I"$py_include" -I"$here/../../include" "$here/host_torchlike.c" -o "$ext"
fi
echo "$out"
