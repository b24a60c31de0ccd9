#!/usr/bin/env python3
"""Differential reader check: every Parquet file under a folder is read by
pqfast and by pyarrow, each file in its own process (under a memory limit and
a timeout, so a crash or a hang is one file's verdict, not the run's), whole,
column by column, and with filters derived from the file's own values
(point, range and null tests on a few columns). Prints per category the count
and the files:

  equal            every read agrees (values and types)
  wrong_value      both read, the values or types differ (whole or filtered)
  pqfast_refuses   pyarrow reads the file, pqfast raises
  both_refuse      both raise
  pyarrow_refuses  pqfast reads a file pyarrow refuses
  filtered_only    the whole read agrees, a filtered or one-column read raises in pqfast only
  bad_error        pqfast raised something other than FormatError/MemoryLimitError
  crash_timeout    the process died, ran out of memory or ran past the timeout

Usage: scripts/corpus_diff.py [DIR ...]  (default: $PQFAST_CORPUS_DIR)
       [--timeout S] [--memory-gb G] [--simd LEVEL|all] [--json OUT] [-v]
The pqfast it tests is the one Python imports (PYTHONPATH=build/dev/python).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import traceback
from pathlib import Path

CATEGORIES = ("equal", "wrong_value", "pqfast_refuses", "both_refuse", "pyarrow_refuses",
              "filtered_only", "bad_error", "crash_timeout")
_MAX_COLUMNS = 4  # columns given filters / read alone, per file


# ---- the child: one file ---------------------------------------------------------------


def _same_values(a, b) -> bool:
    """Chunked arrays equal in type and values (NaN equal to NaN)."""
    if not a.type.equals(b.type):
        return False
    if a.equals(b):
        return True
    if len(a) != len(b):
        return False

    def norm(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, tuple):
            return tuple(norm(x) for x in v)
        return v

    try:
        return norm(a.to_pylist()) == norm(b.to_pylist())
    except Exception:  # noqa: BLE001 - values Python cannot hold (e.g. out-of-range dates)
        return False


def _compare(ours, theirs) -> str | None:
    """None when the tables agree, else what differs."""
    if ours.num_rows != theirs.num_rows:
        return f"{ours.num_rows} rows, pyarrow {theirs.num_rows}"
    if ours.column_names != theirs.column_names:
        return f"columns {ours.column_names[:8]}, pyarrow {theirs.column_names[:8]}"
    for name, a, b in zip(ours.column_names, ours.columns, theirs.columns):
        if not a.type.equals(b.type):
            return f"column {name!r}: type {a.type}, pyarrow {b.type}"
        if not _same_values(a, b):
            return f"column {name!r}: values differ"
    return None


def _error_kind(e: BaseException) -> str:
    import pqfast

    if isinstance(e, (pqfast.FormatError, pqfast.MemoryLimitError)):
        return "format"
    return "bad"


def _filterable(t):
    """Up to _MAX_COLUMNS top-level columns whose values filters can compare."""
    import pyarrow.types as pt

    out = []
    for f in t.schema:
        ty = f.type
        if pt.is_dictionary(ty):
            ty = ty.value_type
        if pt.is_integer(ty) or pt.is_floating(ty) or pt.is_string(ty) or pt.is_large_string(ty) or \
                pt.is_boolean(ty) or pt.is_date(ty) or pt.is_timestamp(ty) or pt.is_decimal(ty) or \
                pt.is_binary(ty) or pt.is_fixed_size_binary(ty):
            out.append(f.name)
        if len(out) == _MAX_COLUMNS:
            break
    return out


def _filters(t) -> list[tuple[str, object]]:
    """(label, filter) pairs derived from the values of `t`: Expressions on
    the column's own Arrow scalars (no trip through Python values, which
    would round nanoseconds or change types)."""
    import pyarrow.compute as pc
    import pyarrow.types as pt

    out = []
    for name in _filterable(t):
        col = t.column(name)
        if col.null_count:
            out.append((f"{name} is_null", pc.field(name).is_null()))
        col = col.drop_null()
        if pt.is_floating(col.type):  # NaN compares false: not a point to look for
            col = col.filter(pc.invert(pc.is_nan(col)))
        if len(col) == 0:
            continue
        point = col[len(col) // 2]
        out.append((f"{name} == {str(point)[:40]}", pc.field(name) == point))
        try:
            lo = col.take(pc.sort_indices(col))[len(col) // 3]
        except Exception:  # noqa: BLE001 - a type without an order
            continue
        out.append((f"{name} >= {str(lo)[:40]}", pc.field(name) >= lo))
    return out


def _filtered_in_memory(table, flt):
    """`table` filtered by `flt` (a DNF list or an Expression) in memory."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    expr = flt if isinstance(flt, pc.Expression) else pq.filters_to_expression(flt)
    return table.filter(expr)


