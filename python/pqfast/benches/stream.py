"""`pqfast bench stream`: a TPC-H lineitem lake (tpchgen-cli, --scale in --files
files) scanned batch by batch, each batch dropped after use, every column, by
pqfast.dataset (memory_limit=--memory-limit), pqfast.read_table (one Table,
when it fits), pyarrow.dataset's to_batches and polars' streaming engine
(collect_batches); DuckDB gives the reference count and checksums. Each
contender runs in its own process, which reports its peak RSS (ru_maxrss)
and wall time; every contender's row count and sums of l_orderkey and
l_quantity are checked against DuckDB's."""

from __future__ import annotations

import importlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.compute as pc  # (also pa.compute for _sums)

import pqfast
from .._s3server import S3Server
from .._table import format_table
from .._testlake import upload
from .read import _tpchgen

NAME = "stream"
HELP = "Scan a TPC-H lineitem lake batch by batch in bounded memory: pqfast.dataset vs pyarrow.dataset, polars, DuckDB."

CONTENDERS = ["pqfast-dataset", "pqfast-read_table", "pyarrow-dataset", "polars-streaming", "duckdb"]
DATA_VERSION = 1


def add_arguments(p) -> None:
    p.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1: 6M rows; the issue's: 10)")
    p.add_argument("--files", type=int, default=None, help="files in the lake (default 6 per unit of scale)")
    p.add_argument("--memory-limit", type=int, default=512, help="pqfast.dataset's memory_limit in MiB (default 512)")
    p.add_argument("--batch-size", type=int, default=131072, help="rows per batch (default 131072)")
    p.add_argument("--contenders", default=",".join(CONTENDERS), help="comma-separated subset of " + ",".join(CONTENDERS))
    p.add_argument("--data", default=None, help="where to build/reuse the lake (default build/bench-stream if "
                   "./build exists, else ~/.cache/pqfast/bench-stream)")
    p.add_argument("--s3", action="store_true", help="also scan the lake from S3 (SeaweedFS on 127.0.0.1, the "
                   "files uploaded once) with pqfast.dataset")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")


def lake_dir(arg: str | None, scale: float, files: int) -> Path:
    base = Path(arg) if arg else (Path("build") / "bench-stream" if Path("build").is_dir()
                                  else Path.home() / ".cache" / "pqfast" / "bench-stream")
    return base / f"sf{scale:g}-n{files}-v{DATA_VERSION}"


def ensure_lake(d: Path, scale: float, files: int, log=print) -> Path:
    """d/lineitem/lineitem.<part>.parquet as tpchgen-cli writes them; generated once."""
    out = d / "lineitem"
    stamp = d / "complete"
    if not stamp.exists():
        log(f"generating lineitem at scale {scale:g} in {files} files with tpchgen-cli ...")
        d.mkdir(parents=True, exist_ok=True)
        args = [_tpchgen(), "parquet", "-s", f"{scale:g}", "--tables=lineitem", f"--output-dir={d}", "--overwrite"]
        if files > 1:
            args.append(f"--parts={files}")
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        if files <= 1:  # one file: <d>/lineitem.parquet, moved into the lake's directory
            out.mkdir(exist_ok=True)
            os.replace(d / "lineitem.parquet", out / "lineitem.1.parquet")
        stamp.write_text("ok\n")
    return out


# ---- the contenders, each run in a child process --------------------------------------------------


def _sums(batches, first: list | None = None):
    """(rows, sum l_orderkey, sum l_quantity) of batches, each dropped after
    use; `first` gets the time the first batch came."""
    rows, ok, qty = 0, 0, 0
    for b in batches:
        if first is not None and not first:
            first.append(time.perf_counter())
        rows += b.num_rows
        ok += pc.sum(b.column("l_orderkey")).as_py() or 0
        qty += pc.sum(b.column("l_quantity")).as_py() or 0
        del b
    return rows, ok, qty


