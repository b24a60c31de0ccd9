"""CPU time per whole-file read of `pqfast bench read`'s lineitem files, two
builds alternating (each round one process per build, in turns), beside the
codec floor and one write of the output: on a shared machine wall time
swings with the neighbours' load while the CPU time (user + system, all
threads of the process) of a read says what the read costs.

One process per cell and build: one untimed read, then --reads reads each
timed (wall, CPU); medians over every process of a build. The floor is
_pqfast._bench_codec_floor (the same chunks' pages, in memory, only
decompressed, best of 3); the write is a fill of as many bytes as the
table's buffers hold, into memory written once before (best of 3).

    python scripts/bench_read_cpu.py --build A=/path/build/dev --build B=... \
        [--rounds 3] [--reads 3] [--threads 1,2] [--files tpchgen,...] [--sets all,q12] [--columns] [--polars]

--columns: each column of each file alone too (1 thread), for the
per-column table of where the time above the floor goes.
--polars: polars.read_parquet of the same cells as one more contender, in
its own processes alternating with the builds (POLARS_MAX_THREADS = the
cell's threads), so pqfast's CPU per column can be set beside the fastest
peer's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]
DATA = Path.home() / ".cache/pqfast/keep/bench-read/whole-sf1-v1"
FILES = {"tpchgen": "lineitem.parquet", "pyarrow": "lineitem-pyarrow.parquet", "DuckDB": "lineitem-duckdb.parquet",
         "polars": "lineitem-polars.parquet"}

WORKER = r"""
import json, os, sys, time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pqfast
from pqfast import _pqfast
spec = json.loads(sys.argv[1])
out = []
for f, label, cols, th in spec["cells"]:
    def once():
        w0, c0 = time.perf_counter(), time.process_time()
        t = pqfast.read_table(f, columns=cols, threads=th)
        return time.perf_counter() - w0, time.process_time() - c0, t
    *_, t = once()
    nbytes = t.nbytes
    del t
    walls, cpus = [], []
    for _ in range(spec["reads"]):
        w, c, t = once()
        del t
        walls.append(w); cpus.append(c)
    row = {"file": f, "label": label, "threads": th, "wall": walls, "cpu": cpus}
    if spec["extras"]:
        names = pq.ParquetFile(f).schema_arrow.names
        leaves = [] if cols is None else [names.index(c) for c in cols]
        row["floor"] = _pqfast._bench_codec_floor(f, 3, leaves, th)["seconds"]
        n = nbytes
        buf = np.empty(n, np.uint8); buf.fill(0)
        best = 1e9
        for _ in range(3):
            w0 = time.perf_counter(); buf.fill(1); best = min(best, time.perf_counter() - w0)
        row["write"] = best
        row["out_bytes"] = n
    out.append(row)
print(json.dumps(out))
"""

# The same cells read by polars (a DataFrame, its own string views); the
# pool size comes from POLARS_MAX_THREADS, read at import.
POLARS_WORKER = r"""
import json, sys, time
import polars as pl
spec = json.loads(sys.argv[1])
out = []
for f, label, cols, th in spec["cells"]:
    def once():
        w0, c0 = time.perf_counter(), time.process_time()
        t = pl.read_parquet(f, columns=cols)
        return time.perf_counter() - w0, time.process_time() - c0, t
    once()
    walls, cpus = [], []
    for _ in range(spec["reads"]):
        w, c, t = once()
        del t
        walls.append(w); cpus.append(c)
    out.append({"file": f, "label": label, "threads": th, "wall": walls, "cpu": cpus})
