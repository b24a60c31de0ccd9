"""Times read_table of nested columns by its two routes in one process,
alternating call by call: the column reader (PQFAST_READ_ROUTE=reader) and
the streaming scanner (the default: it assembles nested fields in C++ per
row group). Files: `pqfast bench nested`'s (list<int64>, list<string>, a
struct of 5, list<struct>, map<string,int64>, 3-deep; with nulls; pyarrow's
writer; built there once), one file each, then a lake: a directory of
`--lake-files` copies (hard links) of each file, read_table(directory).
Medians of wall time and of the process's CPU time (all threads) per read;
scanner / reader ratios (< 1: the scanner is cheaper). Every read's table is
checked equal to the other route's before timing.

    python scripts/bench_nested_route.py [--rows 1000000] [--runs 5] [--threads 1,2] [--lake-files 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from pathlib import Path

import pyarrow as pa

import pqfast
from pqfast._table import format_table
from pqfast.benches import nested as bn

ROUTE_ENV = "PQFAST_READ_ROUTE"


def read(path: str, route: str, threads: int) -> pa.Table:
    if route == "reader":
        os.environ[ROUTE_ENV] = "reader"
    else:
        os.environ.pop(ROUTE_ENV, None)
    try:
        return pqfast.read_table(path, threads=threads)
    finally:
        os.environ.pop(ROUTE_ENV, None)


def lake_of(path: Path, n: int) -> Path:
    """A directory of n hard links to `path` (copies where links fail)."""
    d = path.parent / "lakes" / path.stem
    d.mkdir(parents=True, exist_ok=True)
    for k in range(n):
        p = d / f"part-{k}.parquet"
        if not p.exists():
            try:
                os.link(path, p)
            except OSError:
                shutil.copyfile(path, p)
    return d


def time_cell(path: str, threads: int, runs: int) -> dict:
    a, b = read(path, "reader", threads), read(path, "scanner", threads)
    if not a.equals(b):
        raise SystemExit(f"{path}: the routes' tables differ")
    wall = {"reader": [], "scanner": []}
    cpu = {"reader": [], "scanner": []}
    for r in range(runs + 1):  # the first round warms, untimed
        order = ["reader", "scanner"] if r % 2 == 0 else ["scanner", "reader"]
        for route in order:
            c0, t0 = time.process_time(), time.perf_counter()
            read(path, route, threads)
            t1, c1 = time.perf_counter(), time.process_time()
            if r:
                wall[route].append(t1 - t0)
                cpu[route].append(c1 - c0)
    return {k: (statistics.median(wall[k]) * 1e3, statistics.median(cpu[k]) * 1e3) for k in wall}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--lake-files", type=int, default=4)
    p.add_argument("--shapes", default=",".join(bn.SHAPES))
    p.add_argument("--data", default=None)
    a = p.parse_args()
    shapes = [s for s in a.shapes.split(",") if s]
    files = bn.ensure_files(bn.data_dir(a.data, a.rows), a.rows, shapes, ["pyarrow"])
    rows = []
    for th in [int(x) for x in a.threads.split(",")]:
        pa.set_cpu_count(max(th, 1))
        for shape in shapes:
            path = files[(shape, True, "pyarrow")]
            for label, src in (("file", path), (f"lake x{a.lake_files}", lake_of(path, a.lake_files))):
                got = time_cell(str(src), th, a.runs)
                (rw, rc), (sw, sc) = got["reader"], got["scanner"]
                rows.append([shape, label, str(th), f"{rw:.1f}", f"{sw:.1f}", f"{rc:.1f}", f"{sc:.1f}",
                             f"{sc / rc:.2f}", f"{sw / rw:.2f}"])
                print(" | ".join(rows[-1]), flush=True)
    print()
    print(format_table(["shape (nulls)", "source", "threads", "reader ms", "scanner ms", "reader CPU ms",
                        "scanner CPU ms", "CPU scanner/reader", "wall scanner/reader"], rows))


if __name__ == "__main__":
    main()