def check_one(path: str) -> dict:
    """Reads `path` with both readers; returns {category, detail}."""
    import pyarrow.parquet as pq

    import pqfast

    try:
        theirs = pq.read_table(path)
        pa_err = None
    except Exception as e:  # noqa: BLE001 - any refusal is pyarrow's verdict
        theirs, pa_err = None, f"{type(e).__name__}: {e}"
    try:
        ours = pqfast.read_table(path)
        pq_err = None
    except Exception as e:  # noqa: BLE001
        ours, pq_err = None, f"{type(e).__name__}: {e}"
        if _error_kind(e) == "bad" and theirs is None:
            return {"category": "bad_error", "detail": pq_err}
        if _error_kind(e) == "bad":
            return {"category": "bad_error", "detail": pq_err + " (pyarrow reads)"}
    if theirs is None and ours is None:
        return {"category": "both_refuse", "detail": f"pqfast: {pq_err} | pyarrow: {pa_err}"}
    if theirs is None:
        return {"category": "pyarrow_refuses", "detail": pa_err}
    if ours is None:
        return {"category": "pqfast_refuses", "detail": pq_err}
    diff = _compare(ours, theirs)
    if diff:
        return {"category": "wrong_value", "detail": "whole: " + diff}
    failures, notes = [], []
    # Each column alone (a projection takes other paths than the whole read).
    for name in theirs.column_names[:_MAX_COLUMNS]:
        try:
            one = pqfast.read_table(path, columns=[name])
        except Exception as e:  # noqa: BLE001
            if _error_kind(e) == "bad":
                return {"category": "bad_error", "detail": f"column {name!r}: {type(e).__name__}: {e}"}
            failures.append(f"column {name!r}: {e}")
            continue
        diff = _compare(one, theirs.select([name]))
        if diff:
            return {"category": "wrong_value", "detail": f"column {name!r} alone: {diff}"}
    for label, flt in _filters(theirs):
        try:
            want = pq.read_table(path, filters=flt)
        except Exception:  # noqa: BLE001 - a filter pyarrow cannot run is not asked of pqfast
            continue
        try:
            got = pqfast.read_table(path, filters=flt)
        except Exception as e:  # noqa: BLE001
            if _error_kind(e) == "bad":
                return {"category": "bad_error", "detail": f"filter {label}: {type(e).__name__}: {e}"}
            failures.append(f"filter {label}: {e}")
            continue
        diff = _compare(got, want)
        if diff and _compare(got, _filtered_in_memory(theirs, flt)) is not None:
            return {"category": "wrong_value", "detail": f"filter {label}: {diff}"}
        if diff:  # pyarrow's filtered read disagrees with its own whole read filtered
            notes.append(f"filter {label}: pyarrow's filtered read differs from its whole read filtered")
    if failures:
        return {"category": "filtered_only", "detail": "; ".join(failures)[:600]}
    return {"category": "equal", "detail": "; ".join(notes)}


# ---- the parent: a process per file ----------------------------------------------------


def parquet_files(roots) -> list[Path]:
    """Every file under `roots` that starts or ends with the Parquet magic."""
    out = []
    for root in roots:
        root = Path(root)
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for p in paths:
            try:
                with open(p, "rb") as fh:
                    head = fh.read(4)
                    fh.seek(0, os.SEEK_END)
                    size = fh.tell()
                    if size >= 4:
                        fh.seek(size - 4)
                    tail = fh.read(4)
            except OSError:
                continue
            if p.suffix == ".parquet" or head in (b"PAR1", b"PARE") or tail in (b"PAR1", b"PARE"):
                out.append(p)
    return out


def _limit_memory(gb: float):
    def apply():
        n = int(gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return apply


def run_one(path: Path, timeout: float, memory_gb: float, simd: str | None) -> dict:
    env = dict(os.environ)
    if simd:
        env["PQFAST_SIMD"] = simd
    cmd = [sys.executable, os.path.abspath(__file__), "--one", str(path)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           preexec_fn=_limit_memory(memory_gb))
    except subprocess.TimeoutExpired:
        return {"category": "crash_timeout", "detail": f"timeout after {timeout:g} s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"category": "crash_timeout", "detail": f"exit {p.returncode}: {tail[:300]}"}
    return json.loads(lines[-1])


def simd_levels(which: str | None) -> list[str | None]:
    if which != "all":
        return [which]
    import pqfast

    return list(pqfast.available_simd_levels())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--memory-gb", type=float, default=4.0)
    ap.add_argument("--simd", default=None, help="a PQFAST_SIMD level, or 'all'")
    ap.add_argument("--json", help="write {file: result} here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each file's detail")
    args = ap.parse_args(argv)
    if args.one:
        try:
            res = check_one(args.one)
        except Exception as e:  # noqa: BLE001 - a bug of the tool itself is reported, not hidden
            res = {"category": "crash_timeout", "detail": f"checker: {type(e).__name__}: {e}",
                   "trace": traceback.format_exc()[-800:]}
        print(json.dumps(res))
        return 0
    roots = args.dirs or ([os.environ["PQFAST_CORPUS_DIR"]] if os.environ.get("PQFAST_CORPUS_DIR") else [])
    if not roots:
        ap.error("give a folder or set PQFAST_CORPUS_DIR")
    files = parquet_files(roots)
    results = {}
    for level in simd_levels(args.simd):
        for f in files:
            r = run_one(f, args.timeout, args.memory_gb, level)
            key = str(f) if level is None else f"{f} [simd={level}]"
            results[key] = r
            if args.verbose:
                print(f"{r['category']:16} {key}  {r['detail'][:200]}", flush=True)
    by_cat = {c: [] for c in CATEGORIES}
    for k, r in results.items():
        by_cat[r["category"]].append((k, r["detail"]))
    print(f"\n{'category':16} {'files':>6}")
    for c in CATEGORIES:
        print(f"{c:16} {len(by_cat[c]):6}")
    print(f"{'total':16} {len(results):6}")
    for c in CATEGORIES[1:]:
        if by_cat[c]:
            print(f"\n== {c}")
            for k, d in by_cat[c]:
                print(f"  {k}\n      {d[:300]}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
