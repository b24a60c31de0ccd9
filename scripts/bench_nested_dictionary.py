"""CPU of FILTERED reads of nested columns with dictionary leaves (the last
reads the engine's own call took: ``_scan_local`` + Python assembly for
read_table, the dataset's ``_units`` -> ``Lake.scan`` for scans) against
another build of pqfast, alternating: each side runs in a child process of
its own (``--before DIR`` / ``--after DIR``: a directory holding a built
``pqfast`` package, put first on ``sys.path``; default: the one this
interpreter imports), one child after the other, run after run, so that a
loaded machine weighs on both alike. A child reads once to warm up, then
--calls times, and reports the median CPU time of the process (all
threads, ``time.process_time``) and wall time per call, and a digest of the
result (both sides must give the same rows).

Data (written once to a temporary directory): one file of --rows rows (id,
v: int64 with nulls; ld: list<dictionary<string>>; sd: struct<d:
dictionary<string>, i: int32>; big: large_list<int64>), 64 Ki-row row groups, written by pyarrow;
a lake of --lake-files such files. Query: ``v < 30`` (~3% of the rows in
every row group), projection id, ld, sd: ``read_table(file, filters=)`` and
``pqfast.dataset(lake).to_table(filter=)``. And ``lake-retyped``: the lake's
id and big (a large_list<int64>, retyped after the read) scanned whole
without a filter (formerly the dataset's row-group units by the column
reader; now the scanner, each batch finished in Python).

    python scripts/bench_nested_dictionary.py --before /path/to/old/python [--rows 500000] [--runs 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROW_GROUP = 64 * 1024
COLUMNS = ["id", "ld", "sd"]


def write(path: str, n: int, seed: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    words = pa.array([f"w{k:04d}" for k in range(2000)])
    lengths = rng.integers(0, 4, n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    k = int(offsets[-1])
    leaf = pa.DictionaryArray.from_arrays(pa.array(rng.integers(0, 2000, k), pa.int32()), words)
    ld = pa.ListArray.from_arrays(pa.array(offsets), leaf, mask=pa.array(rng.random(n) < 0.1))
    sd = pa.StructArray.from_arrays([pa.DictionaryArray.from_arrays(pa.array(rng.integers(0, 300, n), pa.int32()),
                                                                     words.slice(0, 300)),
                                     pa.array(rng.integers(-9, 9, n), pa.int32())], names=["d", "i"])
    big = pa.LargeListArray.from_arrays(pa.array(offsets.astype(np.int64)),
                                        pa.array(rng.integers(0, 1 << 40, k), pa.int64()))
    t = pa.table({"id": pa.array(np.arange(seed * n, (seed + 1) * n, dtype=np.int64)),
                  "v": pa.array(rng.integers(0, 1000, n), pa.int64(), mask=rng.random(n) < 0.1),
                  "ld": ld, "sd": sd, "big": big})
    pq.write_table(t, path, row_group_size=ROW_GROUP)


def child(query: str, where: str, calls: int) -> None:
    """Runs in a child: `calls` timed reads after one warm-up; prints JSON."""
    import pyarrow.dataset as pads

    import pqfast

    flt = [("v", "<", 30)]
    if query == "file":
        def read():
            return pqfast.read_table(where, columns=COLUMNS, filters=flt)
    elif query == "lake-retyped":
        def read():
            return pqfast.dataset(where).to_table(columns=["id", "big"])
    else:
        def read():
            return pqfast.dataset(where).to_table(columns=COLUMNS, filter=pads.field("v") < 30)
    t = read()
    digest = hashlib.sha256(repr(t.to_pylist()).encode()).hexdigest()[:16]
    cpu, wall = [], []
    for _ in range(calls):
        c0, w0 = time.process_time(), time.perf_counter()
        read()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    print(json.dumps({"cpu": statistics.median(cpu), "wall": statistics.median(wall), "rows": t.num_rows,
                      "digest": digest, "package": os.path.dirname(os.path.dirname(pqfast.__file__))}))


def run_child(package: str | None, query: str, where: str, calls: int) -> dict:
    env = dict(os.environ)
    if package:
        env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
    got = subprocess.run([sys.executable, __file__, "--child", query, where, str(calls)], env=env,
                         capture_output=True, text=True)
    if got.returncode:
        raise SystemExit(f"{package or 'this build'}: {query}: {got.stderr[-2000:]}")
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="directory holding the other build's pqfast package (required)")
    ap.add_argument("--after", default=None, help="directory holding this build's pqfast package (default: the "
                                                  "one this interpreter imports)")
    ap.add_argument("--rows", type=int, default=500_000)
    ap.add_argument("--lake-files", type=int, default=4)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    if not args.before:
        ap.error("--before DIR is required")
    with tempfile.TemporaryDirectory() as d:
        one = str(Path(d) / "one.parquet")
        write(one, args.rows, 1)
        lake = Path(d) / "lake"
        lake.mkdir()
        for k in range(args.lake_files):
            write(str(lake / f"part-{k}.parquet"), args.rows // args.lake_files, k + 2)
        sides = [("before", args.before), ("after", args.after)]
        rows, packages = [], {}
        for query, where in (("file", one), ("lake", str(lake)), ("lake-retyped", str(lake))):
            got: dict = {name: [] for name, _ in sides}
            for _ in range(args.runs):
                for name, package in sides:  # alternating, run after run
                    got[name].append(run_child(package, query, where, args.calls))
            b, a = got["before"], got["after"]
            packages = {"before": b[0]["package"], "after": a[0]["package"]}
            if {r["digest"] for r in b} != {r["digest"] for r in a}:
                raise SystemExit(f"{query}: the two builds give different rows")
            cb = statistics.median(r["cpu"] for r in b) * 1e3
            ca = statistics.median(r["cpu"] for r in a) * 1e3
            wb = statistics.median(r["wall"] for r in b) * 1e3
            wa = statistics.median(r["wall"] for r in a) * 1e3
            rows.append((query, a[0]["rows"], f"{cb:.1f}", f"{ca:.1f}", f"{ca / cb:.2f}x", f"{wb:.1f}", f"{wa:.1f}"))
        print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.runs} children x {args.calls} calls; "
              f"before: {packages['before']}, after: {packages['after']}")
        head = ("query", "rows out", "CPU ms before", "CPU ms after", "after/before", "wall ms before",
                "wall ms after")
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
        for r in (head, *rows):
            print("  ".join(str(x).rjust(w) for x, w in zip(r, widths)))


if __name__ == "__main__":
    main()
