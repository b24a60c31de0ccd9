"""`pqfast bench read-encodings`: TPC-H Q12's five lineitem columns read by
pqfast, pyarrow and DuckDB from the same files (PLAIN, dictionary, DELTA;
uncompressed and ZSTD), one thread and all threads, in one run, interleaved.
(`pqfast bench read` times whole files of the four writers.)"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pyarrow.types as pt

import pqfast
from .._table import format_table
from .read import lineitem

NAME = "read-encodings"
HELP = "Read TPC-H lineitem's Q12 columns (PLAIN / dictionary / DELTA, none / ZSTD): pqfast vs pyarrow vs DuckDB."

Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]
ENCODINGS = ["plain", "dictionary", "delta"]
CODECS = ["none", "zstd"]
READERS = ["pqfast", "pyarrow", "duckdb"]
DATA_VERSION = 1


def add_arguments(p) -> None:
    p.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1: 6M rows)")
    p.add_argument("--runs", type=int, default=5, help="timed samples per cell (median reported)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    p.add_argument("--data", default=None, help="where to build/reuse the files (default build/bench-read "
                   "if ./build exists, else ~/.cache/pqfast/bench-read)")
    p.add_argument("--threads", default="1,all", help="thread settings to run: '1', 'all' or '1,all'")
    p.add_argument("--no-duckdb", action="store_true", help="leave DuckDB out")


def data_dir(arg: str | None, scale: float) -> Path:
    base = Path(arg) if arg else (Path("build") / "bench-read" if Path("build").is_dir()
                                  else Path.home() / ".cache" / "pqfast" / "bench-read")
    return base / f"sf{scale:g}-v{DATA_VERSION}"



def ensure_files(d: Path, scale: float, log=print) -> dict[tuple[str, str], Path]:
    """lineitem from tpchgen-cli, rewritten by pyarrow six ways; built once, then reused."""
    src = lineitem(d, scale, log)
    out = {}
    for enc in ENCODINGS:
        for codec in CODECS:
            p = d / f"lineitem-{enc}-{codec}.parquet"
            out[(enc, codec)] = p
            if p.exists():
                continue
            log(f"writing {p.name} ...")
            f = pq.ParquetFile(src)
            schema = f.schema_arrow
            kw = dict(compression=codec)
            if enc == "plain":
                kw["use_dictionary"] = False
            elif enc == "delta":
                col_enc = {}
                for field in schema:
                    t = field.type
                    if pt.is_integer(t) or pt.is_date(t):
                        col_enc[field.name] = "DELTA_BINARY_PACKED"
                    elif pt.is_string(t) or pt.is_string_view(t) or pt.is_binary(t) or pt.is_large_string(t):
                        col_enc[field.name] = "DELTA_BYTE_ARRAY"
                    else:
                        col_enc[field.name] = "PLAIN"
                kw.update(use_dictionary=False, column_encoding=col_enc)
            tmp = p.with_suffix(".tmp")
            with pq.ParquetWriter(tmp, schema, **kw) as w:
                for i in range(f.num_row_groups):
                    w.write_table(f.read_row_group(i))
            os.replace(tmp, p)
    return out


def _readers(use_duckdb: bool):
    def r_pqfast(path, threads):
        return pqfast.read_table(path, columns=Q12, use_threads=threads != 1)

    def r_pyarrow(path, threads):
        return pq.read_table(path, columns=Q12, use_threads=threads != 1)

    readers = {"pqfast": r_pqfast, "pyarrow": r_pyarrow}
    if use_duckdb:
        import duckdb

        cons = {}

        def r_duckdb(path, threads):
            key = threads
            if key not in cons:
                con = duckdb.connect()
                con.execute(f"SET threads = {1 if threads == 1 else os.cpu_count() or 1}")
                cons[key] = con
            # The five columns into an Arrow table, as the other two return
            # them (an aggregate could be answered from the footer's min/max).
            return cons[key].sql(f"SELECT {', '.join(Q12)} FROM read_parquet('{path}')").to_arrow_table()

        readers["duckdb"] = r_duckdb
    return readers


def measure(scale: float = 1.0, runs: int = 5, data: str | None = None, threads=("1", "all"),
            use_duckdb: bool = True, log=None) -> list[dict]:
    log = log or (lambda s: print(s, file=sys.stderr))
    files = ensure_files(data_dir(data, scale), scale, log)
    rows = pq.ParquetFile(files[("plain", "none")]).metadata.num_rows
    values = rows * len(Q12)
    readers = _readers(use_duckdb)
    cells = [(r, enc, codec, th) for th in threads for codec in CODECS for enc in ENCODINGS for r in readers]
    samples: dict[tuple, list[tuple[float, float]]] = {c: [] for c in cells}
    log(f"timing {len(cells)} cells x {runs} runs (interleaved; each sample after an untimed call) ...")
    for run in range(runs):
        order = cells[run % len(cells):] + cells[:run % len(cells)]  # rotate who goes first
        for cell in order:
            r, enc, codec, th = cell
            fn, path, t = readers[r], str(files[(enc, codec)]), (1 if th == "1" else 0)
            fn(path, t)  # untimed: page faults of memory returned to the OS land here
            c0, w0 = time.process_time(), time.perf_counter()
            res = fn(path, t)
            c1, w1 = time.process_time(), time.perf_counter()
            del res
            samples[cell].append((c1 - c0, w1 - w0))
    out = []
    med = {c: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v)) for c, v in samples.items()}
    for (r, enc, codec, th), (cpu, wall) in med.items():
        plain_cpu = med[(r, "plain", codec, th)][0]
        dict_cpu = med[(r, "dictionary", codec, th)][0]
        row = {"reader": r, "encoding": enc, "codec": codec, "threads": th, "rows": rows,
               "cpu_s": cpu, "wall_s": wall, "mvalues_per_cpu_s": values / cpu / 1e6,
               "vs_plain": cpu / plain_cpu, "vs_dictionary": cpu / dict_cpu}
        if r != "pyarrow":
            row["pyarrow_cpu_over_this"] = med[("pyarrow", enc, codec, th)][0] / cpu
        out.append(row)
    return out


def run(args) -> int:
    threads = tuple(t.strip() for t in args.threads.split(",") if t.strip())
    rows = measure(args.scale, args.runs, args.data, threads, not args.no_duckdb)
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0

    n = rows[0]["rows"]
    print(f"TPC-H lineitem SF{args.scale:g} ({n:,} rows), Q12's 5 columns ({n * 5 / 1e6:.1f} M values), "
          f"medians of {args.runs} samples of process CPU time (each after an untimed call); "
          f"pyarrow-written files; SIMD: {pqfast.simd_level()}; {os.cpu_count()} cores")
    headers = ["threads", "codec", "encoding", "reader", "CPU s", "wall s", "M values/s (CPU)",
               "vs PLAIN", "vs dict", "pyarrow / this"]
    table = []
    for r in sorted(rows, key=lambda r: (r["threads"], CODECS.index(r["codec"]), ENCODINGS.index(r["encoding"]),
                                         READERS.index(r["reader"]))):
        table.append([r["threads"], r["codec"], r["encoding"], r["reader"], f"{r['cpu_s']:.3f}",
                      f"{r['wall_s']:.3f}", f"{r['mvalues_per_cpu_s']:.0f}", f"{r['vs_plain']:.2f}x",
                      f"{r['vs_dictionary']:.2f}x",
                      f"{r['pyarrow_cpu_over_this']:.2f}x" if "pyarrow_cpu_over_this" in r else "-"])
    print(format_table(headers, table))
    # The goals, from the same medians.
    def cpu(reader, enc, codec, th="1"):
        for r in rows:
            if (r["reader"], r["encoding"], r["codec"], r["threads"]) == (reader, enc, codec, th):
                return r["cpu_s"]
        return None
    if cpu("pqfast", "delta", "none") is not None:
        print()
        print("goals (one thread, CPU time):")
        for codec, goal in (("none", 3.0), ("zstd", 2.0)):
            ratio = cpu("pyarrow", "delta", codec) / cpu("pqfast", "delta", codec)
            print(f"  DELTA file, {codec}: pqfast {ratio:.2f}x pyarrow (goal >= {goal:g}x): "
                  f"{'met' if ratio >= goal else 'MISSED'}")
        for codec in CODECS:
            share = cpu("pqfast", "delta", codec) / cpu("pyarrow", "plain", codec)
            print(f"  pqfast DELTA / pyarrow PLAIN, {codec}: {share:.2f} (goal <= 0.5): "
                  f"{'met' if share <= 0.5 else 'MISSED'}")
            dd = cpu("pqfast", "delta", codec) / cpu("pqfast", "dictionary", codec)
            print(f"  pqfast DELTA / pqfast dictionary, {codec}: {dd:.2f} (goal <= 1.0): "
                  f"{'met' if dd <= 1.0 else 'MISSED'}")
            for enc in ("plain", "dictionary"):
                ratio = cpu("pyarrow", enc, codec) / cpu("pqfast", enc, codec)
                print(f"  {enc}, {codec}: pqfast {ratio:.2f}x pyarrow (goal >= 1): "
                      f"{'met' if ratio >= 1.0 else 'MISSED'}")
    return 0
