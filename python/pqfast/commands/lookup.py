"""`pqfast lookup LAKE COLUMN VALUE...`: the rows of a lake whose COLUMN is one of
the VALUEs, read by pqfast.read_table with the filter pushed down, and what
the scan read to find them (files, row groups, pages, bytes).

LAKE is a Parquet file, a directory, a glob (quote it) or s3:// URLs (with
--storage-option KEY=VALUE). VALUEs are typed by the column's type as
`pqfast probe` types them (integers, numbers, dates, timestamps, decimals,
strings; 0x... for fixed-length binary)."""

from __future__ import annotations

import json
import os
import sys

import pqfast
from .._paths import expand_paths
from .._table import format_table
from .head import _jsonable
from .probe import _column, _storage_options, _typed
from ..scan import _local_partitions

NAME = "lookup"
HELP = ("Print the rows whose COLUMN is one of the VALUEs (filters pushed down: min/max, Bloom filters, "
        "dictionaries, page indexes) and what was read.")

# The stats keys, in the order they are printed; others the engine adds follow.
_STATS_ORDER = ["files", "files_read", "row_groups", "row_groups_read", "pages", "pages_read", "bytes_read",
                "rows", "seconds"]


def add_arguments(p) -> None:
    p.add_argument("lake", metavar="LAKE", help="a Parquet file, a directory, a glob (quote it) or s3:// URLs")
    p.add_argument("column", metavar="COLUMN", help="the column to match (dotted for nested columns)")
    p.add_argument("values", nargs="*", metavar="VALUE", help="the values to look for")
    p.add_argument("--columns", default=None, help="comma-separated columns to return (default: all)")
    p.add_argument("--json", action="store_true",
                   help='one JSON object: {"rows": [{column: value}...], "read": {files, row_groups, pages, ...}}')
    p.add_argument("--threads", type=int, default=0, help="threads of the scan (0: all cores)")
    p.add_argument("--storage-option", "-o", dest="storage_options", action="append", default=[],
                   metavar="KEY=VALUE", help="for s3:// URLs: endpoint, region, credentials, ... (repeatable)")
    p.set_defaults(_accepts_extra=True)


def _cell(v) -> str:
    s = "null" if v is None else (v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v))
    return s if len(s) <= 40 else s[:37] + "..."


def _size(n) -> str:
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


_PRUNED_BY = {"statistics": "min/max", "bloom": "Bloom filters", "dictionary": "dictionaries",
              "page_index": "page indexes"}


def format_stats(stats: dict) -> str:
    """One line of what was read, from whichever stats keys the engine gave."""
    if not stats:
        return "read: (no stats)"
    s = dict(stats)
    parts = []
    for what, total_key, read_key in (("files", "files", "files_read"),
                                      ("row groups", "row_groups", "row_groups_read"),
                                      ("pages", "pages", "pages_read")):
        total, read = s.pop(total_key, None), s.pop(read_key, None)
        if read is not None and total is not None:
            part = f"{read:,}/{total:,} {what}"
        elif read is not None:
            part = f"{read:,} {what}"
        elif total is not None:
            part = f"{total:,} {what} (in the lake)"
        else:
            continue
        if what == "row groups":
            pruned = [f"{s.pop(k):,} by {label}" for key, label in _PRUNED_BY.items()
                      if (k := f"row_groups_pruned_by_{key}") in s]
            pruned += [f"{s.pop(k):,} by {k[len('row_groups_pruned_by_'):]}" for k in list(s)
                       if k.startswith("row_groups_pruned_by_")]
            notes = ([f"{s.pop('row_groups_matched'):,} with matches"] if "row_groups_matched" in s else []) + (
                [f"pruned {', '.join(pruned)}"] if pruned else [])
            if notes:
                part += f" ({'; '.join(notes)})"
        if what == "pages" and "pages_skipped" in s:
            part += f" ({s.pop('pages_skipped'):,} skipped)"
        parts.append(part)
    if "bytes_read" in s:
        parts.append(f"{_size(s.pop('bytes_read'))} read" + (f" in {s.pop('reads'):,} reads" if "reads" in s else ""))
    if "rows" in s:
        n = s.pop("rows")
        parts.append(f"{n:,} row{'' if n == 1 else 's'}")
    if "seconds" in s:
        parts.append(f"{s.pop('seconds') * 1e3:.1f} ms")
    for k, v in s.items():
        k = k.replace("_", " ")
        parts.append(f"{k} {v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{k} {v}")
    return "read: " + ", ".join(parts)


