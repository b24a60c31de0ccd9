"""Times read_table by its two routes in one process, alternating: the column
reader (PQFAST_READ_ROUTE=reader) and the streaming scanner
(PQFAST_READ_ROUTE=scanner), on `pqfast bench read`'s lineitem files; prints
the median of each cell, wall time and the process's CPU time (all threads)
per read: on a shared machine the wall time swings with the neighbours' load
while the CPU time says what each route costs.

    python scripts/bench_read_route.py [--data DIR] [--runs 5] [--threads 1,2]
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

Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=str(Path.home() / ".cache/pqfast/keep/bench-read/whole-sf1-v1"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    a = p.parse_args()
    files = sorted(Path(a.data).glob("*.parquet"))
    rows = []
    for th in [int(x) for x in a.threads.split(",")]:
        pa.set_cpu_count(max(th, 1))
        for f in files:
            for label, cols in (("all 16", None), ("Q12's 5", Q12)):
                times = {"reader": [], "scanner": []}
                cpu = {"reader": [], "scanner": []}
                for r in range(a.runs + 1):  # the first round warms, untimed
                    order = ["reader", "scanner"] if r % 2 == 0 else ["scanner", "reader"]
                    for route in order:
                        os.environ["PQFAST_READ_ROUTE"] = route
                        c0, t0 = time.process_time(), time.perf_counter()
                        t = pqfast.read_table(str(f), columns=cols, threads=th)
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
