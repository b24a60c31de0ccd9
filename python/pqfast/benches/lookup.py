"""`pqfast bench lookup`: rows for keys from a lake, pqfast.read_table(filters=)
against DuckDB, polars, DataFusion and pyarrow.dataset, in one run (issue 17).

The lake: N files x R rows (default 100 x 500,000), 5 row groups per file;
id (random, unique int64), key ('k%012d', unique), and 6 payload columns
(double, int32, timestamp, a low-cardinality string, bool, a 40-byte
string). Every column is a function of the row's global number g, so the
three variants hold the same rows:

- bloom:  written by pyarrow (Bloom filters on id and key, a page index);
- polars: written by polars (its defaults: zstd, no Bloom filters, no page index);
- sorted: the same rows sorted by id across the lake (pyarrow, page index, no Bloom).

Queries: 1 id that exists, 10 ids in different files, 1 id that does not
exist (also timed against pqfast.prune alone), 1 string key (bloom lake);
1 id on the polars lake; a 1,000-row id range on the sorted lake.

Every contender's rows are checked equal to pqfast's (sorted by id, values
compared, not types). Per thread count, a worker process runs all the
contenders alternating call by call (warm medians), with each engine set to
that many threads: DuckDB `SET threads`, polars POLARS_MAX_THREADS in the
worker's environment (polars fixes its pool at import, hence a process per
thread count), DataFusion target_partitions, pyarrow set_cpu_count, pqfast
threads=. Then each contender's first call in a fresh process (the engine
imported, one call timed). The lakes are cached under --dir.
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
from .._progress import Progress
from .._table import format_table

NAME = "lookup"
HELP = ("Rows for keys from a 100-file lake (Bloom, polars-written, sorted): pqfast.read_table(filters=) vs DuckDB, "
        "polars, DataFusion, pyarrow.dataset; 1 and 2 threads, warm and fresh process.")

LAKE_VERSION = 1
FPP = 0.01
MASK63 = (1 << 63) - 1
KEY_MULT = 7_919_000_001  # coprime with 10**12: g -> g * KEY_MULT mod 10**12 is a bijection
CONTENDERS = ["pqfast", "duckdb", "polars", "datafusion", "pyarrow"]
LABELS = {"pqfast": "pqfast", "duckdb": "DuckDB", "polars": "polars", "datafusion": "DataFusion",
          "pyarrow": "pyarrow.dataset", "prune": "pqfast.prune alone"}


def add_arguments(p) -> None:
    p.add_argument("--files", type=int, default=None, help="files per lake (default 100; --quick: 10)")
    p.add_argument("--rows", type=int, default=None, help="rows per file (default 500,000; --quick: 100,000)")
    p.add_argument("--row-groups", type=int, default=5, help="row groups per file (default 5)")
    p.add_argument("--repeat", type=int, default=None, help="timed calls per contender and query; medians "
                   "(default 7; --quick: 3)")
    p.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    p.add_argument("--dir", default=None, help="where the lakes are built and kept "
                   "(default ~/.cache/pqfast/bench_lookup; env PQFAST_BENCH_LOOKUP)")
    p.add_argument("--contenders", default=",".join(CONTENDERS),
                   help=f"which peers to run (default all: {','.join(CONTENDERS)}; pqfast always runs)")
    p.add_argument("--no-fresh", action="store_true", help="skip the first-call-in-a-fresh-process rows")
    p.add_argument("--quick", action="store_true", help="10 files x 100,000 rows, 3 repeats")
    p.add_argument("--json", action="store_true", help="one JSON object per row of the table")
    p.add_argument("--worker", type=int, default=0, help=__import__("argparse").SUPPRESS)


def _sizes(args) -> tuple[int, int, int]:
    files = args.files or (10 if args.quick else 100)
    rows = args.rows or (100_000 if args.quick else 500_000)
    repeat = args.repeat or (3 if args.quick else 7)
    return files, rows, repeat


def base_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    if os.environ.get("PQFAST_BENCH_LOOKUP"):
        return Path(os.environ["PQFAST_BENCH_LOOKUP"])
    return Path.home() / ".cache" / "pqfast" / "bench_lookup"


# -- the data: every column a function of the row's global number g ---------------------------------------


def _mix(g: np.ndarray, salt: int) -> np.ndarray:
    """A bijection of [0, 2^63) (odd multipliers mod 2^63, xor-shifts): distinct g, distinct ids."""
    x = (g.astype(np.uint64) + np.uint64((salt * 0x9E3779B97F4A7C15) & MASK63)) & np.uint64(MASK63)
    x = (x * np.uint64(0xBF58476D1CE4E5B9)) & np.uint64(MASK63)
    x ^= x >> np.uint64(29)
    x = (x * np.uint64(0x94D049BB133111EB)) & np.uint64(MASK63)
    x ^= x >> np.uint64(32)
    return x


def ids_of(g) -> np.ndarray:
    return _mix(np.asarray(g, dtype=np.uint64), 0).astype(np.int64)


def key_of(g: int) -> str:
    return f"k{(int(g) * KEY_MULT) % 10**12:012d}"


def rows_table(g: np.ndarray):
    """The rows numbered g, as an Arrow table."""
    g = np.asarray(g, dtype=np.uint64)
    n = len(g)
    keys = pc.utf8_lpad(pa.array((g * np.uint64(KEY_MULT)) % np.uint64(10**12)).cast(pa.string()), 12, "0")
    keys = pc.binary_join_element_wise(pa.scalar("k"), keys, "")
    h = [_mix(g, s) for s in range(1, 6)]
    cats = pa.array([f"category-{i:02d}" for i in range(16)])
    letters = (np.stack([_mix(g, s) for s in range(10, 15)], axis=1).view(np.uint8).reshape(n, 40) % 26 + 97)
    note = pa.StringArray.from_buffers(n, pa.py_buffer((np.arange(n + 1, dtype=np.int32) * 40).tobytes()),
                                       pa.py_buffer(np.ascontiguousarray(letters, dtype=np.uint8).tobytes()))
    return pa.table({
        "id": pa.array(ids_of(g)),
        "key": keys,
        "amount": pa.array((h[0] >> np.uint64(10)).astype(np.float64) / float(1 << 53)),
        "quantity": pa.array((h[1] % np.uint64(1000)).astype(np.int32)),
        "ts": pa.array((np.int64(1_767_225_600_000_000) + (h[2] % np.uint64(365 * 86_400_000_000)).astype(np.int64)),
                       pa.timestamp("us")),
        "category": cats.take(pa.array((h[3] % np.uint64(16)).astype(np.int32))),
        "flag": pa.array((h[4] & np.uint64(1)).astype(bool)),
        "note": note,
    })


def lake_root(base: Path, files: int, rows: int, groups: int) -> Path:
    return base / f"v{LAKE_VERSION}_{files}x{rows}_g{groups}"


def lake_paths(root: Path, variant: str, files: int) -> list[str]:
    return [str(root / variant / f"part-{i:04d}.parquet") for i in range(files)]


def ensure_lakes(base: Path, files: int, rows: int, groups: int, progress: Progress | None = None,
                 variants: tuple = ("bloom", "polars", "sorted")) -> Path:
    """The variants (default all three), built once and reused (a stamp per variant, written last)."""
    root = lake_root(base, files, rows, groups)
    rg_rows = max(1, -(-rows // groups))

    def say(msg):
        if progress:
            progress.message(msg)

    def build(variant, write, order=None):
        stamp = root / f"{variant}.LAKE"  # beside the lake: its directory holds Parquet files only
        want = f"v{LAKE_VERSION} {variant} files={files} rows={rows} groups={groups} fpp={FPP}"
        paths = lake_paths(root, variant, files)
        if stamp.exists() and stamp.read_text() == want and all(os.path.exists(p) for p in paths):
            return
        (root / variant).mkdir(parents=True, exist_ok=True)
        for i, p in enumerate(paths):
            say(f"building the {variant} lake: file {i + 1}/{files} in {root / variant}")
            g = order[i * rows:(i + 1) * rows] if order is not None else np.arange(i * rows, (i + 1) * rows)
            write(rows_table(g), p)
        stamp.write_text(want)

    def write_bloom(t, p):
        pq.write_table(t, p, row_group_size=rg_rows, write_page_index=True,
                       bloom_filter_options={"id": {"ndv": rg_rows, "fpp": FPP}, "key": {"ndv": rg_rows, "fpp": FPP}})

    def write_polars(t, p):
        import polars as pl

        pl.from_arrow(t).write_parquet(p, row_group_size=rg_rows)

    def write_sorted(t, p):
        pq.write_table(t, p, row_group_size=rg_rows, write_page_index=True)

    if "bloom" in variants:
        build("bloom", write_bloom)

    if "polars" not in variants:
        pass
    elif importlib.util.find_spec("polars") is not None:
        build("polars", write_polars)
    else:
        say("polars not installed: no lake written by polars")
    if "sorted" not in variants:
        return root
    sorted_stamp = root / "sorted.LAKE"
    if not sorted_stamp.exists():
        say("sorting the ids of the whole lake")
        order = np.argsort(ids_of(np.arange(files * rows)), kind="stable").astype(np.uint64)
    else:
        order = None
    build("sorted", write_sorted, order)
    return root


# -- the queries --------------------------------------------------------------------------------------------


def queries(root: Path, files: int, rows: int) -> list[dict]:
    """What each row of the table asks, with the rows it must find."""
    rng = np.random.default_rng(17)
    mid = files // 2
    g1 = mid * rows + rows // 3
    in_files = sorted({int(f) for f in np.linspace(0, files - 1, 10).round()})
    g10 = [f * rows + int(rng.integers(rows)) for f in in_files]
    while len(g10) < 10:  # fewer than 10 files: more ids per file
        g10.append(int(rng.integers(files * rows)))
    g10 = sorted(set(g10))[:10]
    missing = int(ids_of([files * rows + 12345])[0])  # the bijection's image of a g past the lake: absent
    # The sorted lake: 1,000 consecutive ids from the middle file (fewer if the file is smaller).
    s = pq.read_table(lake_paths(root, "sorted", files)[mid], columns=["id"]).column(0).to_numpy()
    k = len(s) // 3
    m = min(1000, len(s) - k)
    lo, hi = int(s[k]), (int(s[k + m]) if k + m < len(s) else int(s[-1]) + 1)
    n10 = len({g // rows for g in g10})
    return [
        {"name": "1 id", "lake": "bloom", "filters": [("id", "in", [int(ids_of([g1])[0])])], "expect": 1},
        {"name": f"10 ids in {n10} files", "lake": "bloom",
         "filters": [("id", "in", [int(x) for x in ids_of(g10)])], "expect": len(g10)},
        {"name": "1 missing id", "lake": "bloom", "filters": [("id", "in", [missing])], "expect": 0,
         "prune": True},
        {"name": "1 string key", "lake": "bloom", "filters": [("key", "in", [key_of(g1 + 1)])], "expect": 1},
    ] + ([
        {"name": "1 id, no Bloom", "lake": "polars", "filters": [("id", "in", [int(ids_of([g1 + 2])[0])])],
         "expect": 1}] if (root / "polars.LAKE").exists() else []) + [
        {"name": f"{m:,}-id range", "lake": "sorted", "filters": [("id", ">=", lo), ("id", "<", hi)], "expect": m},
    ]


def _sql_value(v) -> str:
    return "'" + v.replace("'", "''") + "'" if isinstance(v, str) else str(int(v))


def sql_where(filters) -> str:
    parts = []
    for col, op, v in filters:
        if op == "in":
            parts.append(f"{col} IN ({', '.join(_sql_value(x) for x in v)})")
        else:
            parts.append(f"{col} {op} {_sql_value(v)}")
    return " AND ".join(parts)


def polars_expr(filters):
    import polars as pl

    e = None
    for col, op, v in filters:
        c = pl.col(col)
        x = c.is_in(v) if op == "in" else {">=": c >= v, "<": c < v, ">": c > v, "<=": c <= v, "==": c == v}[op]
        e = x if e is None else e & x
    return e


def arrow_expr(filters):
    e = None
    for col, op, v in filters:
        f = pc.field(col)
        x = f.isin(v) if op == "in" else {">=": f >= v, "<": f < v, ">": f > v, "<=": f <= v, "==": f == v}[op]
        e = x if e is None else e & x
    return e


# -- pqfast's contender ---------------------------------------------------------------------------------------


def pqfast_call(glob: str, filters, threads: int, stats: bool = False):
    return pqfast.read_table(glob, filters=filters, threads=threads, stats=stats)


# -- comparing rows -------------------------------------------------------------------------------------------


def normalized(t, names) -> list[dict]:
    """Rows sorted by id, values as Python objects (string_view, large_string,
    dictionaries and the like compare equal to plain strings)."""
    cols = []
    for n in names:
        c = t.column(n)
        ty = c.type
        if pa.types.is_dictionary(ty):
            c, ty = c.cast(ty.value_type), ty.value_type
        if pa.types.is_string_view(ty) or pa.types.is_large_string(ty):
            c = c.cast(pa.string())
        elif pa.types.is_binary_view(ty) or pa.types.is_large_binary(ty):
            c = c.cast(pa.binary())
        cols.append(c)
    t = pa.table(cols, names=list(names))
    return t.sort_by("id").to_pylist()


def compare(t, ref_names, ref_rows) -> tuple[bool, str]:
    names = list(t.column_names)
    if sorted(names) != sorted(ref_names):
        return False, f"columns differ: {names}"
    if t.num_rows != len(ref_rows):
        return False, f"{t.num_rows} rows, pqfast {len(ref_rows)}"
    rows = normalized(t, ref_names)
    if rows != ref_rows:
        bad = next(i for i, (a, b) in enumerate(zip(rows, ref_rows)) if a != b)
        return False, f"row {bad} differs: {rows[bad]} vs pqfast {ref_rows[bad]}"
    return True, ""


# -- the worker: one thread count, all contenders alternating ---------------------------------------------------


def _contender_fns(name: str, root: Path, lake: str, filters, threads: int, state: dict):
    d = root / lake
    glob = str(d / "*.parquet")
    if name == "pqfast":
        return lambda: pqfast_call(glob, filters, threads)
    if name == "prune":
        col, _, vals = filters[0]
        return lambda: pqfast.prune(glob, col, vals, threads=threads)
    if name == "duckdb":
        import duckdb

        if "duckdb" not in state:
            con = duckdb.connect()
            con.execute(f"SET threads TO {threads}")
            state["duckdb"] = con
        con = state["duckdb"]
        sql = f"SELECT * FROM read_parquet('{glob}') WHERE {sql_where(filters)}"
        return lambda: con.sql(sql).to_arrow_table()
    if name == "polars":
        import polars as pl

        expr = polars_expr(filters)
        return lambda: pl.scan_parquet(glob).filter(expr).collect()
    if name == "datafusion":
        import datafusion

        if "datafusion" not in state:
            state["datafusion"] = datafusion.SessionContext(
                datafusion.SessionConfig().with_target_partitions(threads))
            state["df_tables"] = set()
        ctx = state["datafusion"]
        if lake not in state["df_tables"]:
            ctx.register_parquet(lake, str(d))
            state["df_tables"].add(lake)
        sql = f"SELECT * FROM {lake} WHERE {sql_where(filters)}"
        return lambda: ctx.sql(sql).to_arrow_table()
    if name == "pyarrow":
        import pyarrow.dataset as ds  # here, not at the top: the CLI imports every bench (0.4 s, 88 MiB)

        pa.set_cpu_count(threads)
        expr = arrow_expr(filters)
        return lambda: ds.dataset(str(d), format="parquet").to_table(filter=expr, use_threads=True)
    raise ValueError(name)


def _as_arrow(name, result):
    if name == "polars":
        return result.to_arrow()
    return result


def _lake_bytes(root: Path, lake: str) -> int:
    return sum(p.stat().st_size for p in (root / lake).glob("*.parquet"))


def worker(args) -> int:
    """Runs in a process of its own per thread count (POLARS_MAX_THREADS set by the parent)."""
    threads = args.worker
    files, rows, repeat = _sizes(args)
    root = lake_root(base_dir(args.dir), files, rows, args.row_groups)
    progress = Progress(enabled=not args.json)
    peers = [c for c in args.contenders.split(",") if c and c != "pqfast"]
    qs = queries(root, files, rows)
    api = "pqfast.read_table(filters=)"
    polars_threads = None
    if "polars" in peers:  # its pool was sized at import from POLARS_MAX_THREADS (set by the parent)
        import polars as pl

        polars_threads = pl.thread_pool_size()
    state: dict = {}
    out = []
    for q in qs:
        names = ["pqfast"] + peers + (["prune"] if q.get("prune") else [])
        fns = {n: _contender_fns(n, root, q["lake"], q["filters"], threads, state) for n in names}
        progress.message(f"{threads} thread{'s' if threads > 1 else ''}: {q['name']} ({q['lake']} lake): "
                         f"warm-up and row check")
        # One untimed call each (also warming the page cache): the rows, checked
        # against pqfast's. A contender that raises is reported, not timed; if
        # pqfast raises, the others are checked against the first peer's rows.
        got, res = {}, {}
        for n in names:
            try:
                got[n] = fns[n]()
            except Exception as e:  # noqa: BLE001  (a young engine's failure is a result to show)
                res[n] = {"rows": None, "ms": None, "same_rows": False,
                          "detail": f"failed: {type(e).__name__}: {e}"[:300], "error": True}
        ref_name = next((n for n in names if n in got and n != "prune"), None)
        ref = _as_arrow(ref_name, got[ref_name]) if ref_name else None
        ref_names = list(ref.column_names) if ref is not None else []
        ref_rows = normalized(ref, ref_names) if ref is not None else []
        for n, r in got.items():
            if n == "prune":
                res[n] = {"rows": None, "same_rows": None, "detail": "verdicts only"}
                continue
            t = _as_arrow(n, r)
            same, detail = (True, "") if n == ref_name else compare(t, ref_names, ref_rows)
            if same and n == ref_name and t.num_rows != q["expect"]:
                same, detail = False, f"{t.num_rows} rows, {q['expect']} expected"
            if n != ref_name and ref_name != "pqfast":
                detail = (detail + "; " if detail else "") + f"checked against {LABELS[ref_name]} (pqfast failed)"
            res[n] = {"rows": t.num_rows, "same_rows": same, "detail": detail}
        def failed(n, e):
            res[n].update(ms=None, same_rows=False, error=True,
                          detail=f"failed: {type(e).__name__}: {e}"[:300])
            timed.remove(n)

        timed = [n for n in names if n in got]
        stats = {}
        if "pqfast" in got:
            try:
                _, stats = pqfast_call(str(root / q["lake"] / "*.parquet"), q["filters"], threads, stats=True)
                stats = dict(stats or {})
            except Exception as e:  # noqa: BLE001
                failed("pqfast", e)
        times = {n: [] for n in timed}
        for r in range(repeat):
            progress.message(f"{threads} thread{'s' if threads > 1 else ''}: {q['name']} ({q['lake']} lake): "
                             f"round {r + 1}/{repeat}, contenders alternating")
            order = timed[r % len(timed):] + timed[: r % len(timed)] if timed else []
            for n in order:
                t0 = time.perf_counter()
                try:
                    fns[n]()
                except Exception as e:  # noqa: BLE001  (a call that fails once fails the contender)
                    failed(n, e)
                    continue
                times[n].append(time.perf_counter() - t0)
        ours = statistics.median(times["pqfast"]) * 1e3 if "pqfast" in timed else None
        for n in timed:
            ms = statistics.median(times[n]) * 1e3
            res[n].update(ms=ms, vs_pqfast=ms / ours if ours else None)
        res = {n: res[n] for n in names}
        lake_bytes = _lake_bytes(root, q["lake"])
        read = dict(stats)
        if "bytes_read" in read and lake_bytes:
            read["bytes_pct_of_lake"] = 100.0 * read["bytes_read"] / lake_bytes
        out.append({"bench": "lookup", "query": q["name"], "lake": q["lake"], "threads": threads, "timing": "warm",
                    "repeat": repeat, "files": files, "rows_per_file": rows, "row_groups_per_file": args.row_groups,
                    "lake_bytes": lake_bytes, "pqfast_api": api, "polars_threads": polars_threads,
                    "filters": [list(f) for f in q["filters"]], "contenders": res, "pqfast_read": read})
    if not args.no_fresh:
        q = qs[0]
        res = {}
        for n in ["pqfast"] + peers:
            progress.message(f"{threads} thread{'s' if threads > 1 else ''}: {q['name']}: {LABELS[n]}, "
                             f"first call in a fresh process")
            res[n] = fresh_call(n, root, q["lake"], q["filters"], threads)
        ours = res["pqfast"].get("ms")
        for n, r in res.items():
            if r.get("ms") is not None and ours:
                r["vs_pqfast"] = r["ms"] / ours
            # A fresh process returns a count only: checked against pqfast's (the warm rows compare values).
            if n != "pqfast" and "rows" in r and "rows" in res["pqfast"]:
                r["same_rows"] = r["rows"] == res["pqfast"]["rows"]
                r["detail"] = "" if r["same_rows"] else f"{r['rows']} rows, pqfast {res['pqfast']['rows']}"
        out.append({"bench": "lookup", "query": q["name"], "lake": q["lake"], "threads": threads,
                    "timing": "fresh process", "repeat": 1, "files": files, "rows_per_file": rows,
                    "row_groups_per_file": args.row_groups, "lake_bytes": _lake_bytes(root, q["lake"]),
                    "pqfast_api": api, "polars_threads": polars_threads,
                    "filters": [list(f) for f in q["filters"]], "contenders": res, "pqfast_read": {}})
    progress.close()
    for row in out:
        print(json.dumps(row))
    return 0


# -- first call in a fresh process ------------------------------------------------------------------------------

def _expr_code(filters, field: str) -> str:
    """The filter as source code for polars (field "pl.col") or pyarrow (field "ds.field")."""
    parts = []
    for col, op, v in filters:
        f = f"{field}({col!r})"
        parts.append(f"{f}.{'is_in' if field == 'pl.col' else 'isin'}({list(v)!r})" if op == "in"
                     else f"({f} {op} {v!r})")
    return " & ".join(parts)


def _fresh_code(name: str, glob: str, d: str, lake: str, filters, threads: int) -> tuple[str, str]:
    """(import, first call) as source code, using nothing but the engine itself:
    what a script that looks rows up once pays (setup such as a connection included)."""
    where = sql_where(filters)
    if name == "pqfast":
        return "import pqfast", (f"n = pqfast.read_table({glob!r}, filters={[tuple(f) for f in filters]!r}, "
                                 f"threads={threads}).num_rows")
    if name == "duckdb":
        return "import duckdb", (f"con = duckdb.connect()\ncon.execute('SET threads TO {threads}')\n"
                                 f"n = con.sql({f'SELECT * FROM read_parquet({glob!r}) WHERE {where}'!r})"
                                 f".to_arrow_table().num_rows")
    if name == "polars":
        return "import polars as pl", f"n = pl.scan_parquet({glob!r}).filter({_expr_code(filters, 'pl.col')}).collect().height"
    if name == "datafusion":
        return "import datafusion", (
            f"ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions({threads}))\n"
            f"ctx.register_parquet({lake!r}, {d!r})\n"
            f"n = ctx.sql({f'SELECT * FROM {lake} WHERE {where}'!r}).to_arrow_table().num_rows")
    if name == "pyarrow":
        return "import pyarrow as pa, pyarrow.dataset as ds", (
            f"pa.set_cpu_count({threads})\n"
            f"n = ds.dataset({d!r}, format='parquet').to_table(filter={_expr_code(filters, 'ds.field')}, "
            f"use_threads=True).num_rows")
    raise ValueError(name)


def fresh_call(name: str, root: Path, lake: str, filters, threads: int) -> dict:
    """One call in a new interpreter: the engine's import and its first call, timed apart."""
    d = root / lake
    imp, call = _fresh_code(name, str(d / "*.parquet"), str(d), lake, filters, threads)
    code = ("import json, time\nt0 = time.perf_counter()\n" + imp + "\nt1 = time.perf_counter()\n"
            + call + "\nt2 = time.perf_counter()\n"
            "print(json.dumps({'import_ms': (t1 - t0) * 1e3, 'ms': (t2 - t1) * 1e3, 'rows': n}))\n")
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"ms": None, "error": True, "same_rows": False,
                "detail": "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:300]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the parent: lakes, one worker per thread count, the table --------------------------------------------------


