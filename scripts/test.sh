#!/usr/bin/env bash
# Runs every test: C++ (GoogleTest via ctest) on the build tree, and Python
# (pytest) against the wheel installed in .venv-wheel, on every SIMD
# implementation this CPU supports; then builds the docs. Long differential runs:
# PQFAST_LONG_TESTS=1 scripts/test.sh; the scanner's threads under ThreadSanitizer:
# PQFAST_TSAN=1 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

BUILD=${PQFAST_BUILD_DIR:-build/dev}
PYBIN=$PWD/.venv/bin/python
# ccache lets the wheel's build (scripts/wheel.sh, below) reuse this build's
# objects instead of compiling the library a second time.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPQFAST_BUILD_TESTS=ON -DPQFAST_BUILD_PYTHON=ON -DPQFAST_PEERS=ON \
  -DPython_EXECUTABLE="$PYBIN" "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"

echo "== C++ tests"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"

echo "== C++ tests and fuzz replays under AddressSanitizer + UndefinedBehaviorSanitizer"
ASAN_BUILD=${PQFAST_ASAN_BUILD_DIR:-build/asan}
cmake -S . -B "$ASAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPQFAST_BUILD_TESTS=ON -DPQFAST_BUILD_FUZZ=ON -DPQFAST_SANITIZE=address,undefined >/dev/null
cmake --build "$ASAN_BUILD" -j "$(nproc)"
ctest --test-dir "$ASAN_BUILD" --output-on-failure -j "$(nproc)" -E cmake_package_consumer

# The scanner's and LocalScan's threads under ThreadSanitizer: a race lives
# a few nanoseconds (a release build ran 20,000 scans without the crash
# TSan shows at once), so only TSan guards against it. About 15 minutes of
# build on 2 cores: behind a flag. setarch -R: TSan's memory layout needs
# address randomization off on this kernel.
if [ "${PQFAST_TSAN:-0}" = 1 ]; then
  echo "== Scanner tests under ThreadSanitizer"
  TSAN_BUILD=${PQFAST_TSAN_BUILD_DIR:-build/tsan}
  cmake -S . -B "$TSAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPQFAST_BUILD_TESTS=ON -DPQFAST_SANITIZE=thread >/dev/null
  cmake --build "$TSAN_BUILD" -j "$(nproc)" --target pqfast_tests
  setarch "$(uname -m)" -R "$TSAN_BUILD/tests/cpp/pqfast_tests" --gtest_filter='LocalScan.*:Scanner.*'
fi

if command -v aarch64-linux-gnu-g++ >/dev/null && command -v qemu-aarch64 >/dev/null; then
  echo "== C++ tests cross-built for AArch64 (NEON), under qemu-user"
  scripts/test-neon.sh
fi

echo "== Wheel (scripts/wheel.sh: every codec linked in, auditwheel-checked)"
scripts/wheel.sh build/dist

# The Python tests run against what users install: the wheel, in a venv of
# its own with nothing of the build tree on the path (a file missing from
# the package fails here). The venv is made again when requirements-dev.txt
# changes; the wheel is reinstalled every run.
WVENV=$PWD/.venv-wheel
stamp=$WVENV/.requirements-dev.sha
want=$(sha256sum requirements-dev.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: creating .venv-wheel"
  rm -rf "$WVENV"
  "$PYBIN" -m venv "$WVENV"
  "$WVENV/bin/pip" install -q -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
"$WVENV/bin/pip" install -q --no-deps --force-reinstall build/dist/pqfast-*.whl
installed=$(cd /tmp && "$WVENV/bin/python" -c "import pqfast; print(pqfast.__file__)")
case "$installed" in
  "$WVENV"/*) echo "testing the installed wheel: $installed" ;;
  *) echo "error: pqfast imported from $installed, not from the wheel in $WVENV" >&2; exit 1 ;;
esac
(cd /tmp && "$WVENV/bin/pqfast" --version)

echo "== Python tests (against the installed wheel)"
# PQFAST_BUILD_DIR only locates the C++ peer drivers (bench/peers) of the build.
PQFAST_BUILD_DIR="$PWD/$BUILD" PATH="$WVENV/bin:$PATH" "$WVENV/bin/pytest" -q tests/python

echo "== Docs (mkdocs build --strict, API reference from the installed package)"
"$WVENV/bin/mkdocs" build --strict -q
