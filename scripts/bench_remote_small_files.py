"""Requests, rounds and wall time of reading a lake of small objects from
SeaweedFS (pqfast._s3server) behind the latency proxy: ``read_table(url,
stats=True)`` twice per projection (cold: the first read of a fresh process,
then with footers cached), then ``pqfast.dataset(url).to_table()``, each
checked equal to pyarrow.dataset's read of the same local files. Run it once
per build to compare (issue 30, remote file tasks: docs/lake_small_files.md):

    PYTHONPATH=build/dev/python python scripts/bench_remote_small_files.py \\
        [--files 1000] [--rows 20000] [--delay-ms 10]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import pqfast
from pqfast._s3server import LatencyProxy, S3Server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=20000, help="rows per object")
    ap.add_argument("--delay-ms", type=float, default=10.0)
    args = ap.parse_args()
    import obstore

    d = tempfile.mkdtemp()
    n, rows = args.files, args.rows
    for i in range(n):
        at = i * rows
        t = pa.table({"k": pa.array(range(at, at + rows), pa.int64()),
                      "s": pa.array([f"v{j % 17}" for j in range(rows)]),
                      "d": pa.array([j * 0.5 for j in range(rows)])})
        pq.write_table(t, f"{d}/part-{i:05d}.parquet")
    want = ds.dataset(d, format="parquet").to_table()
    print(f"{n} objects of {rows} rows ({os.path.getsize(f'{d}/part-00000.parquet'):,} bytes each), "
          f"proxy delay {args.delay_ms} ms, load {os.getloadavg()[0]:.1f}")
    print("| read | columns | equal | requests | rounds | wall ms |")
    print("|---|---|---|---|---|---|")
    with S3Server() as s3:
        store = s3.store()
        for f in sorted(os.listdir(d)):
            with open(f"{d}/{f}", "rb") as fh:
                obstore.put(store, f"small/{f}", fh.read())
        proxy = LatencyProxy(s3.port, delay_ms=0)
        try:
            opts = s3.storage_options(endpoint=proxy.endpoint)
            url = f"s3://{s3.bucket}/small/"
            for cols in (None, ["k", "s"]):
                w = want if cols is None else want.select(cols)
                for what in ("read_table (cold)" if cols is None else "read_table", "read_table (footers cached)"):
                    proxy.reset()
                    proxy.set_delay(args.delay_ms)
                    t0 = time.perf_counter()
                    got, st = pqfast.read_table(url, storage_options=opts, columns=cols, stats=True)
                    wall = (time.perf_counter() - t0) * 1e3
                    print(f"| {what} | {cols or 'all'} | {got.equals(w)} | {proxy.stats()['requests']:,} | "
                          f"{st.get('rounds')} | {wall:,.0f} |")
                proxy.reset()
                proxy.set_delay(args.delay_ms)
                t0 = time.perf_counter()
                got = pqfast.dataset(url, storage_options=opts).scanner(columns=cols, batch_size=777).to_table()
                wall = (time.perf_counter() - t0) * 1e3
                print(f"| dataset to_table | {cols or 'all'} | {got.equals(w)} | {proxy.stats()['requests']:,} | | "
                      f"{wall:,.0f} |")
        finally:
            proxy.stop()


if __name__ == "__main__":
    main()
