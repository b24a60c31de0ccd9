"""`pqfast bench nested`: nested columns (issue 20) read whole into Arrow by
pqfast, pyarrow, polars and DuckDB in one run: list<int64>, list<string>, a
struct of 5 flat fields, list<struct>, map<string,int64> and a 3-deep nesting
(list<struct<x: list<int64>, y: struct<z: string>>>), each with and without
nulls, written by pyarrow and by polars; plus a flat reference: the same int64
values as list<int64>'s, read flat.

Unit: leaf values (the slots of the leaf arrays, nulls included) per second
of process CPU time, and CPU time. Medians of warm calls (each after an
untimed one), contenders alternating call by call. One worker process per
thread count (polars sizes its pool from POLARS_MAX_THREADS at import): 1
thread = pqfast use_threads=False, pyarrow use_threads=False, polars
POLARS_MAX_THREADS=1, DuckDB SET threads=1; 2 threads = pqfast's and
pyarrow's pools (pyarrow set_cpu_count(2)), polars 2, DuckDB 2. Every
contender's result is checked against pyarrow's before timing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import pqfast
from .. import _pqfast
from .._table import format_table

NAME = "nested"
HELP = ("Read nested columns (lists, structs, maps, 3 deep; with and without nulls; pyarrow- and polars-written) "
        "into Arrow: pqfast vs pyarrow vs polars vs DuckDB, 1 and 2 threads.")

SHAPES = ["list_int64", "list_string", "struct5", "list_struct", "map_string_int64", "deep3"]
WRITERS = ["pyarrow", "polars"]
READERS = ["pqfast", "pyarrow", "polars", "duckdb"]
LABELS = {"pqfast": "pqfast", "pyarrow": "pyarrow", "polars": "polars", "duckdb": "DuckDB"}
FLAT = "flat_int64"  # the reference row: list_int64's values, flat
DATA_VERSION = 1
ROW_GROUP = 262_144


def add_arguments(p) -> None:
    p.add_argument("--rows", type=int, default=None, help="rows per file (default 1,000,000; --quick: 100,000)")
    p.add_argument("--runs", type=int, default=None, help="timed calls per cell, median reported (default 5; --quick: 3)")
    p.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    p.add_argument("--shapes", default=",".join(SHAPES), help=f"shapes to run (default all: {','.join(SHAPES)})")
    p.add_argument("--readers", default=",".join(READERS), help="contenders (default all; pqfast always runs)")
    p.add_argument("--data", default=None, help="where the files are built and kept (default build/bench-nested "
                   "if ./build exists, else ~/.cache/pqfast/bench-nested)")
    p.add_argument("--quick", action="store_true", help="100,000 rows a file, 3 runs")
    p.add_argument("--json", action="store_true", help="one JSON object per (reader, file, threads) cell")
    p.add_argument("--worker", type=int, default=0, help=__import__("argparse").SUPPRESS)


def _sizes(args) -> tuple[int, int]:
    return (args.rows or (100_000 if args.quick else 1_000_000)), (args.runs or (3 if args.quick else 5))


def data_dir(arg: str | None, rows: int) -> Path:
    base = Path(arg) if arg else (Path("build") / "bench-nested" if Path("build").is_dir()
                                  else Path.home() / ".cache" / "pqfast" / "bench-nested")
    return base / f"r{rows}-v{DATA_VERSION}"


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# ---- data ------------------------------------------------------------------------------


def _mask(rng, n: int, p: float):
    return pa.array(rng.random(n) < p) if p > 0 and n else None


def _lists(rng, n: int, p: float, child_fn):
    """list arrays of 0..7 values (mean 3.5): child_fn(total) builds the values."""
    mask = _mask(rng, n, p)
    lens = rng.integers(0, 8, n)
    if mask is not None:
        lens[mask.to_numpy(zero_copy_only=False)] = 0
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    return offsets, child_fn(int(offsets[-1])), mask


def _ints(rng, n: int, p: float):
    return pa.array(rng.integers(-(2**40), 2**40, n), pa.int64(), mask=_np(_mask(rng, n, p)))


def _np(mask):
    return None if mask is None else mask.to_numpy(zero_copy_only=False)


def _strings(rng, n: int, p: float, pool_size: int = 5000):
    """Strings of 3..20 characters drawn from a pool (so dictionaries stay in use)."""
    pool = pa.array([f"v{i}-" + "x" * int(k) for i, k in enumerate(rng.integers(0, 16, pool_size))])
    idx = pa.array(rng.integers(0, pool_size, n), pa.int32(), mask=_np(_mask(rng, n, p)))
    return pc.take(pool, idx)


def shape_array(shape: str, n: int, nulls: bool, seed: int = 7):
    """n rows of one bench shape (nulls: 10% at every nullable level)."""
    rng = np.random.default_rng(seed)
    p = 0.1 if nulls else 0.0
    if shape == "list_int64":
        off, vals, mask = _lists(rng, n, p, lambda k: _ints(rng, k, p))
        return pa.ListArray.from_arrays(pa.array(off), vals, mask=mask)
    if shape == "list_string":
        off, vals, mask = _lists(rng, n, p, lambda k: _strings(rng, k, p))
        return pa.ListArray.from_arrays(pa.array(off), vals, mask=mask)
    if shape == "struct5":
        fields = [
            pa.array(rng.integers(-(2**31), 2**31 - 1, n), pa.int32(), mask=_np(_mask(rng, n, p))),
            _ints(rng, n, p),
            pa.array(np.round(rng.standard_normal(n) * 1e3, 3), pa.float64(), mask=_np(_mask(rng, n, p))),
            _strings(rng, n, p),
            pa.array(rng.random(n) < 0.5, pa.bool_(), mask=_np(_mask(rng, n, p))),
        ]
        return pa.StructArray.from_arrays(fields, names=["i32", "i64", "f64", "s", "b"], mask=_mask(rng, n, p))

    def ab(k):
        return pa.StructArray.from_arrays([_ints(rng, k, p), _strings(rng, k, p)], names=["a", "b"],
                                          mask=_mask(rng, k, p))

    if shape == "list_struct":
        off, vals, mask = _lists(rng, n, p, ab)
        return pa.ListArray.from_arrays(pa.array(off), vals, mask=mask)
    if shape == "map_string_int64":
        off, total, mask = _lists(rng, n, p, lambda k: k)  # (the child is built here)
        # Keys unique within a map (readers may merge duplicates): "k<position>-<0..9>".
        pos = np.arange(total) - np.repeat(off[:-1], np.diff(off))
        pool = pa.array([f"k{j}-{r}" for j in range(8) for r in range(10)])
        keys = pool.take(pa.array(pos * 10 + rng.integers(0, 10, total)))
        return pa.MapArray.from_arrays(pa.array(off), keys, _ints(rng, total, p), mask=mask)
    if shape == "deep3":
        def elem(k):
            xo, xv, xm = _lists(rng, k, p, lambda j: _ints(rng, j, p))
            x = pa.ListArray.from_arrays(pa.array(xo), xv, mask=xm)
            y = pa.StructArray.from_arrays([_strings(rng, k, p)], names=["z"], mask=_mask(rng, k, p))
            return pa.StructArray.from_arrays([x, y], names=["x", "y"], mask=_mask(rng, k, p))
        off, vals, mask = _lists(rng, n, p, elem)
        return pa.ListArray.from_arrays(pa.array(off), vals, mask=mask)
    raise ValueError(f"unknown shape {shape}")


def leaf_values(t) -> int:
    """Slots of the leaf arrays (nulls included) below every column."""
    def count(a) -> int:
        if isinstance(a, pa.ChunkedArray):
            return sum(count(c) for c in a.chunks)
        tt = a.type
        if pa.types.is_map(tt):
            off = a.offsets
            s, e = off[0].as_py(), off[-1].as_py()
            return count(a.keys.slice(s, e - s)) + count(a.items.slice(s, e - s))
        if pa.types.is_list(tt) or pa.types.is_large_list(tt) or pa.types.is_fixed_size_list(tt):
            return count(a.flatten())
        if pa.types.is_struct(tt):
            return sum(count(a.field(j)) for j in range(tt.num_fields))
        return len(a)
    return sum(count(c) for c in t.columns)


def ensure_files(d: Path, rows: int, shapes, writers, log=print) -> dict[tuple[str, bool, str], Path]:
    """(shape, nulls, writer) -> file; built once, then reused. The flat reference
    (FLAT, nulls, 'pyarrow') holds list_int64's leaf values as one int64 column."""
    d.mkdir(parents=True, exist_ok=True)
    out = {}
    for shape in shapes:
        for nulls in (False, True):
            arr = None
            for w in writers:
                if w == "polars" and shape == "map_string_int64":
                    continue  # polars has no map type (it would write list<struct<key, value>>)
                p = d / f"{shape}-{'nulls' if nulls else 'nonulls'}-{w}.parquet"
                out[(shape, nulls, w)] = p
                if p.exists():
                    continue
                if arr is None:
                    arr = shape_array(shape, rows, nulls)
                log(f"writing {p.name} ...")
                t = pa.table({"c": arr})
                tmp = p.with_suffix(".tmp")
                if w == "pyarrow":
                    pq.write_table(t, tmp, row_group_size=ROW_GROUP)
                else:
                    import polars as pl

                    pl.from_arrow(t).write_parquet(tmp, row_group_size=ROW_GROUP)
                os.replace(tmp, p)
            if shape == "list_int64":
                p = d / f"{FLAT}-{'nulls' if nulls else 'nonulls'}-pyarrow.parquet"
                out[(FLAT, nulls, "pyarrow")] = p
                if not p.exists():
                    if arr is None:
                        arr = shape_array(shape, rows, nulls)
                    log(f"writing {p.name} ...")
                    tmp = p.with_suffix(".tmp")
                    pq.write_table(pa.table({"c": arr.flatten()}), tmp, row_group_size=ROW_GROUP * 4)
                    os.replace(tmp, p)
    return out


