"""`pqfast bench read`: whole-file reads of TPC-H lineitem, as a new user makes
them, by pqfast (pyarrow's types, and strings="view"), pyarrow, polars,
DuckDB and DataFusion, from the files four writers make (tpchgen-cli, pyarrow,
DuckDB, polars: each with its defaults), all 16 columns and Q12's five, at 1,
2 and all threads, beside the codec floor (the same pages only decompressed);
and a lake of many small files (10,000 by default, lineitem rows cut in
order from pyarrow's file) read whole from its directory by every contender
(pqfast.read_table(dir), pyarrow.dataset, polars and DuckDB over a glob,
DataFusion over the directory).

Each thread setting runs in its own process (polars fixes its pool size at
import, from POLARS_MAX_THREADS); within it every (file, columns, contender)
cell is timed once per round, right after an untimed call of its own (warm),
each round in another order, so that the contenders alternate; the medians
are reported."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import pqfast
from .. import _pqfast
from .._table import format_table

NAME = "read"
HELP = ("Read TPC-H lineitem whole (4 writers' files, all and Q12 columns, 1/2/all threads): "
        "pqfast vs pyarrow, polars, DuckDB, DataFusion, beside the codec floor.")

Q12 = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]
COLUMN_SETS = {"all 16": None, "Q12's 5": Q12}
WRITERS = ["tpchgen", "pyarrow", "duckdb", "polars"]
LAKE = "lake"  # the lake's name among the files (--files)
CONTENDERS = ["pqfast", "pqfast view", "pyarrow", "polars", "duckdb", "datafusion"]
PEERS = ["pyarrow", "polars", "duckdb", "datafusion"]
LABEL = {"tpchgen": "tpchgen", "pyarrow": "pyarrow", "duckdb": "DuckDB", "polars": "polars",
         "datafusion": "DataFusion", LAKE: "lake"}
DATA_VERSION = 1
QUICK = dict(scale=0.1, runs=3, lake_files=1000)
# 10,000 files of 1,000 rows (~57 KB each, 10 M rows): files of ~1 MB (30,000
# rows) would make a 300 M-row table, ~45 GB decoded, past a small machine's
# memory; the count is what the lake measures (per-file costs).
LAKE_FILES, LAKE_ROWS = 10000, 1000
LAKE_VERSION = 1


def add_arguments(p) -> None:
    p.add_argument("--scale", type=float, default=None, help="TPC-H scale factor (default 1: 6M rows; --quick: 0.1)")
    p.add_argument("--runs", type=int, default=None, help="timed rounds per cell, median reported (default 5; "
                   "--quick: 3)")
    p.add_argument("--quick", action="store_true", help="SF 0.1, 3 rounds: about a minute on 2 cores")
    p.add_argument("--threads", default="1,2,all", help="thread settings, e.g. '1,2,all' (repeats dropped)")
    p.add_argument("--files", default=",".join(WRITERS + [LAKE]),
                   help=f"writers' files to read ({','.join(WRITERS)}) and '{LAKE}', the lake of small files")
    p.add_argument("--lake-files", type=int, default=None,
                   help=f"files in the lake (default {LAKE_FILES:,}; --quick: {QUICK['lake_files']:,})")
    p.add_argument("--lake-rows", type=int, default=LAKE_ROWS, help=f"rows per lake file (default {LAKE_ROWS:,})")
    p.add_argument("--lake-dir", default=None, help="where lakes are made once and kept (default "
                   "~/.cache/pqfast/keep/bench-read-10k)")
    p.add_argument("--contenders", default=",".join(CONTENDERS),
                   help=f"who reads ({','.join(CONTENDERS)}; a missing package is left out)")
    p.add_argument("--no-duckdb", action="store_true", help="leave DuckDB out (reads and writes)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of tables")
    p.add_argument("--data", default=None, help="where to build/reuse the files (default build/bench-read "
                   "if ./build exists, else ~/.cache/pqfast/bench-read)")


# ---- files -------------------------------------------------------------------------------


def data_dir(arg: str | None, scale: float) -> Path:
    base = Path(arg) if arg else (Path("build") / "bench-read" if Path("build").is_dir()
                                  else Path.home() / ".cache" / "pqfast" / "bench-read")
    return base / f"whole-sf{scale:g}-v{DATA_VERSION}"


def _tpchgen() -> str:
    exe = shutil.which("tpchgen-cli") or str(Path(sys.executable).parent / "tpchgen-cli")
    if not Path(exe).exists():
        raise SystemExit("error: tpchgen-cli not found (pip install tpchgen-cli)")
    return exe


def lineitem(d: Path, scale: float, log=print) -> Path:
    """d/lineitem.parquet as tpchgen-cli writes it at `scale` (SNAPPY); generated once."""
    d.mkdir(parents=True, exist_ok=True)
    src = d / "lineitem.parquet"
    if not src.exists():
        log(f"generating lineitem at scale {scale:g} with tpchgen-cli ...")
        subprocess.run([_tpchgen(), "parquet", "-s", f"{scale:g}", "--tables=lineitem", f"--output-dir={d}"],
                       check=True, stdout=subprocess.DEVNULL)
    return src


def lake(root: str | None, files: int, rows: int, source: Path, scale: float, log=print) -> Path:
    """A directory of `files` files of `rows` lineitem rows each, cut in order
    from `source` (pyarrow's file; from its start again when it runs out),
    written by pyarrow with its defaults; made once (a `_DONE` marker says it
    is whole). The SF1 lake's name is the one scripts/bench_lake_many.py
    uses, so both read the same lake."""
    base = Path(root) if root else Path.home() / ".cache" / "pqfast" / "keep" / "bench-read-10k"
    tag = "" if scale == 1 else f"-sf{scale:g}"
    d = base / f"lake-{files}x{rows}{tag}-v{LAKE_VERSION}"
    if (d / "_DONE").exists():
        return d
    log(f"writing the lake: {files:,} files of {rows:,} rows in {d} ...")
    d.mkdir(parents=True, exist_ok=True)
    src = pq.read_table(source)
    at = 0
    for i in range(files):
        if at + rows > src.num_rows:
            at = 0
        pq.write_table(src.slice(at, rows), d / f"part-{i:05d}.parquet")
        at += rows
    (d / "_DONE").write_text("")
    return d


def _rewrite(src: Path, dst: Path, writer: str) -> None:
    """tpchgen's lineitem written again by `writer` with its defaults (pyarrow:
    SNAPPY, dictionaries; DuckDB: SNAPPY; polars: ZSTD)."""
    tmp = dst.with_suffix(".tmp")
    if writer == "pyarrow":
        t = pq.read_table(src)
        # pyarrow as most users hold these columns: strings, not tpchgen's views.
        t = t.cast(_without_views(t.schema))
        pq.write_table(t, tmp)
    elif writer == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.execute("SET enable_progress_bar = false")
        con.execute(f"COPY (SELECT * FROM read_parquet('{src}')) TO '{tmp}' (FORMAT parquet)")
        con.close()
    elif writer == "polars":
        import polars as pl

        pl.read_parquet(src).write_parquet(tmp)
    else:
        raise ValueError(writer)
    os.replace(tmp, dst)


def _without_views(schema):
    plain = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}
    return pa.schema([f.with_type(plain.get(f.type, f.type)) for f in schema])


def ensure_files(d: Path, scale: float, writers, log=print, lake_spec=None) -> dict[str, Path]:
    """{writer: file} (and the lake's directory under LAKE, made from
    pyarrow's file, `lake_spec`: (root, files, rows))."""
    src = lineitem(d, scale, log)
    out = {}
    for w in writers:
        if w == "tpchgen":
            out[w] = src
            continue
        if w == LAKE:
            root, files, rows = lake_spec or (None, LAKE_FILES, LAKE_ROWS)
            out[w] = lake(root, files, rows, ensure_files(d, scale, ["pyarrow"], log)["pyarrow"], scale, log)
            continue
        p = d / f"lineitem-{w}.parquet"
        if not p.exists():
            log(f"writing {p.name} ...")
            _rewrite(src, p, w)
        out[w] = p
    return out


# ---- contenders (in the worker process) -------------------------------------------------


def _readers(names, threads: int):
    """{contender: fn(path, columns) -> result} for `threads` threads; a
    directory (the lake) is read whole: pyarrow.dataset, polars and DuckDB
    over its files' glob, DataFusion over the directory."""
    pa.set_cpu_count(threads)
    out = {}
    if "pqfast" in names:
        out["pqfast"] = lambda path, cols: pqfast.read_table(path, columns=cols, threads=threads)
    if "pqfast view" in names:
        out["pqfast view"] = lambda path, cols: pqfast.read_table(path, columns=cols, threads=threads,
                                                                  strings="view")
    if "pyarrow" in names:
        def r_pyarrow(path, cols):
            if os.path.isdir(path):
                return ds.dataset(path, format="parquet").to_table(columns=cols, use_threads=threads > 1)
            return pq.read_table(path, columns=cols, use_threads=threads > 1)

        out["pyarrow"] = r_pyarrow
    if "polars" in names:
        try:
            import polars as pl
        except ImportError:
            pass
        else:
            # A DataFrame, as polars users get it (Arrow string views inside).
            out["polars"] = lambda path, cols: pl.read_parquet(_glob(path), columns=cols)
    if "duckdb" in names:
        try:
            import duckdb
        except ImportError:
            pass
        else:
            con = duckdb.connect()
            con.execute(f"SET threads = {threads}")
            con.execute("SET enable_progress_bar = false")

            def r_duckdb(path, cols):
                what = "*" if cols is None else ", ".join(cols)
                return con.sql(f"SELECT {what} FROM read_parquet('{_glob(path)}')").to_arrow_table()

            out["duckdb"] = r_duckdb
    if "datafusion" in names:
        try:
            from datafusion import SessionConfig, SessionContext
        except ImportError:
            pass
        else:
            ctx = SessionContext(SessionConfig().with_target_partitions(threads))

            def r_datafusion(path, cols):
                df = ctx.read_parquet(str(path))
                if cols is not None:
                    df = df.select(*cols)
                return df.to_arrow_table()

            out["datafusion"] = r_datafusion
    return out


def _glob(path: str) -> str:
    """A lake's files as a glob (polars, DuckDB); a file as itself."""
    return os.path.join(path, "*.parquet") if os.path.isdir(path) else path


def _floor(path: str, cols, threads: int, runs: int) -> float | None:
    """Seconds to decompress the pages of the columns' chunks on `threads`
    threads (best of `runs`); None for the lake (no floor measured)."""
    if os.path.isdir(path):
        return None
    names = pq.ParquetFile(path).schema_arrow.names
    leaves = [] if cols is None else [names.index(c) for c in cols]
    return _pqfast._bench_codec_floor(path, max(runs, 1), leaves, threads)["seconds"]


def _worker(spec_json: str) -> None:
    """One thread setting: every cell timed, medians printed as JSON (last line)."""
    spec = json.loads(spec_json)
    threads, runs = spec["threads"], spec["runs"]
    readers = _readers(spec["contenders"], threads)
    cells = [(f, cs, r) for f in spec["files"] for cs in COLUMN_SETS for r in readers]
    samples: dict = {c: [] for c in cells}
    for run in range(runs):
        # Each round in its own order (who runs after whom changes), each
        # sample warm: right after an untimed call of the same cell, whose
        # page faults on memory the previous contender gave back land there.
        order = list(cells)
        random.Random(run).shuffle(order)
        for cell in order:
            f, cs, r = cell
            # (the parent shows the last of these when this process dies)
            print(f"round {run + 1}: {r} on {f}, {cs}", file=sys.stderr, flush=True)
            readers[r](spec["files"][f], COLUMN_SETS[cs])
            t0 = time.perf_counter()
            res = readers[r](spec["files"][f], COLUMN_SETS[cs])
            samples[cell].append(time.perf_counter() - t0)
            del res
    rows = []
    for (f, cs, r), s in samples.items():
        rows.append({"file": f, "columns": cs, "threads": threads, "contender": r, "ms": statistics.median(s) * 1e3})
    for f, path in spec["files"].items():
        for cs, cols in COLUMN_SETS.items():
            floor = _floor(path, cols, threads, runs)
            if floor is not None:
                rows.append({"file": f, "columns": cs, "threads": threads, "contender": "codec floor",
                             "ms": floor * 1e3})
    print(json.dumps(rows))


# ---- driver --------------------------------------------------------------------------------


def _thread_counts(arg: str) -> list[int]:
    out = []
    for t in (x.strip() for x in arg.split(",") if x.strip()):
        n = os.cpu_count() or 1 if t == "all" else int(t)
        if n not in out:
            out.append(n)
    return out


def measure(scale: float, runs: int, data, threads: list[int], writers, contenders, log=None,
            lake_spec=None, failures: list | None = None) -> list[dict]:
    """Rows of every thread setting; a setting whose process dies is named in
    the log and appended to `failures`."""
    log = log or (lambda s: print(s, file=sys.stderr))
    failures = failures if failures is not None else []
    files = ensure_files(data_dir(data, scale), scale, writers, log, lake_spec)
    rows = []
    for n in threads:
        log(f"{n} thread(s): {len(files) * len(COLUMN_SETS) * len(contenders)} cells x {runs} rounds ...")
        env = dict(os.environ, POLARS_MAX_THREADS=str(n))
        spec = json.dumps({"threads": n, "runs": runs, "contenders": list(contenders),
                           "files": {w: str(p) for w, p in files.items()}})
        proc = subprocess.run([sys.executable, "-c", "import sys; from pqfast.benches.read import _worker; "
                               "_worker(sys.argv[1])", spec], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            # The other settings' rows are still printed; the run fails at the end.
            log(f"error: the {n}-thread run {_death(proc.returncode)}; its last lines:\n"
                + "\n".join(proc.stderr.strip().splitlines()[-12:]))
            failures.append(n)
            continue
        rows.extend(json.loads(proc.stdout.strip().splitlines()[-1]))
    return rows


def _death(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


def summary(rows: list[dict]) -> list[dict]:
    """Per (file, columns, threads): pqfast's and its view read's medians, the
    fastest peer's, the ratios (peer / pqfast: > 1, pqfast faster), the floor."""
    by = {}
    for r in rows:
        by.setdefault((r["file"], r["columns"], r["threads"]), {})[r["contender"]] = r["ms"]
    out = []
    for (f, cs, th), ms in by.items():
        peers = {p: ms[p] for p in PEERS if p in ms}
        best = min(peers, key=peers.get) if peers else None
        row = {"file": f, "columns": cs, "threads": th, "pqfast_ms": ms.get("pqfast"),
               "view_ms": ms.get("pqfast view"), "peer": best, "peer_ms": peers.get(best),
               "floor_ms": ms.get("codec floor"), "all": ms}
        if best and row["pqfast_ms"]:
            row["ratio"] = row["peer_ms"] / row["pqfast_ms"]
        if best and row["view_ms"]:
            row["view_ratio"] = row["peer_ms"] / row["view_ms"]
        out.append(row)
    return out


def _ms(v) -> str:
    return "-" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.1f}")


def run(args) -> int:
    scale = args.scale if args.scale is not None else (QUICK["scale"] if args.quick else 1.0)
    runs = args.runs if args.runs is not None else (QUICK["runs"] if args.quick else 5)
    writers = [w for w in args.files.split(",") if w and not (args.no_duckdb and w == "duckdb")]
    contenders = [c for c in args.contenders.split(",") if c and not (args.no_duckdb and c == "duckdb")]
    lake_files = args.lake_files if args.lake_files is not None else (
        QUICK["lake_files"] if args.quick else LAKE_FILES)
    lake_spec = (args.lake_dir, lake_files, args.lake_rows)
    failures: list = []
    rows = measure(scale, runs, args.data, _thread_counts(args.threads), writers, contenders,
                   lake_spec=lake_spec, failures=failures)
    status = 1 if failures else 0
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return status
    if not rows:
        return status

    n = pq.ParquetFile(lineitem(data_dir(args.data, scale), scale, lambda s: None)).metadata.num_rows
    lake_note = (f"; lake = {lake_files:,} files of {args.lake_rows:,} rows cut from pyarrow's file, "
                 f"read from their directory" if LAKE in writers else "")
    print(f"TPC-H lineitem SF{scale:g} ({n:,} rows){lake_note}; wall ms, medians of {runs} warm calls alternating, "
          f"each thread setting in its own process; pqfast {pqfast.__version__} (SIMD {pqfast.simd_level()}), "
          f"pyarrow {pa.__version__}{_versions()}; {os.cpu_count()} cores")
    print("ratio = fastest peer's ms / pqfast's (> 1: pqfast faster); view = strings='view'; "
          "floor = the same chunks' pages only decompressed (in memory, same threads)")
    print()
    sums = summary(rows)
    headers = ["file", "columns", "threads", "pqfast ms", "view ms", "fastest peer", "ratio", "view ratio",
               "floor ms", "pqfast / floor"]
    table = []
    for s in sums:
        peer = f"{LABEL.get(s['peer'], s['peer'])} {_ms(s['peer_ms'])}" if s["peer"] else "-"
        table.append([LABEL[s["file"]], s["columns"], s["threads"], _ms(s["pqfast_ms"]), _ms(s["view_ms"]), peer,
                      f"{s['ratio']:.2f}x" if "ratio" in s else "-",
                      f"{s['view_ratio']:.2f}x" if "view_ratio" in s else "-", _ms(s["floor_ms"]),
                      f"{s['pqfast_ms'] / s['floor_ms']:.2f}x" if s["floor_ms"] and s["pqfast_ms"] else "-"])
    print(format_table(headers, table))
    print()
    present = [c for c in CONTENDERS if any(c in s["all"] for s in sums)]
    headers = ["file", "columns", "threads"] + present
    print(format_table(headers, [[LABEL[s["file"]], s["columns"], s["threads"]] +
                                 [_ms(s["all"].get(c)) for c in present] for s in sums]))
    print()
    print("goals (issue 32, same run):")
    for s in sums:
        goal = 2.0 if s["file"] == LAKE else 1.3 if s["columns"] == "all 16" else 1.5
        if "ratio" in s:
            print(f"  {LABEL[s['file']]}, {s['columns']}, {s['threads']} thread(s): {s['ratio']:.2f}x "
                  f"(goal >= {goal:g}x) {'met' if s['ratio'] >= goal else 'MISSED'}"
                  + (f"; view {s['view_ratio']:.2f}x (goal >= 1.6x) "
                     f"{'met' if s['view_ratio'] >= 1.6 else 'MISSED'}"
                     if "view_ratio" in s and s["columns"] == "all 16" else ""))
    if failures:
        print(f"error: no rows for {', '.join(map(str, failures))} thread(s): the run's process died (above)")
    return status


def _versions() -> str:
    out = []
    for mod in ("polars", "duckdb", "datafusion"):
        try:
            out.append(f"{mod} {__import__(mod).__version__}")
        except ImportError:
            pass
    return (", " + ", ".join(out)) if out else ""