# What each contender imports, before its clock starts (an import is not a scan).
_MODULES = {"pqfast-dataset": "pqfast", "pqfast-dataset-s3": "pqfast", "pqfast-one-row-group": "pqfast",
            "pqfast-read_table": "pqfast", "pyarrow-dataset": "pyarrow.dataset", "polars-streaming": "polars",
            "duckdb": "duckdb"}


def _child(name: str, lake: str, memory_limit: int, batch_size: int) -> dict:
    importlib.import_module(_MODULES[name])
    glob = os.path.join(lake, "*.parquet")
    extra: dict = {}
    t0 = time.perf_counter()
    if name == "pqfast-dataset":
        ds = pqfast.dataset(lake)
        first: list = []
        rows, ok, qty = _sums(ds.to_batches(batch_size=batch_size, memory_limit=memory_limit), first)
        extra = {"first_batch_s": first[0] - t0 if first else None}
    elif name == "pqfast-dataset-s3":
        opts = json.loads(os.environ["PQFAST_BENCH_S3_OPTIONS"])
        ds = pqfast.dataset(lake, storage_options=opts)
        first = []
        rows, ok, qty = _sums(ds.to_batches(batch_size=batch_size, memory_limit=memory_limit), first)
        extra = {"first_batch_s": first[0] - t0 if first else None}
    elif name == "pqfast-one-row-group":
        # The time to read one row group (every column) of the first file alone, footer included.
        path = sorted(os.path.join(lake, f) for f in os.listdir(lake) if f.endswith(".parquet"))[0]
        with pqfast.ParquetFile(path) as f:
            t = f.read_row_group(0)
        return {"seconds": time.perf_counter() - t0, "rows": t.num_rows}
    elif name == "pqfast-read_table":
        try:
            t = pqfast.read_table(lake)
        except MemoryError as e:  # pqfast.MemoryLimitError: refused, as the first bullet says
            return {"refused": type(e).__name__, "seconds": time.perf_counter() - t0}
        rows, ok, qty = _sums(t.to_batches(max_chunksize=batch_size))
        del t
    elif name == "pyarrow-dataset":
        import pyarrow.dataset as pds  # here, not at the top: the CLI imports every bench (0.4 s, 88 MiB)

        rows, ok, qty = _sums(pds.dataset(lake, format="parquet").to_batches(batch_size=batch_size))
    elif name == "polars-streaming":
        import polars as pl

        def arrow_batches():
            for df in pl.scan_parquet(glob).collect_batches(chunk_size=batch_size, engine="streaming"):
                yield from df.to_arrow().to_batches()

        rows, ok, qty = _sums(arrow_batches())
    elif name == "duckdb":
        import duckdb

        con = duckdb.connect()
        rows, ok, qty = con.execute(f"SELECT count(*), sum(l_orderkey), sum(l_quantity) "
                                f"FROM read_parquet('{glob}')").fetchone()
    else:
        raise SystemExit(f"unknown contender {name!r}")
    secs = time.perf_counter() - t0
    out = {"rows": int(rows), "sum_orderkey": int(ok), "sum_quantity": str(qty), "seconds": secs}
    out.update(extra)
    return out


