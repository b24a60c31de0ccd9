#!/usr/bin/env bash
# Cross-compiles pqfast and its C++ tests for AArch64 and runs them under
# qemu-user, so the NEON kernels are checked against the scalar reference on
# this x86 machine. Called by scripts/test.sh when the cross compiler exists.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PQFAST_NEON_BUILD_DIR:-build/neon}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DPQFAST_BUILD_TESTS=ON -DPQFAST_BUILD_FUZZ=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