def available_peers(wanted: str) -> tuple[list[str], list[str]]:
    """The peers asked for that are installed, and those that are not."""
    names = [c.strip() for c in wanted.split(",") if c.strip() and c.strip() != "pqfast"]
    unknown = [c for c in names if c not in CONTENDERS]
    if unknown:
        raise ValueError(f"unknown contenders {unknown}; known: {', '.join(CONTENDERS)}")
    have = [c for c in names if importlib.util.find_spec(c) is not None]
    return have, [c for c in names if c not in have]


def measure(args, progress: Progress | None = None) -> list[dict]:
    files, rows, _ = _sizes(args)
    peers, missing = available_peers(args.contenders)
    if missing and progress:
        progress.message(f"not installed, left out: {', '.join(missing)}")
    base = base_dir(args.dir)
    ensure_lakes(base, files, rows, args.row_groups, progress)
    out = []
    for t in [int(x) for x in str(args.threads).split(",") if x.strip()]:
        cmd = [sys.executable, "-m", "pqfast", "bench", "lookup", "--worker", str(t), "--files", str(files),
               "--rows", str(rows), "--row-groups", str(args.row_groups), "--repeat", str(_sizes(args)[2]),
               "--dir", str(base), "--contenders", ",".join(["pqfast"] + peers)] + (["--no-fresh"] if args.no_fresh else []) \
            + (["--json"] if args.json else [])
        env = dict(os.environ, POLARS_MAX_THREADS=str(t))
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"the {t}-thread worker failed ({proc.returncode})")
        out += [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return out


def _cell(r: dict | None, name: str) -> str:
    if r is None:
        return ""
    if r.get("ms") is None:
        return "failed" if r.get("error") else ""
    s = f"{r['ms']:.1f}" if r["ms"] < 1000 else f"{r['ms']:,.0f}"
    if name != "pqfast" and r.get("vs_pqfast") is not None:
        x = r["vs_pqfast"]
        s += f" ({x:.0f}x)" if x >= 10 else f" ({x:.1f}x)" if x >= 1 else f" ({x:.2f}x)"
    if r.get("same_rows") is False:
        s += " ROWS DIFFER"
    return s


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def run(args) -> int:
    if args.worker:
        return worker(args)
    progress = Progress(enabled=not args.json)
    rows = measure(args, progress)
    progress.close()
    mismatches = [(r, n, c) for r in rows for n, c in r["contenders"].items() if c.get("same_rows") is False]
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        _print_table(rows)
    for r, n, c in mismatches:
        print(f"!!! {'FAILED' if c.get('error') else 'ROWS DIFFER'}: {LABELS[n]} on {r['query']} ({r['lake']} lake, {r['threads']} threads): "
              f"{c.get('detail')}", file=sys.stderr)
    return 0


def _print_table(rows: list[dict]) -> None:
    if not rows:
        print("no rows")
        return
    r0 = rows[0]
    names = [n for n in ["pqfast"] + CONTENDERS[1:] + ["prune"] if any(n in r["contenders"] for r in rows)]
    print(f"Lookups in a lake of {r0['files']} files x {r0['rows_per_file']:,} rows ({r0['row_groups_per_file']} row "
          f"groups per file; bloom: pyarrow, Bloom filters on id and key + page index; polars: written by polars; "
          f"sorted: by id, pyarrow, page index), all columns; ms, medians of {r0['repeat']} warm calls alternating "
          f"with the peers call by call, (x) = ms / pqfast's ms")
    headers = ["threads", "lake", "query", "timing"] + [LABELS[n] + " ms" for n in names] + [
        "rows", "pages read", "bytes read (% of lake)", "rows equal"]
    table = []
    for r in rows:
        c = r["contenders"]
        read = r.get("pqfast_read") or {}
        pages = ""
        if "pages_read" in read:
            pages = f"{read['pages_read']:,}" + (f"/{read['pages']:,}" if "pages" in read else
                                                 f" (+{read['pages_skipped']:,} skipped)" if read.get("pages_skipped")
                                                 else "")
        bytes_read = ""
        if "bytes_read" in read:
            bytes_read = _size(read["bytes_read"]) + (f" ({read['bytes_pct_of_lake']:.3g}%)"
                                                       if "bytes_pct_of_lake" in read else "")
        same = [n for n, x in c.items() if x.get("same_rows") is False]
        checked = any(x.get("same_rows") is not None for x in c.values())
        table.append([r["threads"], r["lake"], r["query"], r["timing"]] + [_cell(c.get(n), n) for n in names]
                     + ["" if c["pqfast"].get("rows") is None else c["pqfast"]["rows"], pages, bytes_read,
                        ("NO: " + ", ".join(LABELS[n] for n in same)) if same else ("yes" if checked else "")])
    print(format_table(headers, table))
    pt = {r["threads"]: r.get("polars_threads") for r in rows}
    print("threads: DuckDB SET threads; polars POLARS_MAX_THREADS in a worker process per thread count (its pool "
          "is fixed at import; pool sizes seen: " + ", ".join(f"{k}->{v}" for k, v in pt.items())
          + "); DataFusion target_partitions; pyarrow set_cpu_count (I/O pool left at its default); "
          "pqfast threads=")
    fresh = [r for r in rows if r["timing"] == "fresh process"]
    if fresh:
        imports = {n: x.get("import_ms") for n, x in fresh[-1]["contenders"].items()}
        print("fresh process: the first call after importing the engine (connection/context setup included; "
              "row counts checked), import ms apart: " + ", ".join(f"{LABELS[n]} {v:.0f}" for n, v in imports.items() if v is not None)
              + "; the OS page cache is warm")
    print(f"lake sizes: " + ", ".join(sorted({f"{r['lake']} {_size(r['lake_bytes'])}" for r in rows})))
