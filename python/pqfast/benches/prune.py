"""`pqfast bench prune`: Bloom-filter pruning of a 200-file lake, pqfast vs DuckDB's
parquet_bloom_probe on the same files and values, and footer parsing vs
pyarrow.parquet.read_metadata, in the same run."""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import pqfast
from .. import _pqfast
from .._encode import encode_values
from .._progress import Progress
from .._table import format_table

NAME = "prune"
HELP = "Prune a 200-file lake (10 row groups each, Bloom filters on int64 and string): pqfast vs DuckDB, footers vs pyarrow."

LAKE_FILES = 200
ROW_GROUPS = 10
ROWS_PER_GROUP = 5000
FPP = 0.01
LAKE_VERSION = 1


def add_arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="fewer repetitions (the lake is the same)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    p.add_argument("--runs", type=int, default=0, help="repetitions per measurement (median reported)")
    p.add_argument("--lake", default=None, help="where to build/reuse the lake (default: build/bench-lake "
                   "if ./build exists, else ~/.cache/pqfast/bench-lake; env PQFAST_BENCH_LAKE)")
    p.add_argument("--threads", type=int, default=0, help="pqfast threads over files (0: all cores)")
    p.add_argument("--from-idle", action="store_true",
                   help="time single calls after a 10 ms pause each, instead of steady-state blocks")
    p.add_argument("--alternating", action="store_true",
                   help="time single calls, contenders alternating, no pause (a user's one lookup at a time)")


def lake_dir(arg: str | None = None) -> Path:
    if arg:
        return Path(arg)
    if os.environ.get("PQFAST_BENCH_LAKE"):
        return Path(os.environ["PQFAST_BENCH_LAKE"])
    if Path("build").is_dir():
        return Path("build") / "bench-lake"
    return Path.home() / ".cache" / "pqfast" / "bench-lake"


def _key_of(ids):
    return pc.binary_join_element_wise(pa.scalar("key-"), pc.cast(ids, pa.string()), "")


def ensure_lake(d: Path, progress: Progress | None = None) -> list[str]:
    """The lake: LAKE_FILES files of ROW_GROUPS row groups; built once, then reused."""
    stamp = d / "LAKE"
    want = f"v{LAKE_VERSION} files={LAKE_FILES} groups={ROW_GROUPS} rows={ROWS_PER_GROUP} fpp={FPP}"
    paths = [str(d / f"part-{i:04d}.parquet") for i in range(LAKE_FILES)]
    if stamp.exists() and stamp.read_text() == want and all(os.path.exists(p) for p in paths):
        return paths
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    n = ROW_GROUPS * ROWS_PER_GROUP
    for i, p in enumerate(paths):
        if progress:
            progress.message(f"building the lake: file {i + 1}/{LAKE_FILES} in {d}")
        # Disjoint id ranges per file (as in a time-partitioned lake), random within.
        ids = (np.int64(i) << 32) + rng.choice(np.int64(1) << 31, size=n, replace=False).astype(np.int64)
        ids_arr = pa.array(ids)
        t = pa.table({"id": ids_arr, "key": _key_of(ids_arr), "amount": pa.array(rng.random(n))})
        pq.write_table(t, p, row_group_size=ROWS_PER_GROUP,
                       bloom_filter_options={"id": {"ndv": ROWS_PER_GROUP, "fpp": FPP},
                                             "key": {"ndv": ROWS_PER_GROUP, "fpp": FPP}})
    stamp.write_text(want)
    return paths


