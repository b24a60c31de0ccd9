"""`pqfast head FILE`: the first rows of a Parquet file, read by pqfast's reader."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json

import pyarrow as pa
import pyarrow.types as pt

import pqfast
from .._table import format_table

NAME = "head"
HELP = "Print the first rows of a Parquet file (flat columns), read by pqfast."


def add_arguments(p) -> None:
    p.add_argument("file", help="a Parquet file")
    p.add_argument("--columns", default=None, help="comma-separated column names (default: all)")
    p.add_argument("-n", type=int, default=10, help="rows to print (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row")


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(v).decode()
    if isinstance(v, (dt.date, dt.datetime, dt.time)):
        return v.isoformat()
    if isinstance(v, (decimal.Decimal, dt.timedelta)):
        return str(v)
    # Nested values: lists (and a map's (key, value) pairs) as JSON arrays,
    # structs as objects.
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return str(v)


def head(path: str, n: int = 10, columns=None):
    """The first n rows as a pyarrow.Table: only the row groups that hold them are read."""
    with pqfast.ParquetFile(path) as f:
        rgs, rows = [], 0
        for i in range(f.num_row_groups):
            if rows >= n:
                break
            rgs.append(i)
            rows += f.row_group(i).num_rows
        return f.read(columns=columns, row_groups=rgs).slice(0, max(n, 0))


def _pylist(col) -> list:
    """A column's values as Python objects. String columns may hold bytes that
    are not UTF-8 (the writer said STRING, the values disagree): they are
    listed as bytes then, which the printers escape, instead of failing."""
    try:
        return col.to_pylist()
    except UnicodeDecodeError:
        if pt.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        if pt.is_large_string(col.type):
            return col.cast(pa.large_binary()).to_pylist()
        if pt.is_string_view(col.type):
            return col.cast(pa.binary_view()).to_pylist()
        return col.cast(pa.binary()).to_pylist()


def run(args) -> int:
    cols = [c for c in args.columns.split(",") if c] if args.columns else None
    t = head(args.file, args.n, cols)
    values = [_pylist(t.column(i)) for i in range(t.num_columns)]
    rows = [dict(zip(t.column_names, r)) for r in zip(*values)] if values else [{} for _ in range(t.num_rows)]
    if args.json:
        for r in rows:
            print(json.dumps({k: _jsonable(v) for k, v in r.items()}))
        return 0
    def cell(v):
        s = "null" if v is None else (v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v))
        return s if len(s) <= 40 else s[:37] + "..."
    print(format_table(t.column_names, [[cell(r[c]) for c in t.column_names] for r in rows]))
    return 0
