"""Times read_table by its two routes in one process, alternating: the column
reader (PQFAST_READ_ROUTE=reader) and the streaming scanner
(PQFAST_READ_ROUTE=scanner), on `pqfast bench read`'s lineitem files; prints
the median of each cell, wall time and the process's CPU time (all threads)
per read: on a shared machine the wall time swings with the neighbours' load
while the CPU time says what each route costs.

``--extra`` adds the reads where one column chunk is large against the
threads' share (the routes cut its pages over threads): lineitem SF1 in one
row group (written once from the pyarrow file, row_group_size=6,001,215,
next to the data directory), all columns, Q12's and l_comment; and
row_groups=[0] of the pyarrow file's l_comment.

    python scripts/bench_read_route.py [--data DIR] [--runs 5] [--threads 1,2] [--extra]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import pqfast
from pqfast._table import format_table

Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]


def one_row_group_file(data: Path) -> Path:
    """lineitem SF1 as one row group (pyarrow, snappy), written once."""
    out = data.parent / (data.name + "-one-rg") / "lineitem-pyarrow-1rg.parquet"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        t = pq.read_table(data / "lineitem-pyarrow.parquet")
        tmp = out.with_suffix(".tmp")
        pq.write_table(t, tmp, row_group_size=t.num_rows, compression="snappy")
        tmp.rename(out)
    return out


def cases(data: Path, extra: bool) -> list:
    """(file, label, columns, row_groups) of each cell."""
    out = []
    for f in sorted(data.glob("*.parquet")):
        out += [(f, "all 16", None, None), (f, "Q12's 5", Q12, None)]
    if extra:
        one = one_row_group_file(data)
        out += [(one, "all 16", None, None), (one, "Q12's 5", Q12, None), (one, "l_comment", ["l_comment"], None),
                (data / "lineitem-pyarrow.parquet", "l_comment, rg 0", ["l_comment"], [0])]
    return out


def read(f: Path, cols, rgs, th: int) -> pa.Table:
    if rgs is None:
        return pqfast.read_table(str(f), columns=cols, threads=th)
    with pqfast.ParquetFile(str(f)) as pf:
        return pf.read_row_groups(rgs, columns=cols, threads=th)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=str(Path.home() / ".cache/pqfast/keep/bench-read/whole-sf1-v1"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--extra", action="store_true", help="add the one-row-group and one-chunk reads")
    a = p.parse_args()
    cells = cases(Path(a.data), a.extra)
    rows = []
    for th in [int(x) for x in a.threads.split(",")]:
        pa.set_cpu_count(max(th, 1))
        for f, label, cols, rgs in cells:
            times = {"reader": [], "scanner": []}
            cpu = {"reader": [], "scanner": []}
            for r in range(a.runs + 1):  # the first round warms, untimed
                order = ["reader", "scanner"] if r % 2 == 0 else ["scanner", "reader"]
                for route in order:
                    os.environ["PQFAST_READ_ROUTE"] = route
                    c0, t0 = time.process_time(), time.perf_counter()
                    t = read(f, cols, rgs, th)
                    dt, dc = time.perf_counter() - t0, time.process_time() - c0
                    del t
                    if r:
                        times[route].append(dt)
                        cpu[route].append(dc)
            old, new = statistics.median(times["reader"]) * 1e3, statistics.median(times["scanner"]) * 1e3
            c_old, c_new = statistics.median(cpu["reader"]) * 1e3, statistics.median(cpu["scanner"]) * 1e3
            rows.append([f.name, label, th, f"{old:.0f}", f"{new:.0f}", f"{new / old:.2f}", f"{c_old:.0f}",
                         f"{c_new:.0f}", f"{c_new / c_old:.2f}"])
            print(rows[-1], flush=True)
    os.environ.pop("PQFAST_READ_ROUTE", None)
    print(format_table(["file", "columns", "threads", "column reader ms", "scanner ms", "scanner/reader",
                        "reader CPU ms", "scanner CPU ms", "CPU scanner/reader"], rows))


if __name__ == "__main__":
    main()
