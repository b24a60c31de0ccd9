"""``pqfast bench lookup-s3``: the rows for one id from the 100-file Bloom lake
of ``pqfast bench lookup``, on S3: SeaweedFS on 127.0.0.1 behind the latency
proxy (+20 ms per request by default), pqfast.read_table(filters=) against
polars (scan_parquet().filter()) and pyarrow.dataset over the same store,
calls alternating, medians; rows checked equal; pqfast's request rounds and
the proxy's request count per call."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pyarrow.fs as pafs

import pqfast
from . import lookup as L
from .._progress import Progress
from .._s3server import LatencyProxy, S3Server
from .._table import format_table
from .._testlake import upload

NAME = "lookup-s3"
HELP = "rows for one id from a 100-file lake on S3 (SeaweedFS + latency proxy): pqfast vs polars, pyarrow.dataset"


def add_arguments(p) -> None:
    p.add_argument("--files", type=int, default=100, help="files in the lake (default 100)")
    p.add_argument("--rows", type=int, default=500_000, help="rows per file (default 500,000)")
    p.add_argument("--latency-ms", type=float, default=20.0, help="added per request by the proxy (default 20)")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per contender; medians (default 5)")
    p.add_argument("--dir", default=None, help="where the lakes and the server's data are kept")
    p.add_argument("--contenders", default="pqfast,pqfast-cold,polars,pyarrow",
                   help="pqfast,pqfast-cold,polars,pyarrow (pqfast-cold: its tail cache emptied before each call); "
                        "--contenders pqfast runs only pqfast")
    p.add_argument("--json", action="store_true", help="one JSON object per row")


def run(args) -> int:
    import obstore
    import pyarrow.dataset as ds  # here, not at the top: the CLI imports every bench (0.4 s, 88 MiB)

    base = L.base_dir(args.dir)
    bar = Progress(label="lookup-s3", enabled=not args.json)
    root = L.ensure_lakes(base, args.files, args.rows, 5, bar)
    paths = L.lake_paths(root, "bloom", args.files)
    g = (args.files // 2) * args.rows + 12345
    want_id = int(L.ids_of([g])[0])
    filters = [("id", "=", want_id)]
    contenders = [c for c in args.contenders.split(",") if c]
    with S3Server(data_dir=str(base / f"s3_{args.files}x{args.rows}"), access_key="pqfastbench",
                  secret_key="pqfastbench-secret-key-0123456789") as s3, \
            LatencyProxy(s3.port) as proxy:
        store = s3.store()
        prefix = f"bloom_{args.files}x{args.rows}/"
        have = {o["path"] for batch in obstore.list(store, prefix=prefix) for o in batch}
        todo = [p for p in paths if prefix + Path(p).name not in have]
        if todo:
            bar.message(f"uploading {len(todo)} files to SeaweedFS")

            # (8 at a time: 64 multipart uploads of 40 MB at once time out
            # against a local SeaweedFS on two cores)
            upload(store, todo, prefix.rstrip("/"), concurrency=8)
        proxy.set_delay(args.latency_ms)
        so = s3.storage_options(endpoint=proxy.endpoint)
        url = f"s3://{s3.bucket}/{prefix}*.parquet"

        def pqfast_call():
            t, st = pqfast.read_table(url, filters=filters, storage_options=so, stats=True)
            return t, st

        def pqfast_cold_call():
            pqfast.clear_footer_cache()
            return pqfast_call()

        def polars_call():
            import polars as pl

            pso = {"aws_endpoint_url": proxy.endpoint, "aws_region": "us-east-1", "aws_allow_http": "true",
                   "aws_access_key_id": s3.access_key, "aws_secret_access_key": s3.secret_key}
            return pl.scan_parquet(url, storage_options=pso).filter(pl.col("id") == want_id).collect().to_arrow(), {}

        def pyarrow_call():
            fs = pafs.S3FileSystem(endpoint_override=proxy.endpoint.split("://", 1)[1], scheme="http",
                                   access_key=s3.access_key, secret_key=s3.secret_key, region="us-east-1")
            d = ds.dataset(f"{s3.bucket}/{prefix}", filesystem=fs, format="parquet")
            return d.to_table(filter=ds.field("id") == want_id), {}

        fns = {"pqfast": pqfast_call, "pqfast-cold": pqfast_cold_call, "polars": polars_call, "pyarrow": pyarrow_call}
        times: dict[str, list[float]] = {c: [] for c in contenders}
        extra: dict[str, dict] = {c: {} for c in contenders}
        rows_ok: dict[str, bool] = {}
        ref = None
        for c in contenders:  # one untimed call each: rows checked
            t, _ = fns[c]()
            ids = sorted(t.column("id").to_pylist())
            ref = ids if ref is None else ref
            rows_ok[c] = ids == ref == [want_id]
        for r in range(args.repeat):
            bar.message(f"round {r + 1}/{args.repeat}, contenders alternating")
            for c in contenders:
                proxy.reset()
                t0 = time.perf_counter()
                _, st = fns[c]()
                times[c].append(time.perf_counter() - t0)
                ps = proxy.stats()
                extra[c].setdefault("requests", []).append(ps["requests"])
                extra[c].setdefault("bytes_out", []).append(ps["bytes_out"])
                if st:
                    extra[c]["round_detail"] = st.get("round_detail")
                    extra[c].setdefault("rounds", []).append(st.get("rounds"))
                    extra[c].setdefault("bytes", []).append(st.get("bytes_fetched"))
        rows = []
        pq_ms = statistics.median(times["pqfast"]) * 1e3 if "pqfast" in times else None
        if pq_ms is None and "pqfast-cold" in times:
            pq_ms = statistics.median(times["pqfast-cold"]) * 1e3
        for c in contenders:
            ms = statistics.median(times[c]) * 1e3
            row = {"contender": c, "ms": round(ms, 1), "x_pqfast": round(ms / pq_ms, 1) if pq_ms else None,
                   "requests": statistics.median(extra[c]["requests"]), "rows_equal": rows_ok[c],
                   "proxy_bytes": statistics.median(extra[c]["bytes_out"]),
                   "latency_ms": args.latency_ms, "files": args.files}
            if "rounds" in extra[c]:
                row["rounds"] = max(extra[c]["rounds"])
                row["bytes_fetched"] = statistics.median(extra[c]["bytes"])
                row["round_detail"] = extra[c].get("round_detail")
            rows.append(row)
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    print(f"1 id from {args.files} files x {args.rows:,} rows (Bloom lake) on SeaweedFS behind a "
          f"+{args.latency_ms:g} ms proxy; ms, medians of {args.repeat} calls alternating; "
          f"(x) = ms / pqfast's")
    print(format_table(["contender", "ms", "(x)", "requests", "rounds", "MB through the proxy", "rows equal"],
                       [[r["contender"], f"{r['ms']:,.1f}", f"{r['x_pqfast']}x", f"{r['requests']:.0f}",
                         r.get("rounds", ""), f"{r['proxy_bytes'] / 1e6:,.1f}", "yes" if r["rows_equal"] else "NO"]
                        for r in rows]))
    for r in rows:
        if r.get("round_detail"):
            print(f"{r['contender']}'s request rounds (last call): " + "; ".join(
                f"{d['what']} {d['requests']} GET{'s' if d['requests'] != 1 else ''} {d['bytes'] / 1e6:.2f} MB "
                f"{d['ms']:.0f} ms" for d in r["round_detail"]))
    return 0
