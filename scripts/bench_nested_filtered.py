"""Times FILTERED scans of nested columns by their two routes in one process,
alternating call by call: the old one (read_table: the engine's own call,
then each matching row group's nested columns read whole by the column
reader and filtered by pyarrow, ``scan._nested_rows``; dataset scans: the
engine's units, ``_units``) and the streaming scanner (the engine selects the
rows, the scanner assembles each nested field per matching row group in C++
and takes them). Data: one file of --rows rows (id, v: int64 with nulls;
ls: list<string>, st: struct<a: int32, b: string>, m: map<string, int64>,
deep: list<struct<x: list<int64>>>), 64 Ki-row row groups, written by
pyarrow; and a lake of --lake-files such files (other seeds). Filters: a
selective one (v < 10, ~1% of rows in every row group), a broad one (v <
300, ~27%), and an id range (5% of the rows, row groups ruled out by their
statistics). Medians of wall time and of the process's CPU time (all
threads) per read; scanner / old ratios (< 1: the scanner is cheaper). Each
cell checks both routes' tables equal before timing.

    python scripts/bench_nested_filtered.py [--rows 1000000] [--runs 5] [--threads 1,2] [--lake-files 4]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import pqfast
from pqfast import _dataset_scan, scan
from pqfast._table import format_table

ROW_GROUP = 64 * 1024


def table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)

    def lists(child_len_max: int):
        lengths = rng.integers(0, child_len_max + 1, n)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        return offsets, int(offsets[-1])

    def mask(p: float, k: int):
        return pa.array(rng.random(k) < p)

    v = pa.array(rng.integers(0, 1000, n), pa.int64(), mask=rng.random(n) < 0.1)
    off, k = lists(4)
    words = pa.array([f"w{x}" for x in rng.integers(0, 5000, k)], pa.string())
    ls = pa.ListArray.from_arrays(pa.array(off), words, mask=mask(0.1, n))
    st = pa.StructArray.from_arrays([pa.array(rng.integers(-9, 9, n), pa.int32()),
                                     pa.array([f"b{x}" for x in rng.integers(0, 40, n)])],
                                    names=["a", "b"], mask=mask(0.15, n))
    off, k = lists(3)
    m = pa.MapArray.from_arrays(pa.array(off), pa.array([f"k{x}" for x in rng.integers(0, 9, k)]),
                                pa.array(rng.integers(0, 1 << 40, k), pa.int64()))
    off, k = lists(2)
    xo, xk = (lambda ln: (np.concatenate([[0], np.cumsum(ln)]).astype(np.int32), int(np.sum(ln))))(
        rng.integers(0, 3, k))
    x = pa.ListArray.from_arrays(pa.array(xo), pa.array(rng.integers(0, 99, xk), pa.int64()))
    deep = pa.ListArray.from_arrays(pa.array(off), pa.StructArray.from_arrays([x], names=["x"]))
    return pa.table({"id": pa.array(np.arange(seed * n, (seed + 1) * n, dtype=np.int64)), "v": v,
                     "ls": ls, "st": st, "m": m, "deep": deep})


@contextlib.contextmanager
def old_route():
    """The routes before the scanner took filtered nested scans."""
    saved_schema, saved_plan = scan.scanner_schema, _dataset_scan.Scanner._native_plan
    scan.scanner_schema = lambda *a, **k: None
    _dataset_scan.Scanner._native_plan = lambda self: None
    try:
        yield
    finally:
        scan.scanner_schema, _dataset_scan.Scanner._native_plan = saved_schema, saved_plan


def run(kind: str, src: str, flt, threads: int, old: bool) -> pa.Table:
    with old_route() if old else contextlib.nullcontext():
        if kind == "read_table":
            return pqfast.read_table(src, filters=flt, threads=threads)
        expr = pq.filters_to_expression(flt)
        return pqfast.dataset(src).scanner(filter=expr, threads=threads).to_table()


def time_cell(kind: str, src: str, flt, threads: int, runs: int) -> dict:
    a, b = run(kind, src, flt, threads, True), run(kind, src, flt, threads, False)
    if not a.equals(b):
        raise SystemExit(f"{src} {flt}: the routes' tables differ")
    wall = {True: [], False: []}
    cpu = {True: [], False: []}
    for r in range(runs + 1):  # the first round warms, untimed
        for old in ((True, False) if r % 2 == 0 else (False, True)):
            c0, t0 = time.process_time(), time.perf_counter()
            run(kind, src, flt, threads, old)
            t1, c1 = time.perf_counter(), time.process_time()
            if r:
                wall[old].append(t1 - t0)
                cpu[old].append(c1 - c0)
    return {k: (statistics.median(wall[k]) * 1e3, statistics.median(cpu[k]) * 1e3) for k in wall}, b.num_rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--lake-files", type=int, default=4)
    p.add_argument("--data", default=None)
    a = p.parse_args()
    d = Path(a.data or tempfile.mkdtemp(prefix="pqfast_nested_filtered_"))
    d.mkdir(parents=True, exist_ok=True)
    one = d / "one.parquet"
    lake = d / "lake"
    if not one.exists():
        pq.write_table(table(a.rows, 0), one, row_group_size=ROW_GROUP)
    lake.mkdir(exist_ok=True)
    for k in range(a.lake_files):
        f = lake / f"part-{k}.parquet"
        if not f.exists():
            pq.write_table(table(a.rows // a.lake_files, k + 1), f, row_group_size=ROW_GROUP // 4)
    filters = {"v < 10 (~1%)": [("v", "<", 10)], "v < 300 (~27%)": [("v", "<", 300)]}
    rows = []
    for th in [int(x) for x in a.threads.split(",")]:
        for label, src in (("file", str(one)), (f"lake x{a.lake_files}", str(lake))):
            per = a.rows if label == "file" else a.rows // a.lake_files
            fl = dict(filters)
            first = 0 if label == "file" else per
            fl["id range (5%)"] = [("id", ">=", first + per // 3), ("id", "<", first + per // 3 + a.rows // 20)]
            for name, flt in fl.items():
                for kind in ("read_table", "dataset"):
                    got, n = time_cell(kind, src, flt, th, a.runs)
                    (ow, oc), (sw, sc) = got[True], got[False]
                    rows.append([label, kind, name, str(th), str(n), f"{ow:.1f}", f"{sw:.1f}", f"{oc:.1f}",
                                 f"{sc:.1f}", f"{sc / oc:.2f}", f"{sw / ow:.2f}"])
                    print(" | ".join(rows[-1]), flush=True)
    print()
    print(format_table(["source", "call", "filter", "threads", "rows", "old ms", "scanner ms", "old CPU ms",
                        "scanner CPU ms", "CPU scanner/old", "wall scanner/old"], rows))


if __name__ == "__main__":
    main()
