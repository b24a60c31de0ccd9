"""Regenerates tests/data/compat (issue 34): runs every `make_<name>`
function of the gen_*.py modules beside this script (each writes
<name>.parquet here), or only the named ones:

    python tests/data/compat/make_compat.py [name ...]
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def makers() -> dict:
    sys.path.insert(0, str(HERE))
    out = {}
    for p in sorted(HERE.glob("gen_*.py")):
        mod = importlib.import_module(p.stem)
        out.update({k[len("make_"):]: getattr(mod, k) for k in dir(mod) if k.startswith("make_")})
    return out


def main(names: list[str]) -> None:
    found = makers()
    for n in names or sorted(found):
        if n not in found:
            raise SystemExit(f"no generator make_{n} (have: {', '.join(sorted(found))})")
        found[n](HERE)
        print(f"wrote {n}.parquet")


if __name__ == "__main__":
    main(sys.argv[1:])
