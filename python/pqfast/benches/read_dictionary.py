"""`pqfast bench read-dictionary`: group-by keys read as dictionaries
(``read_dictionary=``), in one run.

On the lookup benchmark's Bloom lake (its first --files files), columns
category (16 distinct strings, dictionary-encoded), amount, quantity:

- the read: ``pqfast.read_table(files, columns)`` with category as string,
  the same with ``read_dictionary=["category"]`` (indices straight from the
  pages), and pyarrow's ``read_table`` with the same ``read_dictionary``;
- ``SELECT category, count(*), sum(amount), max(quantity) ... GROUP BY
  category`` in DuckDB, DataFusion and polars over each in-memory table
  (query alone, and read + query), against the engine's own reader on the
  same files.

Each engine's answer over both tables is checked equal to its own reader's
before timing. Timings: warm medians of --repeat calls, the contenders of a
row alternating call by call, --threads threads everywhere (pqfast
threads=, pyarrow's CPU pool, DuckDB SET threads, DataFusion
target_partitions, POLARS_MAX_THREADS set before polars is imported).
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import pqfast
from .._table import format_table

NAME = "read-dictionary"
HELP = ("Group-by keys read as dictionaries (read_dictionary=): pqfast's read with and without it, and DuckDB, "
        "DataFusion, polars group-bys over both tables vs their own readers.")

AGG_SQL = "SELECT category, count(*) AS n, sum(amount) AS s, max(quantity) AS q FROM {t} GROUP BY category"
COLUMNS = ["category", "amount", "quantity"]


def add_arguments(p) -> None:
    p.add_argument("--files", type=int, default=20, help="files of the Bloom lake read (default 20)")
    p.add_argument("--lake", default=None, help="the Bloom lake's directory (default "
                   "~/.cache/pqfast/bench_lookup/v1_100x500000_g5/bloom; `pqfast bench lookup` writes it)")
    p.add_argument("--repeat", type=int, default=7, help="timed calls per contender (default 7)")
    p.add_argument("--threads", type=int, default=2, help="threads everywhere (default 2)")
    p.add_argument("--engines", default="duckdb,datafusion,polars", help="which engines (default all three)")


def _median_ms(fns: list, repeat: int) -> list[float]:
    """Warm medians (ms) of each zero-argument call, the calls alternating."""
    for f in fns:
        f()  # warm
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            f()
            times[i].append((time.perf_counter() - t0) * 1e3)
    return [statistics.median(t) for t in times]


def _engine(name: str, files: list[str], threads: int):
    """(query(table) -> arrow table, own() -> arrow table) for an engine."""
    if name == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.execute(f"SET threads TO {threads}")
        own = "read_parquet([" + ", ".join(f"'{f}'" for f in files) + "])"

        def query(t):
            con.register("t", t)
            try:
                return con.sql(AGG_SQL.format(t="t")).to_arrow_table()
            finally:
                con.unregister("t")

        return query, lambda: con.sql(AGG_SQL.format(t=own)).to_arrow_table()
    if name == "datafusion":
        import datafusion

        ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(threads))
        # The own reader over exactly these files: a directory of links to them.
        ctx.register_parquet("own", _linked(files))

        def query(t):
            if ctx.table_exist("t"):
                ctx.deregister_table("t")
            ctx.register_record_batches("t", [t.to_batches()])
            return ctx.sql(AGG_SQL.format(t="t")).to_arrow_table()

        return query, lambda: ctx.sql(AGG_SQL.format(t="own")).to_arrow_table()
    if name == "polars":
        import polars as pl

        def agg(lf):
            return lf.group_by("category").agg(pl.len().alias("n"), pl.col("amount").sum().alias("s"),
                                               pl.col("quantity").max().alias("q"))

        def query(t):
            return agg(pl.from_arrow(t).lazy()).collect().to_arrow()

        return query, lambda: agg(pl.scan_parquet(files)).collect().to_arrow()
    raise ValueError(f"unknown engine {name!r}")


def _linked(files: list[str]) -> str:
    """A directory of symbolic links to `files` (kept until the process ends)."""
    d = tempfile.mkdtemp(prefix="pqfast-read-dictionary-")
    atexit.register(shutil.rmtree, d, True)
    for f in files:
        os.symlink(f, os.path.join(d, os.path.basename(f)))
    return d


def _same(a, b) -> bool:
    """Group-by answers equal (categories as plain strings, sums to 1e-9)."""
    def norm(t):
        t = t.select(["category", "n", "s", "q"])
        cols = [t.column(0).cast(pa.string()), t.column(1).cast(pa.int64()), t.column(2).cast(pa.float64()),
                t.column(3).cast(pa.int64())]
        return pa.table(cols, names=["category", "n", "s", "q"]).sort_by("category")

    x, y = norm(a), norm(b)
    if x.num_rows != y.num_rows or not x.column(0).equals(y.column(0)) or not x.column(1).equals(y.column(1)):
        return False
    if not x.column(3).equals(y.column(3)):
        return False
    diff = pc.max(pc.abs(pc.subtract(x.column(2), y.column(2)))).as_py() or 0.0
    return diff <= 1e-9 * max(1.0, pc.max(pc.abs(x.column(2))).as_py() or 1.0)


def run(args) -> int:
    os.environ.setdefault("POLARS_MAX_THREADS", str(args.threads))
    pa.set_cpu_count(args.threads)
    lake = Path(args.lake or os.path.expanduser("~/.cache/pqfast/bench_lookup/v1_100x500000_g5/bloom"))
    files = sorted(str(p) for p in lake.glob("*.parquet"))[: args.files]
    if not files:
        print(f"no Parquet files under {lake} (`pqfast bench lookup` writes the lake)")
        return 1
    t = args.threads

    def plain():
        return pqfast.read_table(files, columns=COLUMNS, threads=t)

    def native():
        return pqfast.read_table(files, columns=COLUMNS, threads=t, read_dictionary=["category"])

    def arrow():
        return pq.read_table(files, columns=COLUMNS, read_dictionary=["category"], use_threads=t > 1)

    a, b, c = plain(), native(), arrow()
    if not b.equals(c) or not a.column("category").equals(b.column("category").cast(pa.string())):
        print("read_dictionary: pqfast's table differs from pyarrow's")
        return 1
    rows = []
    ms = _median_ms([plain, native, arrow], args.repeat)
    n = a.num_rows
    rows.append(["read", "pqfast, category string", f"{ms[0]:.1f}", ""])
    rows.append(["read", "pqfast, read_dictionary", f"{ms[1]:.1f}", f"{ms[0] / ms[1]:.2f}x"])
    rows.append(["read", "pyarrow, read_dictionary", f"{ms[2]:.1f}", f"{ms[0] / ms[2]:.2f}x"])
    for name in [e.strip() for e in args.engines.split(",") if e.strip()]:
        try:
            query, own = _engine(name, files, t)
        except (ImportError, RuntimeError) as e:
            rows.append([name, f"skipped ({e})", "", ""])
            continue
        ref = own()
        for label, table in (("string", a), ("dictionary", b)):
            if not _same(query(table), ref):
                print(f"{name}: the group-by over the {label} table differs from its own reader's")
                return 1
        q = _median_ms([lambda: query(a), lambda: query(b), own], args.repeat)
        e2e = _median_ms([lambda: query(plain()), lambda: query(native())], args.repeat)
        rows.append([name, "own reader (files)", f"{q[2]:.1f}", "1.00x"])
        rows.append([name, "query, table string", f"{q[0]:.1f}", f"{q[2] / q[0]:.2f}x"])
        rows.append([name, "query, table dictionary", f"{q[1]:.1f}", f"{q[2] / q[1]:.2f}x"])
        rows.append([name, "pqfast read + query, string", f"{e2e[0]:.1f}", f"{q[2] / e2e[0]:.2f}x"])
        rows.append([name, "pqfast read + query, dictionary", f"{e2e[1]:.1f}", f"{q[2] / e2e[1]:.2f}x"])
    print(f"{len(files)} files, {n:,} rows, columns {', '.join(COLUMNS)}; {t} threads; "
          f"warm medians of {args.repeat}, alternating (x: first row of the block / this row)")
    print(format_table(["what", "contender", "ms", "x"], rows))
    return 0