print(json.dumps(out))
"""


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--build", action="append", required=True, help="NAME=build dir")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reads", type=int, default=3)
    p.add_argument("--threads", default="1")
    p.add_argument("--files", default=",".join(FILES))
    p.add_argument("--sets", default="all,q12")
    p.add_argument("--columns", action="store_true")
    p.add_argument("--polars", action="store_true")
    p.add_argument("--json", default="")
    a = p.parse_args()
    builds = [b.split("=", 1) for b in a.build]
    envs = {}
    for b in builds:  # NAME=DIR@VAR=VALUE[@...]: the build with more environment variables
        if "@" in b[1]:
            b[1], *kvs = b[1].split("@")
            envs[b[0]] = dict(kv.split("=", 1) for kv in kvs)
    if a.polars:
        builds.append(["polars", ""])
    cells = []
    for th in [int(x) for x in a.threads.split(",")]:
        for key in a.files.split(","):
            f = str(DATA / FILES[key])
            if "all" in a.sets.split(","):
                cells.append((f, f"{key} all 16", None, th))
            if "q12" in a.sets.split(","):
                cells.append((f, f"{key} Q12's 5", Q12, th))
            if a.columns and th == 1:
                for c in pq.ParquetFile(f).schema_arrow.names:
                    cells.append((f, f"{key} {c}", [c], th))
    res: dict = {}
    for r in range(a.rounds):
        order = builds if r % 2 == 0 else builds[::-1]
        # One process per cell and build (what an earlier cell left in the
        # buffer pool changed a later one's time by up to 1.6x), builds in
        # turns, the order reversed every round.
        for cell in cells:
            for name, d in order:
                spec = {"cells": [cell], "reads": a.reads, "extras": r == 0}
                if name == "polars" and not d:
                    env = dict(os.environ, POLARS_MAX_THREADS=str(cell[3]))
                    worker = POLARS_WORKER
                else:
                    env = dict(os.environ, PQFAST_BUILD_DIR=d, PYTHONPATH=str(Path(d) / "python"), **envs.get(name, {}))
                    worker = WORKER
                o = subprocess.run([sys.executable, "-c", worker, json.dumps(spec)], env=env, capture_output=True, text=True)
                if o.returncode != 0:
                    sys.exit(o.stderr)
                for row in json.loads(o.stdout.strip().splitlines()[-1]):
                    k = (row["label"], row["threads"])
                    e = res.setdefault(k, {}).setdefault(name, {"wall": [], "cpu": []})
                    e["wall"] += row["wall"]
                    e["cpu"] += row["cpu"]
                    for x in ("floor", "write", "out_bytes"):
                        if x in row:
                            res[k].setdefault(x, []).append(row[x])
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    names = [n for n, _ in builds]
    hdr = ["cell", "threads"] + [f"{n} wall ms" for n in names] + [f"{n} CPU ms" for n in names]
    hdr += ["floor ms", "write ms", "out MB"] + [f"{n} CPU / floor" for n in names]
    hdr += [f"{n} CPU / (floor+write)" for n in names]
    pq_names = [n for n in names if not (a.polars and n == "polars")]
    if len(pq_names) == 2:
        hdr.append(f"CPU {pq_names[0]}/{pq_names[1]}")
    if a.polars:
        hdr += [f"polars CPU / {n} CPU" for n in pq_names]
    rows = []
    for (label, th), e in res.items():
        med = {n: (statistics.median(e[n]["wall"]) * 1e3, statistics.median(e[n]["cpu"]) * 1e3) for n in names}
        fl = min(e["floor"]) * 1e3
        wr = min(e["write"]) * 1e3
        row = [label, str(th)] + [f"{med[n][0]:.1f}" for n in names] + [f"{med[n][1]:.1f}" for n in names]
        row += [f"{fl:.1f}", f"{wr:.1f}", f"{e['out_bytes'][0] / 1e6:.0f}"]
        row += [f"{med[n][1] / fl:.2f}x" for n in names]
        row += [f"{med[n][1] / (fl + wr):.2f}x" for n in names]
        if len(pq_names) == 2:
            row.append(f"{med[pq_names[0]][1] / med[pq_names[1]][1]:.3f}x")
        if a.polars:
            row += [f"{med['polars'][1] / med[n][1]:.2f}x" for n in pq_names]
        rows.append(row)
    w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(hdr)))
    print("  ".join("-" * x for x in w))
    for r in rows:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
    if a.json:
        Path(a.json).write_text(json.dumps({f"{k[0]}|{k[1]}": v for k, v in res.items()}))


if __name__ == "__main__":
    main()
