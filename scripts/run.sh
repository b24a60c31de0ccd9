#!/usr/bin/env bash
# The main job: install pqfast into .venv (pip install .), then run the demo
# and a short benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "setup: building and installing pqfast (pip install .)"
.venv/bin/pip install -q .
.venv/bin/pqfast --version
.venv/bin/pqfast demo "$@"