def _values(paths: list[str], k: int, rng) -> tuple[list[int], list[str]]:
    """k int64 and k string values: half present somewhere in the lake, half absent."""
    present = []
    for p in rng.choice(len(paths), size=max(1, k // 2), replace=True):
        ids = pq.read_table(paths[int(p)], columns=["id"]).column(0)
        present.append(int(ids[int(rng.integers(len(ids)))].as_py()))
    absent = [int(x) for x in (np.int64(LAKE_FILES + 5) << 32) + rng.integers(0, 1 << 31, size=k - len(present))]
    ints = (present + absent)[:k] if k > 1 else absent[:1] or present[:1]
    strs = [f"key-{v}" for v in ints]
    return ints, strs


def _paired_medians(fns, runs, block_s: float = 0.05, from_idle: bool = False,
                    single: bool = False) -> list[float]:
    """Median seconds per call of each function, in the steady state.

    Each round runs every function in a block of back-to-back calls, blocks
    interleaved so that all see the same machine load (the cores are shared),
    and the order rotates from round to round (a b c, b c a, c a b, ...) so
    that none always follows the same one. A block lasts about `block_s`: a
    call shorter than that is repeated, and the block's first call (which
    pays for waking idle cores and cold caches) is then left out; a call
    longer than that is the block. Every contender is measured the same way.

    With `from_idle`, each call instead follows a 10 ms pause and counts
    alone: what a caller that prunes now and then sees (idle cores wake
    first), which weighs more on short calls. With `single`, each call
    counts alone without a pause: contenders alternate call by call."""
    for fn in fns:
        fn()  # warm up (page cache, imports)
    times = [[] for _ in fns]
    n = len(fns)
    for i in range(max(runs)):
        for j in range(n):
            k = (i + j) % n
            fn = fns[k]
            if i >= runs[k]:
                continue
            if from_idle:
                time.sleep(0.01)
            t0 = time.perf_counter()
            fn()
            first = time.perf_counter() - t0
            if first >= block_s or from_idle or single:
                times[k].append(first)
                continue
            start = time.perf_counter()
            while True:
                t0 = time.perf_counter()
                fn()
                t1 = time.perf_counter()
                times[k].append(t1 - t0)
                if t1 - start >= block_s:
                    break
    return [statistics.median(t) for t in times]


def measure(quick: bool = False, runs: int = 0, lake: str | None = None, threads: int = 0,
            progress: Progress | None = None, from_idle: bool = False, single: bool = False) -> list[dict]:
    import duckdb

    runs = runs or (3 if quick else 9) * (4 if single else 1)
    d = lake_dir(lake)
    paths = ensure_lake(d, progress)
    glob_pattern = str(d / "part-*.parquet")
    rng = np.random.default_rng(7)
    con = duckdb.connect()
    threads = threads or os.cpu_count() or 1
    con.execute(f"SET threads TO {threads}")
    rows = []

    def say(msg):
        if progress:
            progress.message(msg)

    for k in (1, 100):
        ints, strs = _values(paths, k, rng)
        for column, vals in (("id", ints), ("key", strs)):
            label = f"{column} ({'int64' if column == 'id' else 'string'})"
            task = f"prune {k} value{'s' if k > 1 else ''}"

            def duck():
                # DuckDB probes one value per call: one call per value, over the same files.
                out = 0
                for v in vals:
                    out += len(con.execute("SELECT row_group_id FROM parquet_bloom_probe(?, ?, ?) "
                                           "WHERE NOT bloom_filter_excludes", [glob_pattern, column, v]).fetchall())
                return out

            # Same answers: row groups kept by pqfast's Bloom verdicts (without min/max) == DuckDB's.
            t = pqfast.prune(paths, column, vals, threads=threads, use_statistics=False, by_value=True)
            agree = sum(1 for v in t["verdict"].to_pylist() if v != "absent") == duck()
            desc = pqfast.ParquetFile(paths[0])._columns[0 if column == "id" else 1]
            pt, tl, data, offs = encode_values(desc, vals)
            duck_runs = max(1, runs // 2) if k > 1 else runs
            # Variants: pqfast as it prunes (min/max, then the Bloom filters that
            # remain) with cold footers and with footer caches on both sides;
            # for one value also with Bloom filters only (use_statistics=False),
            # the same work DuckDB's probe does.
            variants = [(False, True), (True, True)] + ([(False, False)] if k == 1 else [])
            for cached, use_stats in variants:
                mode = "footer cache" if cached else "cold footers"
                row_task = task if use_stats else f"{task}, Bloom only"
                say(f"{row_task}, {column}, {mode}: pqfast and DuckDB parquet_bloom_probe, interleaved")
                pqfast.clear_footer_cache()
                con.execute(f"SET parquet_metadata_cache = {'true' if cached else 'false'}")
                ours, core, theirs = _paired_medians(
                    # End to end from the glob pattern DuckDB is given (expansion included).
                    [lambda: pqfast.prune(glob_pattern, column, vals, threads=threads, cache=cached,
                                          use_statistics=use_stats),
                     lambda: _pqfast._prune_paths(paths, column, pt, tl, data, offs, threads,
                                                  False, use_stats, True, None, cached),
                     duck],
                    [runs, runs, duck_runs], from_idle=from_idle, single=single)
                pqfast.clear_footer_cache()
                rows.append({"task": row_task, "column": label, "footers": mode,
                             "timing": "from idle" if from_idle else "alternating" if single else "steady state",
                             "use_statistics": use_stats,
                             "pqfast_ms": ours * 1e3, "pqfast_core_ms": core * 1e3,
                             "peer": "DuckDB parquet_bloom_probe" + (" (parquet_metadata_cache)" if cached else ""),
                             "peer_ms": theirs * 1e3, "speedup": theirs / ours, "same_answers": agree,
                             "files": LAKE_FILES, "row_groups": LAKE_FILES * ROW_GROUPS})
            con.execute("SET parquet_metadata_cache = false")
    say("footer parse: pqfast.ParquetFile vs pyarrow.parquet.read_metadata")
    ours, ours_py, theirs = _paired_medians(
        [lambda: [_pqfast._read_metadata_path(p) for p in paths],
         lambda: [pqfast.ParquetFile(p) for p in paths],
         lambda: [pq.read_metadata(p) for p in paths]], [runs, runs, runs])
    rows.append({"task": f"footer parse x{LAKE_FILES}", "column": "all", "footers": "cold footers",
                 "pqfast_ms": ours_py * 1e3,
                 "pqfast_core_ms": ours * 1e3, "peer": "pyarrow read_metadata", "peer_ms": theirs * 1e3,
                 "speedup": theirs / ours_py, "same_answers": True, "files": LAKE_FILES,
                 "row_groups": LAKE_FILES * ROW_GROUPS})
    return rows


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    rows = measure(args.quick, args.runs, args.lake, args.threads, progress, args.from_idle, args.alternating)
    progress.close()
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0

    print(f"Pruning a {LAKE_FILES}-file lake ({ROW_GROUPS} row groups x {ROWS_PER_GROUP:,} rows per file, "
          f"Bloom filters fpp {FPP} on id and key), medians of "
          f"{'single calls after a 10 ms pause' if args.from_idle else 'alternating single calls' if args.alternating else 'back-to-back calls'}; SIMD: {pqfast.simd_level()}")
    print(format_table(
        ["task", "column", "footers", "pqfast ms", "(native core)", "peer", "peer ms", "speedup", "same answers"],
        [[r["task"], r["column"], r["footers"], r["pqfast_ms"], r["pqfast_core_ms"], r["peer"], r["peer_ms"],
          f"{r['speedup']:.1f}x", "yes" if r["same_answers"] else "NO"] for r in rows]))
    return 0
