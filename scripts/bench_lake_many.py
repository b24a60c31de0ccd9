"""Times reading a lake of many small files (issue 32's case: per-file costs)
into one Table: pqfast.read_table(dir) by the scanner and by the column
reader (PQFAST_READ_ROUTE=reader), polars' read_parquet(glob), DuckDB's
read_parquet(glob), DataFusion and pyarrow.dataset, at the same thread count,
alternating in one process; prints the median of each.

The lake is made once in a cache directory (not the repository): `--files`
files of `--rows` lineitem rows each, cut in order from `pqfast bench read`'s
SF1 lineitem (pyarrow's file), written by pyarrow with its defaults. 10,000
files of ~1 MB (30k rows) would be 300 M rows, ~45 GB once decoded: more than
this machine's memory, so the default is 1,000 rows (~40 KB) a file.

    python scripts/bench_lake_many.py [--files 10000] [--rows 1000] [--threads 2] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import pyarrow as pa

import pqfast
from pqfast._table import format_table
from pqfast.benches.read import lake

SOURCE = Path.home() / ".cache/pqfast/keep/bench-read/whole-sf1-v1/lineitem-pyarrow.parquet"
Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]


def readers(d: Path, threads: int, cols):
    glob = str(d / "*.parquet")
    out = {}

    def pq_scanner():
        os.environ["PQFAST_READ_ROUTE"] = "scanner"
        return pqfast.read_table(str(d), columns=cols, threads=threads).num_rows

    def pq_reader():
        os.environ["PQFAST_READ_ROUTE"] = "reader"
        try:
            return pqfast.read_table(str(d), columns=cols, threads=threads).num_rows
        finally:
            os.environ.pop("PQFAST_READ_ROUTE", None)

    out["pqfast scanner"] = pq_scanner
    out["pqfast column reader"] = pq_reader
    try:
        import polars as pl

        def polars():
            return pl.read_parquet(glob, columns=cols).height
        out["polars"] = polars
    except ImportError:
        pass
    try:
        import duckdb

        con = duckdb.connect()
        con.execute(f"SET threads={threads}")
        sel = "*" if cols is None else ", ".join(cols)

        def duck():
            return con.sql(f"SELECT {sel} FROM read_parquet('{glob}')").to_arrow_table().num_rows
        out["duckdb"] = duck
    except ImportError:
        pass
    try:
        import datafusion

        cfg = datafusion.SessionConfig().with_target_partitions(threads)
        ctx = datafusion.SessionContext(cfg)
        ctx.register_parquet("lake", str(d) + "/")
        sel = "*" if cols is None else ", ".join(cols)

        def dfusion():
            return ctx.sql(f"SELECT {sel} FROM lake").to_arrow_table().num_rows
        out["datafusion"] = dfusion
    except ImportError:
        pass
    import pyarrow.dataset as ds

    def pads():
        return ds.dataset(str(d), format="parquet").to_table(columns=cols).num_rows
    out["pyarrow.dataset"] = pads
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--root", default=str(Path.home() / ".cache/pqfast/keep/bench-read-10k"))
    p.add_argument("--files", type=int, default=10000)
    p.add_argument("--rows", type=int, default=1000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", default="", help="comma-separated engines to time (default: all)")
    a = p.parse_args()
    d = lake(a.root, a.files, a.rows, SOURCE, 1.0)
    pa.set_cpu_count(a.threads)
    pa.set_io_thread_count(a.threads)
    os.environ.setdefault("POLARS_MAX_THREADS", str(a.threads))
    rows = []
    for label, cols in (("all 16", None), ("Q12's 5", Q12)):
        fns = readers(d, a.threads, cols)
        if a.only:
            fns = {k: v for k, v in fns.items() if k in a.only.split(",")}
        times = {k: [] for k in fns}
        counts = {}
        for r in range(a.runs + 1):  # the first round warms, untimed
            names = list(fns) if r % 2 == 0 else list(reversed(fns))
            for name in names:
                t0 = time.perf_counter()
                counts[name] = fns[name]()
                dt = time.perf_counter() - t0
                if r:
                    times[name].append(dt)
        for name in fns:
            rows.append([label, name, a.threads, f"{statistics.median(times[name]) * 1e3:.0f}", counts[name]])
            print(rows[-1], flush=True)
    print(format_table(["columns", "engine", "threads", "median ms", "rows"], rows))


if __name__ == "__main__":
    main()