def _run_child(name: str, lake, memory_limit: int, batch_size: int, env: dict | None = None) -> dict:
    # Peak RSS: ru_maxrss of the child as the kernel counts it (KiB on Linux),
    # read here from its own exit: nothing of this process is in it.
    code = ("import json, resource, sys; from pqfast.benches.stream import _child; "
            "r = _child(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])); "
            "r['peak_rss_kib'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; print(json.dumps(r))")
    p = subprocess.run([sys.executable, "-c", code, name, str(lake), str(memory_limit), str(batch_size)],
                       capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _on_s3(lake: Path, ml: int, batch_size: int, log) -> dict:
    """pqfast.dataset's scan of the lake uploaded to SeaweedFS (kept beside it)."""
    import obstore

    with S3Server(data_dir=str(lake.parent / "s3"), access_key="pqfastbench",
                  secret_key="pqfastbench-secret-key-0123456789") as s3:
        store = s3.store()
        have = {o["path"] for batch in obstore.list(store, prefix="lineitem/") for o in batch}
        todo = [str(p) for p in sorted(lake.glob("*.parquet")) if f"lineitem/{p.name}" not in have]
        if todo:
            log(f"uploading {len(todo)} files to SeaweedFS ...")
            upload(store, todo, "lineitem", concurrency=2)  # (SeaweedFS on a small machine times out under more)
        log("pqfast-dataset-s3 ...")
        return _run_child("pqfast-dataset-s3", f"s3://{s3.bucket}/lineitem/", ml, batch_size,
                          {"PQFAST_BENCH_S3_OPTIONS": json.dumps(s3.storage_options())})


def measure(scale: float = 1.0, files: int | None = None, memory_limit_mib: int = 512, batch_size: int = 131072,
            contenders=CONTENDERS, data: str | None = None, log=None, s3: bool = False) -> list[dict]:
    log = log or (lambda s: print(s, file=sys.stderr))
    n_files = files if files is not None else max(1, round(6 * scale))
    lake = ensure_lake(lake_dir(data, scale, n_files), scale, n_files, log)
    ml = memory_limit_mib << 20
    order = [c for c in contenders if c != "duckdb"]
    ref = _run_child("duckdb", lake, ml, batch_size)
    got = {"duckdb": ref}
    for name in order:
        log(f"{name} ...")
        got[name] = _run_child(name, lake, ml, batch_size)
    if s3:
        try:
            got["pqfast-dataset-s3"] = _on_s3(lake, ml, batch_size, log)
        except Exception as e:  # noqa: BLE001 - the store failed: said in its row, the other rows kept
            got["pqfast-dataset-s3"] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
        order.append("pqfast-dataset-s3")
    rows = []
    for name in ["duckdb"] + order if "duckdb" in contenders else order:
        r = got[name]
        row = {"contender": name, "scale": scale, "files": n_files}
        if "error" in r or "refused" in r:
            row.update(status=r.get("refused") or ("error: " + r["error"]), seconds=r.get("seconds"))
        else:
            same = all(r[k] == ref.get(k) for k in ("rows", "sum_orderkey", "sum_quantity"))
            row.update(rows=r["rows"], seconds=r["seconds"], peak_rss_mib=r["peak_rss_kib"] / 1024,
                       status="ok" if same else "MISMATCH with duckdb")
        if name.startswith("pqfast-dataset"):
            row["memory_limit_mib"] = memory_limit_mib
            row["first_batch_s"] = r.get("first_batch_s")
        rows.append(row)
    if "pqfast-dataset" in contenders:
        one = _run_child("pqfast-one-row-group", lake, ml, batch_size)
        rows.append({"contender": "pqfast one row group alone", "scale": scale, "files": n_files,
                     "seconds": one.get("seconds"), "peak_rss_mib": one.get("peak_rss_kib", 0) / 1024,
                     "rows": one.get("rows", "-"), "status": "ok" if "error" not in one else one["error"]})
    return rows


def run(args) -> int:
    contenders = [c.strip() for c in args.contenders.split(",") if c.strip()]
    bad = [c for c in contenders if c not in CONTENDERS]
    if bad:
        raise SystemExit(f"error: unknown contenders {bad} (choose from {CONTENDERS})")
    rows = measure(args.scale, args.files, args.memory_limit, args.batch_size, contenders, args.data, s3=args.s3)
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    print(f"TPC-H lineitem SF{args.scale:g}, {rows[0]['files']} files, every column, batch by batch "
          f"(batch_size {args.batch_size}); pqfast.dataset memory_limit={args.memory_limit} MiB; "
          f"{os.cpu_count()} CPUs")
    print(format_table(["contender", "seconds", "first batch s", "peak RSS MiB", "rows", "check"],
                       [[r["contender"], r.get("seconds") if r.get("seconds") is not None else "-",
                         r.get("first_batch_s") if r.get("first_batch_s") is not None else "-",
                         r.get("peak_rss_mib", "-"), r.get("rows", "-"), r["status"]] for r in rows]))
    return 0 if all(r["status"] == "ok" or r["status"] == "MemoryLimitError" for r in rows) else 1
