#!/bin/sh
# Builds fuzz/fuzz_frontend with clang (libFuzzer + ASan + UBSan) and runs it for $1 seconds (default 60)
# on the seed corpus. Needs only the front-end sources: no CUDA library is linked.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${FUZZ_BUILD:-$root/build/fuzz}
mkdir -p "$out" "$out/corpus"
srcs="lexer parser typer typer_calls typing_rules types emit_stmt emit_expr emit_calls emit_module constant_text"
files=""
for s in $srcs; do files="$files $root/src/compiler/$s.cpp"; done
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" -I"$root/src" $files "$here/fuzz_frontend.cpp" -o "$out/fuzz_frontend"
cp "$here"/corpus_frontend/* "$out/corpus/" 2>/dev/null || true
"$out/fuzz_frontend" -max_total_time="${1:-60}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 "$out/corpus"
