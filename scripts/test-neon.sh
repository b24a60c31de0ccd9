#!/usr/bin/env bash
# Cross-compiles pqfast and its C++ tests for AArch64 and runs them under
# qemu-user, so the NEON kernels are checked against the scalar reference on
# this x86 machine. Called by scripts/test.sh when the cross compiler exists.
# PQFAST_NEON_SANITIZE=1 builds and runs them under AddressSanitizer +
# UndefinedBehaviorSanitizer instead (in build/neon-asan; LeakSanitizer is
# off: it cannot run under qemu-user).
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZE=()
if [ "${PQFAST_NEON_SANITIZE:-0}" = 1 ]; then
  BUILD=${PQFAST_NEON_BUILD_DIR:-build/neon-asan}
  SANITIZE=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPQFAST_SANITIZE=address,undefined)
  export ASAN_OPTIONS=detect_leaks=0  # also for the test discovery run at build time
else
  BUILD=${PQFAST_NEON_BUILD_DIR:-build/neon}
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DPQFAST_BUILD_TESTS=ON -DPQFAST_BUILD_FUZZ=ON "${SANITIZE[@]}" \
  -DPQFAST_ALLOW_MISSING_CODECS=ON >/dev/null  # no AArch64 codec libraries here: the kernels are what this checks
cmake --build "$BUILD" -j "$(nproc)"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
