#!/usr/bin/env bash
# Runs every test: C++ (GoogleTest via ctest) and Python (pytest), on every
# SIMD implementation this CPU supports. Long differential runs:
# PQFAST_LONG_TESTS=1 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

BUILD=${PQFAST_BUILD_DIR:-build/dev}
PYBIN=$PWD/.venv/bin/python
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPQFAST_BUILD_TESTS=ON -DPQFAST_BUILD_PYTHON=ON -DPQFAST_PEERS=ON \
  -DPython_EXECUTABLE="$PYBIN" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"

echo "== C++ tests"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"

echo "== C++ tests and fuzz replays under AddressSanitizer + UndefinedBehaviorSanitizer"
ASAN_BUILD=${PQFAST_ASAN_BUILD_DIR:-build/asan}
cmake -S . -B "$ASAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPQFAST_BUILD_TESTS=ON -DPQFAST_BUILD_FUZZ=ON -DPQFAST_SANITIZE=address,undefined >/dev/null
cmake --build "$ASAN_BUILD" -j "$(nproc)"
ctest --test-dir "$ASAN_BUILD" --output-on-failure -j "$(nproc)" -E cmake_package_consumer

if command -v aarch64-linux-gnu-g++ >/dev/null && command -v qemu-aarch64 >/dev/null; then
  echo "== C++ tests cross-built for AArch64 (NEON), under qemu-user"
  scripts/test-neon.sh
fi

echo "== Python tests"
PQFAST_BUILD_DIR="$PWD/$BUILD" PYTHONPATH="$PWD/$BUILD/python" \
  .venv/bin/python -m pytest -q tests/python
