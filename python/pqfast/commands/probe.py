"""`pqfast probe GLOB --column C VALUE...`: which files and row groups can hold these values?

GLOB may be local (files, patterns, directories) or s3:// URLs (a pattern,
a prefix ending in "/", or objects), with --storage-option KEY=VALUE for the
endpoint, region and credentials (else the environment's AWS_*)."""

from __future__ import annotations

import datetime as dt
import decimal
import glob
import json
import os
import sys

import pqfast
from .. import remote
from .._paths import expand_paths
from .._progress import Progress
from .._table import format_table
from ..parquet import judge
from ..remote import prune_remote

NAME = "probe"
HELP = ("Prune files and row groups of a lake with min/max statistics and Bloom filters: "
        "absent / maybe / no_filter per (file, row group).")


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="+", metavar="GLOB [GLOB...] VALUE",
                   help="Parquet files, globs (quote them) or directories, then the values to look for")
    p.add_argument("--column", "-c", required=True, help="column path (dotted for nested columns)")
    p.add_argument("--value", "-v", dest="values", action="append", default=[],
                   help="a value to look for (repeatable; positional VALUEs after -- also work)")
    p.add_argument("--json", action="store_true", help="one JSON object per (file, row group)")
    p.add_argument("--by-value", action="store_true", help="one row per (file, row group, value)")
    p.add_argument("--threads", type=int, default=0, help="threads over files (0: all cores)")
    p.add_argument("--no-stats", action="store_true", help="ignore min/max statistics")
    p.add_argument("--summary", action="store_true", help="print only counts per verdict")
    p.add_argument("--storage-option", "-o", dest="storage_options", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="for s3:// URLs: endpoint, region, access_key_id, secret_access_key, token, anon, "
                        "... (repeatable; credentials otherwise from the environment, AWS_*)")
    p.add_argument("--concurrency", type=int, default=256, help="s3:// files in flight (default 256)")
    p.set_defaults(_accepts_extra=True)


def _split(args):
    """GLOB... VALUE...: the values are what follows the first argument that is not a path."""
    paths, values = [], list(args.values)
    rest = list(args.paths) + list(getattr(args, "_extra", []) or [])
    if not rest:
        return paths, values
    paths.append(rest.pop(0))
    while rest and (rest[0].startswith(("s3://", "s3a://")) or any(ch in rest[0] for ch in "*?[")
                    or os.path.exists(rest[0]) or glob.glob(rest[0])):
        paths.append(rest.pop(0))
    values.extend(rest)
    return paths, values


def _storage_options(pairs) -> dict:
    out = {}
    for kv in pairs:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise ValueError(f"--storage-option wants KEY=VALUE, got {kv!r}")
        out[k.strip()] = v
    return out


def _column(column, paths, storage_options):
    """The column's descriptor (from the first file's footer) and what
    pqfast.prune then takes: the files, and for s3:// the listing's sizes,
    the descriptor and the tail size (no second listing or footer read)."""
    if any(p.startswith(("s3://", "s3a://")) for p in paths):
        if not all(p.startswith(("s3://", "s3a://")) for p in paths):
            raise ValueError("local paths and s3:// URLs cannot be mixed in one probe")
        _store, items = remote.resolve(paths, storage_options)
        if not items:
            raise FileNotFoundError(f"no objects match {' '.join(paths)}")
        desc, tail = remote.column_descriptor(_store, items, column, "raise")
        files = [u for u, _, _ in items]
        sizes = {u: s for u, _, s in items if s >= 0}
        return desc, files, {"sizes": sizes, "descriptor": desc, "tail_bytes": tail}
    files = expand_paths(paths)
    if not files:
        raise FileNotFoundError(f"no files match {' '.join(paths)}")
    with pqfast.ParquetFile(files[0]) as f:
        desc = f._columns[f.column_index(column)]
    return desc, files, {}


def _typed(values, column, desc):
    """CLI values are strings: convert them to the column's type."""
    pt, kind = desc["physical_type"], desc["logical_type"]["kind"]
    conv = desc["converted_type"]
    out = []
    for v in values:
        try:
            if pt == "BOOLEAN":
                b = {"true": True, "false": False, "1": True, "0": False}.get(v.strip().lower())
                if b is None:
                    raise ValueError(v)
                out.append(b)
            elif kind == 5 or conv == "DECIMAL":
                out.append(decimal.Decimal(v))
            elif kind == 7 or (conv or "").startswith("TIME_"):
                out.append(dt.time.fromisoformat(v))
            elif pt == "INT32" and (kind == 6 or conv == "DATE"):
                out.append(dt.date.fromisoformat(v))
            elif pt == "INT64" and (kind == 8 or (conv or "").startswith("TIMESTAMP")):
                out.append(dt.datetime.fromisoformat(v))
            elif pt in ("INT32", "INT64"):
                out.append(int(v, 0))
            elif pt in ("FLOAT", "DOUBLE"):
                out.append(float(v))
            elif pt == "FIXED_LEN_BYTE_ARRAY" and kind == 14:
                out.append(v)
            elif pt in ("FIXED_LEN_BYTE_ARRAY", "INT96") and v.startswith("0x"):
                out.append(bytes.fromhex(v[2:]))
            elif pt == "INT96":
                # Spark's default timestamps: an ISO date-time, as read_table shows them.
                out.append(dt.datetime.fromisoformat(v))
            else:
                out.append(v)
        except (ValueError, decimal.InvalidOperation):
            expected = ("true or false" if pt == "BOOLEAN" else "an ISO time (12:30:00)" if kind == 7 else
                        "an ISO date (2024-01-31)" if kind == 6 or conv == "DATE" else
                        "an ISO date-time (2024-01-31T12:30:00)" if kind == 8 or pt == "INT96" else
                        "a decimal number" if kind == 5 or conv == "DECIMAL" else
                        "integers" if pt in ("INT32", "INT64") else "numbers")
            raise pqfast.FormatError(
                f"invalid argument: {v!r} is not a value of column {column!r} "
                f"({pt}{' ' + desc['logical_type']['name'] if desc['logical_type']['name'] else ''}); "
                f"{expected} expected") from None
    return out


def run(args) -> int:
    paths, raw = _split(args)
    if not raw:
        print("error: no VALUE given", file=sys.stderr)
        return 2
    storage_options = _storage_options(args.storage_options)
    desc, files, remote_kw = _column(args.column, paths, storage_options)
    values = _typed(raw, args.column, desc)
    # A bar on a terminal only (pipes and logs get the answer alone).
    progress = Progress(total=len(files), label="probe",
                        enabled=not args.json and len(files) > 20 and sys.stderr.isatty())
    bar = progress if progress.enabled else None
    if remote_kw:
        t = prune_remote(files, args.column, values, storage_options=storage_options, by_value=args.by_value,
                         use_statistics=not args.no_stats, progress=bar, concurrency=args.concurrency,
                         **remote_kw)
        t = judge(t, files, args.column, values, None, storage_options, args.by_value, not args.no_stats)
    else:
        t = pqfast.prune(files, args.column, values, threads=args.threads, by_value=args.by_value,
                         use_statistics=not args.no_stats, progress=bar)
    progress.close()
    rows = t.to_pylist()
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    if not args.summary:
        headers = ["path", "row_group", "verdict", "reason"] + (["value"] if args.by_value else [])
        print(format_table(headers, [[r[h] for h in headers] for r in rows]))
        print()
    total = len(rows)
    print(f"{len(files)} files, {total} {'(row group, value) pairs' if args.by_value else 'row groups'}: "
          + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("absent", "maybe", "no_filter")))
    return 0
