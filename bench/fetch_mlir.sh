#!/usr/bin/env bash
# Brings numba-cuda-mlir (numba-cuda's successor, a peer of bench/bench_launch.py and bench/bench_compile_corpus.py)
# to the GPU machine, which has no package registry: its wheel (71 MB) is over the device tool's 64 MiB carry
# limit, so the package folder is unpacked here and repacked as tar.xz (about 50 MB) into the git-ignored .mlir/.
#   here:            bash bench/fetch_mlir.sh            (then carry ".mlir" in the device call)
#   on the machine:  mkdir -p /tmp/mlir && tar xJf .mlir/numba_cuda_mlir-*.tar.xz -C /tmp/mlir
#                    export CUBRIDGE_BENCH_MLIR=/tmp/mlir   (bench/peer_process.py puts it on the child's PYTHONPATH)
# Its other dependencies (cuda-bindings 13, cuda-core, numpy) are on the GPU machine already.
set -euo pipefail
version="${1:-0.6.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d "$work" "numba-cuda-mlir==$version"
unzip -q "$work"/numba_cuda_mlir-*.whl -d "$work/unpacked"
mkdir -p "$root/.mlir"
grep -qx '/.mlir/' "$root/.git/info/exclude" 2>/dev/null || echo '/.mlir/' >> "$root/.git/info/exclude"
tar -C "$work/unpacked" -cf - . | xz -6 -T0 > "$root/.mlir/numba_cuda_mlir-$version.tar.xz"
ls -la "$root/.mlir"
