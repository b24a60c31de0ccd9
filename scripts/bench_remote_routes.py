#!/usr/bin/env python3
"""Remote reads by route, side by side: the dataset scan through the C++
streaming scanner (``pqfast.dataset(...).to_table``) and
``pqfast.read_table`` (and, run with a build from before the fifteenth
session, the staged scan it deleted: ``scan.scan_table`` on s3:// URLs, the
engine re-run per round of ranged GETs), over the same
lake on SeaweedFS behind the latency proxy (+N ms per request). Per case:
median ms and CPU ms (this process, all threads) of --repeat calls
(contenders alternating), requests and bytes
through the proxy, rows checked equal. Measures what read_table's routing
of s3:// reads decides on (docs/remote.md).

    .venv/bin/python scripts/bench_remote_routes.py [--latency-ms 20] [--files 10]

The lake: ``pqfast bench lookup``'s Bloom variant (10 files x 100,000 rows,
5 row groups each, built under ~/.cache/pqfast/bench_lookup if missing),
uploaded to a SeaweedFS started in a temporary directory.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import pyarrow.fs as pafs

import pqfast
from pqfast import _read_remote, scan as _scan
from pqfast._progress import Progress
from pqfast._s3server import LatencyProxy, S3Server
from pqfast._table import format_table
from pqfast._testlake import upload
from pqfast.benches import lookup as L


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--latency-ms", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cases", default="full,proj,range,lookup,fs-proj,fs-range,fs-lookup")
    ap.add_argument("--cold", action="store_true",
                    help="forget what earlier calls kept (tails, footers, listings) before each call")
    args = ap.parse_args()
    base = L.base_dir(None)
    bar = Progress(label="remote-routes", enabled=True)
    root = L.ensure_lakes(base, args.files, args.rows, 5, bar, variants=("bloom",))
    paths = L.lake_paths(root, "bloom", args.files)
    want_id = int(L.ids_of([(args.files // 2) * args.rows + 12345])[0])
    cases = {
        "full": (None, None),
        "proj": (["id", "amount"], None),
        "range": (["id", "quantity"], [("quantity", "<", 3)]),
        "lookup": (None, [("id", "=", want_id)]),
        # The same through filesystem=pyarrow.fs.S3FileSystem (fs_driver's backend).
        "fs-proj": (["id", "amount"], None),
        "fs-range": (["id", "quantity"], [("quantity", "<", 3)]),
        "fs-lookup": (None, [("id", "=", want_id)]),
    }
    chosen = [c for c in args.cases.split(",") if c]
    with tempfile.TemporaryDirectory() as d, S3Server(data_dir=d) as s3, LatencyProxy(s3.port, 0) as proxy:
        upload(s3.store(), paths, "bloom")
        proxy.set_delay(args.latency_ms)
        so = s3.storage_options(endpoint=proxy.endpoint)
        url = f"s3://{s3.bucket}/bloom/"
        rows = []
        fs = pafs.S3FileSystem(endpoint_override=proxy.endpoint.split("://", 1)[1], scheme="http",
                               access_key=s3.access_key, secret_key=s3.secret_key, region="us-east-1")
        for case in chosen:
            cols, filt = cases[case]
            if case.startswith("fs-"):
                src, kw = f"{s3.bucket}/bloom/", {"filesystem": fs}
            else:
                src, kw = url, {"storage_options": so}
            fns = {
                "scanner (dataset)": lambda: pqfast.dataset(src, **kw).to_table(columns=cols, filter=filt),
                "read_table": lambda: pqfast.read_table(src, columns=cols, filters=filt, **kw),
            }
            if hasattr(_scan, "_scan_staged"):
                # A build from before the fifteenth session, which deleted the
                # staged scan: it runs beside the scanner for comparison.
                fns = {"staged (scan_table)": lambda: _scan.scan_table(src, cols, filt, **kw), **fns}
            ref = None
            ok = {}
            for name, fn in fns.items():
                t = fn()
                ok[name] = ref is None or t.equals(ref)
                ref = t if ref is None else ref
            times = {n: [] for n in fns}
            cpu = {n: [] for n in fns}
            reqs = {n: [] for n in fns}
            nbytes = {n: [] for n in fns}
            for r in range(args.repeat):
                bar.message(f"{case}: round {r + 1}/{args.repeat}")
                for name, fn in fns.items():
                    if args.cold:
                        _scan.clear_tail_cache()
                        _read_remote._KEPT.clear()
                    proxy.reset()
                    t0, c0 = time.perf_counter(), time.process_time()
                    fn()
                    times[name].append(time.perf_counter() - t0)
                    # This process's CPU, every thread (the proxy and the store are processes of their own).
                    cpu[name].append(time.process_time() - c0)
                    st = proxy.stats()
                    reqs[name].append(st["requests"])
                    nbytes[name].append(st["bytes_out"])
            for name in fns:
                rows.append([case, name, f"{statistics.median(times[name]) * 1e3:,.1f}",
                             f"{statistics.median(cpu[name]) * 1e3:,.1f}",
                             f"{statistics.median(reqs[name]):.0f}", f"{statistics.median(nbytes[name]) / 1e6:,.2f}",
                             f"{ref.num_rows:,}", "yes" if ok[name] else "NO"])
    print(f"{args.files} files x {args.rows:,} rows (bench lookup's Bloom lake) on SeaweedFS, +{args.latency_ms:g} ms "
          f"per request; medians of {args.repeat} calls, contenders alternating ("
          + ("cold: caches emptied before each call)" if args.cold else "warm: each route's caches as a process keeps them)"))
    print(format_table(["case", "route", "ms", "CPU ms", "requests", "MB via proxy", "rows", "equal"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