def _jsonable_stats(stats: dict) -> dict:
    out = {}
    for k in [k for k in _STATS_ORDER if k in stats] + [k for k in stats if k not in _STATS_ORDER]:
        v = stats[k]
        out[k] = v if isinstance(v, (bool, int, float, str, type(None), list, dict)) else _jsonable(v)
    return out


def _check_columns(column, cols, desc_file, keys=()):
    """A clear error for a column the lake does not have (before any scan);
    `keys`: the directory's hive partition keys, columns too."""
    with pqfast.ParquetFile(desc_file) as f:
        leaves = [c["dotted_path"] for c in f._columns]
    tops = {p.split(".")[0] for p in leaves}
    known = set(leaves) | tops | set(keys)
    for name in [column] + list(cols or []):
        if name not in known:
            listed = ", ".join(leaves[:20]) + (", ..." if len(leaves) > 20 else "")
            raise KeyError(f"no column {name!r} in {desc_file} (columns: {listed})")


def _partition_keys(lake: str) -> tuple[dict, list]:
    """({key: descriptor typing its CLI values}, the lake's files) of a
    local directory's hive levels (year=2024/...): int32 keys take
    integers, string keys text. ({}, []) for other lakes."""
    if lake.startswith(("s3://", "s3a://")) or not os.path.isdir(lake):
        return {}, []

    files = expand_paths(lake)
    parts = _local_partitions(lake, files, "hive") if files else None
    if parts is None:
        return {}, files
    out = {}
    for name, typ in parts.types.items():
        numeric = str(typ) == "int32"
        out[name] = {"physical_type": "INT32" if numeric else "BYTE_ARRAY", "converted_type": None,
                     "logical_type": {"kind": 0 if numeric else 1, "name": "" if numeric else "STRING"}}
    return out, files


def run(args) -> int:
    raw = list(args.values) + list(getattr(args, "_extra", []) or [])
    raw = [v for v in raw if v != "--"]
    if not raw:
        print("error: no VALUE given", file=sys.stderr)
        return 2
    cols = [c.strip() for c in args.columns.split(",") if c.strip()] if args.columns else None
    try:
        storage_options = _storage_options(args.storage_options)
        keys, lake_files = _partition_keys(args.lake)
        if args.column in keys:
            desc, files, _remote = keys[args.column], lake_files, {}
        else:
            desc, files, _remote = _column(args.column, [args.lake], storage_options)
        if not _remote:
            _check_columns(args.column, cols, files[0], keys)
        elif cols:
            pass  # s3://: the engine reports an unknown projected column
    except (KeyError, ValueError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"error: {msg}", file=sys.stderr)
        return 1
    values = _typed(raw, args.column, desc)  # a FormatError (exit 1) for a value not of the column's type
    kw = {"columns": cols, "filters": [(args.column, "in", values)], "stats": True}
    if args.threads:
        kw["threads"] = args.threads
    if storage_options:
        kw["storage_options"] = storage_options
    try:
        result = pqfast.read_table(args.lake, **kw)
    except (KeyError, ValueError, TypeError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"error: {msg}", file=sys.stderr)
        return 1
    table, stats = result if isinstance(result, tuple) else (result, {})
    stats = dict(stats or {})
    rows = table.to_pylist()
    if args.json:
        print(json.dumps({"rows": [{k: _jsonable(v) for k, v in r.items()} for r in rows],
                          "read": _jsonable_stats(stats)}))
        return 0
    names = table.column_names
    if rows:
        print(format_table(names, [[_cell(r[c]) for c in names] for r in rows]))
        print()
    print(f"{len(rows):,} row{'' if len(rows) == 1 else 's'} with {args.column} in "
          f"{{{', '.join(_cell(v) for v in values[:8])}{', ...' if len(values) > 8 else ''}}}")
    print(format_stats(stats))
    return 0
