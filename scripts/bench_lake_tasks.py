"""Before/after figures for a lake of many small files (issues 30 and 32):
``pqfast.read_table(dir)`` and a dataset stream (``pqfast.dataset(dir)
.to_batches()``, each batch dropped) at 1 and 2 threads, two builds' Python
packages compared in one run. Each build runs in a worker process of its
own, kept alive; the driver asks them in turn, case by case (before, after,
before, after, ...), so that load on a shared machine falls on both alike.
Prints, per case, the median wall and CPU (process time: every thread of the
worker) per call, and the futex calls of one call of each when ``--futex``
(strace in the worker; counts only, no timing).

    python scripts/bench_lake_tasks.py --before /work/main/build/dev/python \\
        --after build/dev/python [--lake DIR] [--runs 3] [--futex]

The lake defaults to `pqfast bench read`'s 10,000-file lake
(``--lake-files 10000``: ~/.cache/pqfast/keep/bench-read-10k/lake-10000x1000-v1).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

LAKE = Path.home() / ".cache/pqfast/keep/bench-read-10k/lake-10000x1000-v1"
Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]
CASES = [(kind, cols, threads) for kind in ("read_table", "stream") for cols in ("all", "q12") for threads in (1, 2)]

# The worker: reads "kind cols threads" lines, runs the case once, answers
# {"wall": s, "cpu": s, "rows": n} (one JSON line).
WORKER = r"""
import json, os, sys, time
import pqfast
lake, q12 = sys.argv[1], sys.argv[2].split(",")
def run(kind, cols, threads):
    columns = None if cols == "all" else q12
    if kind == "read_table":
        return pqfast.read_table(lake, columns=columns, threads=threads).num_rows
    n = 0
    for b in pqfast.dataset(lake).to_batches(columns=columns, threads=threads):
        n += b.num_rows
    return n
for line in sys.stdin:
    kind, cols, threads = line.split()
    w, c = time.perf_counter(), time.process_time()
    rows = run(kind, cols, int(threads))
    print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "rows": rows}), flush=True)
"""


def worker(pythonpath: str, lake: Path, strace: str | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(Path(pythonpath).resolve()))
    cmd = [sys.executable, "-c", WORKER, str(lake), ",".join(Q12)]
    if strace:
        cmd = ["strace", "-f", "-c", "-e", "trace=futex", "-o", strace] + cmd
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)


def ask(p: subprocess.Popen, case) -> dict:
    p.stdin.write(" ".join(map(str, case)) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())


def futex_calls(pythonpath: str, lake: Path, case, out: Path) -> int:
    """Futex calls of one call of `case` (after one warm call, counted apart)."""
    warm = out.with_suffix(".warm")
    p = worker(pythonpath, lake, str(warm))
    ask(p, case)
    p.stdin.close()
    p.wait()
    p = worker(pythonpath, lake, str(out))
    ask(p, case)
    ask(p, case)
    p.stdin.close()
    p.wait()

    def calls(f: Path) -> int:
        for line in f.read_text().splitlines():
            parts = line.split()
            if parts and parts[-1] == "futex":
                return int(parts[3])  # (% time, seconds, usecs/call, calls, [errors,] syscall)
        return 0

    return calls(out) - calls(warm)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the first build's python directory (PYTHONPATH)")
    ap.add_argument("--after", required=True, help="the second build's python directory")
    ap.add_argument("--lake", default=str(LAKE))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--futex", action="store_true", help="also count futex calls per call (strace)")
    ap.add_argument("--kinds", default="read_table,stream", help="the cases' kinds, comma-separated")
    ap.add_argument("--cols", default="all,q12", help="the column sets, comma-separated (all, q12)")
    args = ap.parse_args()
    cases = [c for c in CASES if c[0] in args.kinds.split(",") and c[1] in args.cols.split(",")]
    lake = Path(args.lake)
    builds = {"before": args.before, "after": args.after}
    procs = {name: worker(path, lake) for name, path in builds.items()}
    got: dict = {}
    try:
        for case in cases:  # one warm call each
            for p in procs.values():
                ask(p, case)
        for _ in range(args.runs):
            for case in cases:
                for name, p in procs.items():
                    got.setdefault((case, name), []).append(ask(p, case))
    finally:
        for p in procs.values():
            p.stdin.close()
            p.wait()
    print(f"{lake.name}: medians of {args.runs} calls alternating, ms (load at start: {os.getloadavg()[0]:.1f})")
    head = "| case | threads | wall before | wall after | wall ratio | CPU before | CPU after | CPU ratio |"
    print(head)
    print("|" + "---|" * 8)
    for case in cases:
        kind, cols, threads = case
        b, a = got[(case, "before")], got[(case, "after")]
        assert {r["rows"] for r in b} == {r["rows"] for r in a}, "the builds read different row counts"
        wb, wa = (statistics.median(r["wall"] for r in x) * 1e3 for x in (b, a))
        cb, ca = (statistics.median(r["cpu"] for r in x) * 1e3 for x in (b, a))
        print(f"| {kind} {cols} | {threads} | {wb:,.0f} | {wa:,.0f} | {wb / wa:.2f}x | {cb:,.0f} | {ca:,.0f} | "
              f"{cb / ca:.2f}x |")
    if args.futex:
        print("\nfutex calls per call (strace -f -c):")
        for case in [c for c in CASES if c[2] == 2 and c[1] == "all"]:
            counts = {name: futex_calls(path, lake, case, Path(f"/tmp/futex-{name}-{case[0]}.txt"))
                      for name, path in builds.items()}
            print(f"  {case[0]} all, 2 threads: before {counts['before']:,}, after {counts['after']:,}")


if __name__ == "__main__":
    main()
