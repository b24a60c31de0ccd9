"""Many hostile files, each read in a child process under `prlimit --as` and a
timeout: every case must end in a clean pqfast error or a result, never a
signal, a hang, a bare MemoryError or a multi-GiB peak.

  python tests/python/hostile_stress.py [N] [--seed S]

Cases: parquet-testing files and hostile_files.py builders with random
parameters, then mutated (bit flips, bytes set to 0x00/0x7f/0xff, varints
stretched, pieces duplicated). test_hostile_files.py runs a short pass by
default and a long one under PQFAST_LONG_TESTS=1.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "parquet-testing" / "data"
GiB = 1 << 30

CHILD = r"""
import json, sys
import pqfast
path = sys.argv[1]
out = []
def attempt(name, f):
    try:
        f()
        out.append([name, "ok", ""])
    except pqfast.MemoryLimitError as e:
        out.append([name, "MemoryLimitError", str(e)[:200]])
    except pqfast.FormatError as e:
        out.append([name, "FormatError", str(e)[:200]])
    except BaseException as e:
        out.append([name, type(e).__module__ + "." + type(e).__name__, str(e)[:300]])
attempt("metadata", lambda: pqfast.ParquetFile(path).metadata)
attempt("read", lambda: pqfast.read_table(path))
attempt("read1", lambda: pqfast.read_table(path, use_threads=False))
def filtered():
    import pyarrow.compute as pc
    f = pqfast.ParquetFile(path)
    cols = [c["dotted_path"] for c in f._meta.columns()]
    if cols:
        pqfast.read_table(path, filters=pc.field(cols[0]).is_valid())
attempt("filters", filtered)
def prune():
    f = pqfast.ParquetFile(path)
    cols = [c["dotted_path"] for c in f._meta.columns()]
    if cols:
        pqfast.prune(path, cols[0], [1])
attempt("prune", prune)
with open("/proc/self/status") as fh:
    peak = next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmHWM:"))
print(json.dumps({"calls": out, "peak": peak}))
"""

# Exceptions a hostile file may raise: pqfast's own, and what the Python
# layer raises for a column it does not read (nested) or a type it refuses.
CLEAN = {"ok", "FormatError", "MemoryLimitError"}


def seeds(rng: random.Random, tmp: Path) -> list[bytes]:
    sys.path.insert(0, str(HERE))
    import hostile_files as hf

    out = []
    writers = HERE.parent / "data" / "writers"
    for p in sorted(DATA.glob("*.parquet")) + sorted(writers.glob("*.parquet")):
        if p.stat().st_size < 200_000:
            out.append(p.read_bytes())
    rng.shuffle(out)
    builders = [
        lambda q: hf.rle_run_bomb(q, pages=rng.randint(1, 8), run=rng.choice([1, 7, 1 << 10, 1 << 20, 1 << 24])),
        lambda q: hf.wide_fixed_bomb(q, width=rng.choice([1, 16, 1 << 16, 1 << 24]), rows=rng.randint(1, 500)),
        lambda q: hf.wide_binary_bomb(q, width=rng.choice([0, 5, 1 << 16, 1 << 24]), rows=rng.randint(1, 500)),
        lambda q: hf.delta_prefix_bomb(q, n=rng.choice([10, 1000, 30000])),
        lambda q: hf.empty_page_bomb(q, pages=rng.randint(1, 4), size=rng.choice([0, 4, 1 << 20, 1 << 26])),
        lambda q: hf.zstd_page_bomb(q, pages=1, size=rng.choice([64, 1 << 20, 1 << 28])),
        lambda q: hf.bad_decimal(q, rng.choice([-1, 0, 1, 18, 19, 39, 77, 1 << 30])),
        lambda q: hf.non_utf8_name(q),
    ]
    for i, b in enumerate(builders):
        for k in range(3):
            q = tmp / f"seed_{i}_{k}.parquet"
            b(q)
            out.append(q.read_bytes())
    return out


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not b:
            break
        kind = rng.randrange(5)
        i = rng.randrange(len(b))
        if kind == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b[i] = rng.choice([0x00, 0x7F, 0xFF, 0x80, 0x15, 0x19])
        elif kind == 2:  # a varint byte stretched: continuation bits
            b[i:i + 1] = bytes([0xFF, 0xFF, 0xFF, 0x7F])
        elif kind == 3 and len(b) < 1 << 20:  # a piece duplicated
            j = rng.randrange(len(b))
            lo, hi = min(i, j), max(i, j)
            b[hi:hi] = b[lo:min(hi, lo + 64)]
        else:  # the footer's region is where structure lives: hit it more
            k = max(0, len(b) - 1 - rng.randrange(min(len(b), 512)))
            b[k] = rng.randrange(256)
    return bytes(b)


def run(n: int, seed: int = 1, address_space: int = 4 * GiB, timeout: float = 60,
        max_peak: int = 2 * GiB + GiB // 2) -> list[str]:
    """Runs n cases; returns the failures (empty: every case was clean)."""
    rng = random.Random(seed)
    failures = []
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        base = seeds(rng, tmp)
        for case in range(n):
            data = base[case % len(base)]
            if case >= len(base):
                data = mutate(data, rng)
            path = tmp / "case.parquet"
            path.write_bytes(data)
            cmd = ["prlimit", f"--as={address_space}", sys.executable, "-c", CHILD, str(path)]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
            except subprocess.TimeoutExpired:
                keep = tmp.parent / f"pqfast_hang_{seed}_{case}.parquet"
                keep.write_bytes(data)
                failures.append(f"case {case}: hang (> {timeout}s), kept as {keep}")
                continue
            if p.returncode != 0:
                keep = Path(tempfile.gettempdir()) / f"pqfast_crash_{seed}_{case}.parquet"
                keep.write_bytes(data)
                failures.append(f"case {case}: exit {p.returncode}, kept as {keep}: {p.stderr[-500:]}")
                continue
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for name, kind, msg in r["calls"]:
                if kind not in CLEAN:
                    keep = Path(tempfile.gettempdir()) / f"pqfast_unclean_{seed}_{case}.parquet"
                    keep.write_bytes(data)
                    failures.append(f"case {case}: {name} raised {kind}: {msg} (kept as {keep})")
            if r["peak"] > max_peak and len(data) < 1 << 20:
                failures.append(f"case {case}: peak {r['peak'] >> 20} MiB from {len(data)} bytes")
    return failures


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else 200
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    bad = run(n, seed)
    print("\n".join(bad) or f"{n} cases: every one clean")
    sys.exit(1 if bad else 0)