# ---- the worker: one process per thread count ---------------------------------------------


def _readers(names, threads: int):
    pa.set_cpu_count(max(threads, 1))
    one = threads == 1
    fns = {
        "pqfast": lambda p: pqfast.read_table(p, use_threads=not one),
        "pyarrow": lambda p: pq.read_table(p, use_threads=not one),
    }
    if "polars" in names:
        import polars as pl

        fns["polars"] = lambda p: pl.read_parquet(p).to_arrow()
    if "duckdb" in names:
        import duckdb

        con = duckdb.connect()
        con.execute(f"SET threads = {threads}")
        fns["duckdb"] = lambda p: con.sql(f"SELECT * FROM read_parquet('{p}')").to_arrow_table()
    return {n: fns[n] for n in READERS if n in fns and n in names}


def _plain(v):
    """Python values compared across engines: tuples as lists, a map as sorted
    [key, value] pairs (pyarrow lists pairs, polars {key, value} structs)."""
    if isinstance(v, dict):
        if set(v) == {"key", "value"}:
            return [_plain(v["key"]), _plain(v["value"])]
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def same_as(got, exp, reader: str) -> tuple[bool, str]:
    """pqfast: equal as Arrow (Array.equals after combine_chunks); the others
    (their own Arrow types: large lists, views, names) by value, on the first
    and last 2,000 rows."""
    try:
        if got.num_rows != exp.num_rows:
            return False, f"{got.num_rows} rows, pyarrow {exp.num_rows}"
        if reader == "pqfast":
            g, e = got.column(0).combine_chunks(), exp.column(0).combine_chunks()
            if not got.schema.equals(exp.schema):
                return False, f"type {got.schema.field(0).type} != {exp.schema.field(0).type}"
            if g.equals(e):
                return True, ""
            # Values below null struct slots are unspecified: compare as Python values.
            if g.to_pylist() == e.to_pylist():
                return True, "(equal as values; unspecified slots differ)"
            return False, "values differ"
        n = exp.num_rows
        for s in (0, max(n - 2000, 0)):
            g = _plain(got.column(0).slice(s, 2000).to_pylist())
            e = _plain(exp.column(0).slice(s, 2000).to_pylist())
            if g != e:
                i = next((k for k, (a, b) in enumerate(zip(g, e)) if a != b), 0)
                return False, f"row {s + i}: {str(g[i])[:80]} vs pyarrow {str(e[i])[:80]}"
        return True, ""
    except Exception as ex:  # noqa: BLE001 - a reader's failure is reported, not fatal
        return False, f"{type(ex).__name__}: {ex}"[:200]


