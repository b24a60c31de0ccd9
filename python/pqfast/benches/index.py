"""`pqfast bench index`: Bloom filters added to a lake written without them
(issue 18), against rewriting the lake with pyarrow's bloom_filter_options.

The lake: TPC-H lineitem (tpchgen-cli, scale 1 by default) split into 20
files written by polars (its defaults: zstd, no Bloom filters). Built once
under --data, then copied for every run (copies are not timed).

Contenders, each on a fresh copy, indexing l_orderkey and l_comment:
- pqfast.index, Bloom filters only (page_index=False);
- pqfast.index with page indexes (the default);
- pyarrow: read each file and write it again with bloom_filter_options
  (ndv = the file's rows per row group, fpp 0.01), the only way pyarrow adds
  filters.
Reported: wall time (median of --runs), bytes written (pqfast: bytes
appended; with no reflink on the filesystem the rename also costs a copy in
the kernel, shown apart), and the time of one l_orderkey lookup
(pqfast.read_table(filters=) and DuckDB) on the lake before and after.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq

import pqfast
from .._progress import Progress
from .._table import format_table
from pqfast import _pqfast
from .read import lineitem

NAME = "index"
HELP = ("Append Bloom filters to a 20-file TPC-H lineitem lake written by polars (pqfast.index) vs rewriting it "
        "with pyarrow bloom_filter_options: time, bytes written, a lookup before and after.")

DATA_VERSION = 1
COLUMNS = ["l_orderkey", "l_comment"]
FPP = 0.01


def add_arguments(p) -> None:
    p.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    p.add_argument("--files", type=int, default=20, help="files in the lake (default 20)")
    p.add_argument("--runs", type=int, default=3, help="timed runs per contender (median reported)")
    p.add_argument("--lookups", type=int, default=7, help="timed lookups per lake (median reported)")
    p.add_argument("--threads", type=int, default=0, help="threads for every contender (0: all cores)")
    p.add_argument("--data", default=None, help="where to build/reuse the lake (default build/bench-index "
                   "if ./build exists, else ~/.cache/pqfast/bench-index)")
    p.add_argument("--json", action="store_true", help="one JSON object per row instead of a table")


def ensure_lake(base: Path, scale: float, files: int, log) -> Path:
    """lineitem split into `files` polars-written files; built once."""
    import polars as pl

    d = base / f"sf{scale:g}-{files}-v{DATA_VERSION}"
    lake = d / "polars"
    if lake.is_dir() and len(list(lake.glob("*.parquet"))) == files:
        return lake

    src = lineitem(d, scale, log)
    log(f"splitting lineitem into {files} files with polars ...")
    df = pl.read_parquet(src)
    tmp = d / "polars.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    n = df.height
    for i in range(files):
        lo, hi = n * i // files, n * (i + 1) // files
        df.slice(lo, hi - lo).write_parquet(tmp / f"part-{i:02d}.parquet")
    os.replace(tmp, lake)
    return lake


def lake_bytes(lake: Path) -> int:
    return sum(p.stat().st_size for p in lake.glob("*.parquet"))


def copy_lake(src: Path, dst: Path) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)


def pyarrow_rewrite(src: Path, dst: Path, threads: int) -> int:
    """Each file read and written again with Bloom filters on COLUMNS; returns bytes written."""
    dst.mkdir(parents=True, exist_ok=True)

    def one(p: Path) -> int:
        f = pq.ParquetFile(p)
        rows = max(f.metadata.row_group(i).num_rows for i in range(f.metadata.num_row_groups))
        out = dst / p.name
        with pq.ParquetWriter(out, f.schema_arrow, compression="zstd",
                              bloom_filter_options={c: {"ndv": rows, "fpp": FPP} for c in COLUMNS}) as w:
            for i in range(f.num_row_groups):
                w.write_table(f.read_row_group(i), row_group_size=rows)
        return out.stat().st_size

    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        return sum(pool.map(one, sorted(src.glob("*.parquet"))))


def lookup_times(lake: Path, column: str, key, repeat: int, threads: int) -> dict:
    """Median ms of one lookup: pqfast.read_table(filters=) and DuckDB."""
    out = {}
    expected = None
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        t = pqfast.read_table(str(lake), filters=[(column, "=", key)], threads=threads or None)
        samples.append(time.perf_counter() - t0)
        expected = t.num_rows
    out["pqfast"] = statistics.median(samples) * 1e3
    try:
        import duckdb
    except ImportError:
        return out
    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads={threads}")
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        n = con.execute(f"SELECT count(*) FROM read_parquet('{lake}/*.parquet') WHERE {column} = ?",
                        [key]).fetchone()[0]
        samples.append(time.perf_counter() - t0)
        if n != expected:
            raise SystemExit(f"error: DuckDB finds {n} rows for {column}={key!r}, pqfast {expected}")
    out["duckdb"] = statistics.median(samples) * 1e3
    out["rows"] = expected
    return out


def dictionary_floor(lake: Path, column: str) -> tuple[float, int]:
    """Seconds to read the footers and, for every chunk of `column`, its
    dictionary page bytes ([dictionary_page_offset, data_page_offset)); and
    the bytes read: what indexing a dictionary-only chunk cannot do without."""
    t0 = time.perf_counter()
    total = 0
    for p in sorted(lake.glob("*.parquet")):
        md = pq.read_metadata(p)
        names = [md.schema.column(i).path for i in range(md.num_columns)]
        j = names.index(column)
        fd = os.open(p, os.O_RDONLY)
        try:
            for g in range(md.num_row_groups):
                c = md.row_group(g).column(j)
                if c.dictionary_page_offset is None:
                    continue
                n = c.data_page_offset - c.dictionary_page_offset
                total += len(os.pread(fd, n, c.dictionary_page_offset))
        finally:
            os.close(fd)
    return time.perf_counter() - t0, total


def dictionary_decoded(lake: Path, column: str) -> float:
    """Seconds to read the footers and every chunk's dictionary page of
    `column` decompressed and decoded (pqfast's dictionary page reader, one
    thread): what a reader of the dictionary pages does before any use."""
    t0 = time.perf_counter()
    for p in sorted(lake.glob("*.parquet")):
        f = pqfast.ParquetFile(str(p))
        meta = f._meta
        leaf = [c["dotted_path"] for c in meta.columns()].index(column)
        fd = os.open(p, os.O_RDONLY)
        try:
            for g in range(meta.num_row_groups):
                c = meta.column_chunk(g, leaf)
                off, end = c["dictionary_page_offset"], c["data_page_offset"]
                if off is None:
                    continue
                _pqfast._dictionary_page(os.pread(fd, end - off, off), meta, g, leaf, "default", "")
        finally:
            os.close(fd)
            f.close()
    return time.perf_counter() - t0


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    base = Path(args.data) if args.data else (Path("build") / "bench-index" if Path("build").is_dir()
                                              else Path.home() / ".cache" / "pqfast" / "bench-index")
    lake = ensure_lake(base, args.scale, args.files, progress.message)
    work = base / "work"
    total = lake_bytes(lake)
    first = sorted(lake.glob("*.parquet"))[args.files // 2]
    sample = pq.read_table(first, columns=COLUMNS)
    keys = {"l_orderkey": int(sample.column(0)[1234].as_py()), "l_comment": sample.column(1)[4321].as_py()}

    def lookups_on(d: Path) -> dict:
        return {c: lookup_times(d, c, k, args.lookups, args.threads) for c, k in keys.items()}

    progress.message("lookups on the polars lake ...")
    before = lookups_on(lake)

    rows = []
    results = {}
    for name, page_index in [("pqfast.index (Bloom filters)", False), ("pqfast.index (+ page indexes)", True)]:
        times, summary = [], None
        for r in range(args.runs):
            copy_lake(lake, work / "pqfast")
            os.sync()
            progress.message(f"{name}: run {r + 1}/{args.runs} ...")
            t0 = time.perf_counter()
            summary = pqfast.index(work / "pqfast", COLUMNS, fpp=FPP, page_index=page_index,
                                   threads=args.threads or None)
            times.append(time.perf_counter() - t0)
        results[name] = (statistics.median(times), summary)
        rows.append({"method": name, "seconds": statistics.median(times), "bytes_written": summary.bytes_appended,
                     "pct_of_lake": 100.0 * summary.bytes_appended / total,
                     # Files neither cloned nor copied in user space were copied by copy_file_range.
                     "kernel_copy_bytes": 0 if summary.files_cloned else total - summary.bytes_copied,
                     "chunks_indexed": summary.chunks_indexed,
                     "from_dictionary": summary.chunks_from_dictionary,
                     "page_indexes": summary.offset_indexes})
    progress.message("lookups on the indexed lake ...")
    after = lookups_on(work / "pqfast")

    # Dictionary-only chunks (l_orderkey in polars' files): indexing them
    # (dry run: no commit) against reading their dictionary pages.
    dict_index, dict_index1, dict_read, dict_decoded = [], [], [], []
    dict_summary = None
    for _ in range(args.runs):
        t0 = time.perf_counter()
        dict_summary = pqfast.index(lake, ["l_orderkey"], fpp=FPP, page_index=False, dry_run=True,
                                    threads=args.threads or None)
        dict_index.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        pqfast.index(lake, ["l_orderkey"], fpp=FPP, page_index=False, dry_run=True, threads=1)
        dict_index1.append(time.perf_counter() - t0)
        dict_read.append(dictionary_floor(lake, "l_orderkey")[0])
        dict_decoded.append(dictionary_decoded(lake, "l_orderkey"))

    times = []
    written = 0
    for r in range(args.runs):
        shutil.rmtree(work / "pyarrow", ignore_errors=True)
        progress.message(f"pyarrow rewrite: run {r + 1}/{args.runs} ...")
        t0 = time.perf_counter()
        written = pyarrow_rewrite(lake, work / "pyarrow", args.threads)
        times.append(time.perf_counter() - t0)
    rows.append({"method": "pyarrow rewrite (bloom_filter_options)", "seconds": statistics.median(times),
                 "bytes_written": written, "pct_of_lake": 100.0 * written / total, "kernel_copy_bytes": 0,
                 "chunks_indexed": None, "from_dictionary": None, "page_indexes": None})
    after_pa = lookups_on(work / "pyarrow")
    progress.close()

    pa_seconds = rows[-1]["seconds"]
    for r in rows:
        r["speedup_vs_pyarrow"] = pa_seconds / r["seconds"]
    lookups = [{"lake": name, "column": c, **res[c]} for name, res in
               [("polars (no filters)", before), ("after pqfast.index", after), ("after pyarrow rewrite", after_pa)]
               for c in keys]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        for r in lookups:
            print(json.dumps(r))
        print(json.dumps({"dictionary_only_index_ms": statistics.median(dict_index) * 1e3,
                          "dictionary_only_index_1_thread_ms": statistics.median(dict_index1) * 1e3,
                          "dictionary_pages_decoded_1_thread_ms": statistics.median(dict_decoded) * 1e3,
                          "dictionary_pages_read_ms": statistics.median(dict_read) * 1e3,
                          "chunks_from_dictionary": dict_summary.chunks_from_dictionary}))
        return 0
    print(f"lake: {args.files} files of TPC-H lineitem SF{args.scale:g} written by polars, "
          f"{total / 2**20:,.1f} MiB; columns {', '.join(COLUMNS)}; fpp {FPP}; medians of {args.runs} runs")
    print(format_table(["method", "time (s)", "vs pyarrow", "bytes written", "% of lake", "chunks", "from dict",
                        "page idx"],
                       [[r["method"], r["seconds"], f"{r['speedup_vs_pyarrow']:.1f}x", f"{r['bytes_written']:,}",
                         r["pct_of_lake"], r["chunks_indexed"] if r["chunks_indexed"] is not None else "-",
                         r["from_dictionary"] if r["from_dictionary"] is not None else "-",
                         r["page_indexes"] if r["page_indexes"] is not None else "-"] for r in rows]))
    print("(page idx: chunks given a ColumnIndex/OffsetIndex; polars writes page indexes itself)")
    if rows[0]["kernel_copy_bytes"]:
        print(f"(no reflink on this filesystem: each indexed file was also copied in the kernel by "
              f"copy_file_range before the rename, {rows[0]['kernel_copy_bytes']:,} bytes)")
    print(f"l_orderkey alone ({dict_summary.chunks_from_dictionary} of {dict_summary.chunks_indexed} chunks from the "
          f"dictionary page): index (dry run) {statistics.median(dict_index) * 1e3:.1f} ms "
          f"({statistics.median(dict_index1) * 1e3:.1f} ms on 1 thread); reading the footers and dictionary pages "
          f"decompressed and decoded (1 thread) {statistics.median(dict_decoded) * 1e3:.1f} ms; their bytes alone "
          f"(pyarrow footer + pread) {statistics.median(dict_read) * 1e3:.1f} ms")
    print()
    print(f"one lookup per column (l_orderkey = {keys['l_orderkey']}: {before['l_orderkey'].get('rows')} rows; "
          f"l_comment = {keys['l_comment']!r}: {before['l_comment'].get('rows')} rows), median ms of {args.lookups}:")
    print(format_table(["lake", "column", "pqfast.read_table", "DuckDB"],
                       [[r["lake"], r["column"], r["pqfast"], r.get("duckdb", "-")] for r in lookups]))
    return 0
