#!/usr/bin/env bash
# Installs everything pqfast's build, tests and benchmarks need on a fresh
# Debian machine: system packages with apt, Python packages in .venv.
# Idempotent and quick when nothing is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build tools; GoogleTest; peers (libxxhash, RocksDB); clang for libFuzzer;
# the AArch64 cross compiler and qemu-user to test the NEON kernels; the page
# codec libraries the column reader links (the build stops without one;
# libsnappy only as the C++ tests' reference for pqfast's own snappy decoder);
# ccache, so that the wheel reuses the developer build's objects.
APT_PACKAGES=(cmake ninja-build g++ ccache googletest libgtest-dev libxxhash-dev librocksdb-dev python3-venv
              clang libclang-rt-14-dev g++-aarch64-linux-gnu qemu-user
              libsnappy-dev zlib1g-dev libzstd-dev liblz4-dev libbrotli-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements-dev.sha
want=$(sha256sum requirements-dev.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