def worker(args) -> int:
    rows, runs = _sizes(args)
    threads = args.worker
    shapes = [s for s in args.shapes.split(",") if s]
    names = ["pqfast"] + [r for r in args.readers.split(",") if r and r != "pqfast" and _has(r)]
    writers = ["pyarrow"] + (["polars"] if _has("polars") else [])
    files = ensure_files(data_dir(args.data, rows), rows, shapes, writers, log=lambda s: print(s, file=sys.stderr))
    readers = _readers(names, threads)
    polars_threads = None
    if "polars" in readers:
        import polars as pl

        polars_threads = pl.thread_pool_size()

    cells, info = [], {}
    for key, path in files.items():
        exp = pq.read_table(path)
        info[key] = {"leaf_values": leaf_values(exp), "bytes": path.stat().st_size,
                     # the file's pages decompressed, nothing decoded: no reader goes below it
                     "codec_floor_s": _pqfast._bench_codec_floor(str(path), runs)["seconds"]}
        for r in readers:
            if key[0] == FLAT and r != "pqfast":
                continue  # the reference row is pqfast's own
            try:
                ok, detail = same_as(readers[r](str(path)), exp, r)
            except Exception as e:  # noqa: BLE001
                ok, detail = False, f"{type(e).__name__}: {e}"[:200]
            info[(key, r)] = (ok, detail)
            if ok:
                cells.append((key, r))
        del exp
    samples = {c: [] for c in cells}
    for run in range(runs):
        k = run * 7 % max(len(cells), 1)
        for cell in cells[k:] + cells[:k]:  # rotate who goes first
            (key, r) = cell
            fn, path = readers[r], str(files[key])
            fn(path)  # untimed: page faults of memory returned to the OS land here
            c0, w0 = time.process_time(), time.perf_counter()
            res = fn(path)
            c1, w1 = time.process_time(), time.perf_counter()
            del res
            samples[cell].append((c1 - c0, w1 - w0))
    for key in files:
        shape, nulls, writer = key
        for r in readers:
            if (key, r) not in info:
                continue
            ok, detail = info[(key, r)]
            row = {"shape": shape, "nulls": nulls, "writer": writer, "reader": r, "threads": threads,
                   "rows": rows, "runs": runs, "leaf_values": info[key]["leaf_values"],
                   "file_bytes": info[key]["bytes"], "codec_floor_s": info[key]["codec_floor_s"],
                   "same_as_pyarrow": ok, "polars_threads": polars_threads}
            if detail:
                row["detail"] = detail
            s = samples.get((key, r))
            if s:
                cpu, wall = statistics.median(x[0] for x in s), statistics.median(x[1] for x in s)
                row.update(cpu_s=cpu, wall_s=wall,
                           mvalues_per_cpu_s=info[key]["leaf_values"] / cpu / 1e6 if cpu > 0 else None)
            print(json.dumps(row), flush=True)
    return 0


