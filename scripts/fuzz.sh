#!/usr/bin/env bash
# Long fuzzing with libFuzzer (clang) under ASan + UBSan, every target in
# fuzz/ for SECONDS each (default 300). Not part of the default test run.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
SECONDS_EACH=${1:-300}; shift || true
BUILD=build/fuzz
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPQFAST_BUILD_FUZZ=ON -DPQFAST_SANITIZE=address,undefined >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
for t in "${targets[@]}"; do
  mkdir -p "$BUILD/corpus/$t"
  echo "== $t for ${SECONDS_EACH}s"
  "$BUILD/fuzz/$t" -max_total_time="$SECONDS_EACH" -print_final_stats=1 "$BUILD/corpus/$t" "fuzz/corpus/$t"
done
