"""Regenerates the test files of tests/data/compat/ (issue 34): runs every
`make_<name>(out_dir)` function of the gen_*.py modules here, or only the
names given: `python tests/data/compat/make_compat.py [names]`."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def makers() -> dict:
    sys.path.insert(0, str(HERE))
    out = {}
    for path in sorted(HERE.glob("gen_*.py")):
        mod = importlib.import_module(path.stem)
        out.update({name[5:]: fn for name, fn in vars(mod).items() if name.startswith("make_") and callable(fn)})
    return out


def main(names: list[str]) -> None:
    found = makers()
    unknown = [n for n in names if n not in found]
    if unknown:
        raise SystemExit(f"no generator for {unknown}; known: {sorted(found)}")
    for name in names or sorted(found):
        print(found[name](HERE))


if __name__ == "__main__":
    main(sys.argv[1:])