# ---- the parent ----------------------------------------------------------------------------


def measure(args) -> list[dict]:
    rows, runs = _sizes(args)
    out = []
    for t in [int(x) for x in str(args.threads).split(",") if x.strip()]:
        cmd = [sys.executable, "-m", "pqfast", "bench", "nested", "--worker", str(t), "--rows", str(rows),
               "--runs", str(runs), "--shapes", args.shapes, "--readers", args.readers]
        if args.data:
            cmd += ["--data", args.data]
        env = dict(os.environ, POLARS_MAX_THREADS=str(t))
        if not args.json:
            print(f"timing with {t} thread(s) ...", file=sys.stderr)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
        if proc.returncode != 0:
            raise SystemExit(f"error: the {t}-thread worker failed ({proc.returncode})")
        out += [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return out


def _cell(r: dict | None) -> str:
    if r is None:
        return "-"
    if not r["same_as_pyarrow"]:
        return "FAILED" if "Error" in r.get("detail", "") else "DIFFERS"
    return f"{r['mvalues_per_cpu_s']:.0f} ({r['cpu_s'] * 1e3:.0f})"


def run(args) -> int:
    if args.worker:
        return worker(args)
    rows = measure(args)
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        _print(rows, args)
    for r in rows:
        if not r["same_as_pyarrow"]:
            print(f"!!! {LABELS[r['reader']]} on {r['shape']} ({'nulls' if r['nulls'] else 'no nulls'}, "
                  f"{r['writer']}-written, {r['threads']} threads): {r.get('detail')}", file=sys.stderr)
    return 0


def _print(rows: list[dict], args) -> None:
    if not rows:
        print("no rows")
        return
    by = {(r["shape"], r["nulls"], r["writer"], r["threads"], r["reader"]): r for r in rows}
    readers = [n for n in READERS if any(r["reader"] == n for r in rows)]
    r0 = rows[0]
    pt = sorted({(r["threads"], r.get("polars_threads")) for r in rows})
    print(f"Nested columns read whole into Arrow: {r0['rows']:,} rows a file, one column; M leaf values per CPU "
          f"second (CPU ms), medians of {r0['runs']} warm calls alternating with the peers; "
          f"{ROW_GROUP:,}-row groups (polars-written: polars' own settings but for that); SIMD: "
          f"{pqfast.simd_level()}; {os.cpu_count()} cores; polars pool sizes "
          + ", ".join(f"{t}->{p}" for t, p in pt))
    headers = ["threads", "shape", "nulls", "written by", "M leaf values"] + [LABELS[n] for n in readers] + [
        "pyarrow/pqfast", "polars/pqfast"]
    table = []
    keys = sorted({(r["threads"], r["shape"], r["nulls"], r["writer"]) for r in rows},
                  key=lambda k: (k[0], (SHAPES + [FLAT]).index(k[1]), k[2], WRITERS.index(k[3])))
    for t, shape, nulls, w in keys:
        cells = {n: by.get((shape, nulls, w, t, n)) for n in readers}
        lv = next(c for c in cells.values() if c)["leaf_values"]

        def ratio(n):
            a, b = cells.get(n), cells.get("pqfast")
            if not a or not b or "cpu_s" not in a or "cpu_s" not in b:
                return "-"
            return f"{a['cpu_s'] / b['cpu_s']:.2f}x"
        label = "flat int64 (list_int64's values)" if shape == FLAT else shape
        table.append([t, label, "yes" if nulls else "no", w, f"{lv / 1e6:.2f}"] + [_cell(cells[n]) for n in readers]
                     + [ratio("pyarrow"), ratio("polars")])
    print(format_table(headers, table))
    print("polars has no map type: no polars-written map file. The flat row is pqfast reading list_int64's leaf "
          "values written flat by pyarrow.")
    # The goals of issue 20, one thread, from the same medians.
    one = [k for k in keys if k[0] == 1 and k[1] != FLAT]
    if not one:
        return
    print()
    print("goals (1 thread, CPU time):")
    for _, shape, nulls, w in one:
        p = by.get((shape, nulls, w, 1, "pqfast"))
        if not p or "cpu_s" not in p:
            print(f"  {shape} {'nulls' if nulls else 'no nulls'} {w}: pqfast did not run ({p and p.get('detail')})")
            continue
        parts = []
        pa_ = by.get((shape, nulls, w, 1, "pyarrow"))
        if pa_ and "cpu_s" in pa_:
            x = pa_["cpu_s"] / p["cpu_s"]
            parts.append(f"{x:.2f}x pyarrow (>= 2: {'met' if x >= 2 else 'MISSED'})")
            floor = p.get("codec_floor_s") or 0
            if x < 2 and floor > 0:
                # How much of the gap the codec leaves: pyarrow's time over the pages'
                # decompression alone is the ratio no reader could pass.
                parts.append(f"codec floor {floor * 1e3:.1f} ms of pqfast's {p['cpu_s'] * 1e3:.1f} "
                             f"(pyarrow's {pa_['cpu_s'] * 1e3:.1f}): at most {pa_['cpu_s'] / floor:.2f}x pyarrow "
                             f"with zero decoding")
        pl_ = by.get((shape, nulls, w, 1, "polars"))
        if pl_ and "cpu_s" in pl_:
            x = pl_["cpu_s"] / p["cpu_s"]
            parts.append(f"{x:.2f}x polars (>= 1: {'met' if x >= 1 else 'MISSED'})")
        if shape == "list_int64" and w == "pyarrow":
            f = by.get((FLAT, nulls, "pyarrow", 1, "pqfast"))
            if f and "cpu_s" in f:
                # Per leaf value: the list file and the flat file hold the same values.
                x = (p["cpu_s"] / p["leaf_values"]) / (f["cpu_s"] / f["leaf_values"])
                parts.append(f"{x:.2f}x the flat read's CPU per value (<= 2: {'met' if x <= 2 else 'MISSED'})")
        print(f"  {shape}, {'nulls' if nulls else 'no nulls'}, {w}-written: " + "; ".join(parts))
