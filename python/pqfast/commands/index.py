"""`pqfast index LAKE --columns a,b`: append Bloom filters to files that have none.

The data pages are not rewritten: the filters and a new footer go after the
old end of each file, which is swapped in atomically (see pqfast.index).
LAKE may be s3:// URLs (with --storage-option KEY=VALUE)."""

from __future__ import annotations

import json
import sys

import pqfast
from .probe import _storage_options

NAME = "index"
HELP = ("Append Bloom filters (as pyarrow would write them) to the column chunks of existing "
        "Parquet files that have none; the data is not rewritten.")


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="+", metavar="LAKE", help="Parquet files, globs (quote them) or directories")
    p.add_argument("--columns", "-c", required=True, help="columns to index, comma-separated (dotted for nested)")
    p.add_argument("--fpp", type=float, default=0.01, help="target false-positive probability (default 0.01)")
    p.add_argument("--ndv", type=int, default=None,
                   help="size every filter for this many distinct values (default: each chunk's exact count)")
    p.add_argument("--threads", type=int, default=0, help="files indexed at once (0: all cores)")
    p.add_argument("--dry-run", action="store_true", help="plan and count, write nothing")
    p.add_argument("--no-page-index", action="store_true",
                   help="Bloom filters only: no ColumnIndex / OffsetIndex for chunks without them")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--details", action="store_true", help="with --json: one entry per file and chunk")
    p.add_argument("--keep-going", action="store_true", help="report files that fail and go on")
    p.add_argument("--sidecar", nargs="?", const=True, default=None, metavar="PATH",
                   help="leave the files alone: write the filters into one index file (default "
                        "LAKE/_pqfast_index), which `pqfast probe` / pqfast.prune read")
    p.add_argument("--storage-option", "-o", dest="storage_options", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="for s3:// URLs: endpoint, region, access_key_id, secret_access_key, ... (repeatable)")


def run(args) -> int:
    source = args.paths if len(args.paths) > 1 else args.paths[0]
    summary = pqfast.index(source, args.columns, storage_options=_storage_options(args.storage_options) or None, fpp=args.fpp, ndv=args.ndv, threads=args.threads or None,
                           dry_run=args.dry_run, page_index=not args.no_page_index, progress=not args.json,
                           sidecar=args.sidecar,
                           on_error="skip" if args.keep_going else "raise")
    if args.json:
        print(json.dumps(summary.as_dict(details=args.details)))
    else:
        verb = "would append" if summary.dry_run else "appended"
        print(f"{summary.files} files: {summary.files_changed} {'to change' if summary.dry_run else 'changed'}, "
              f"{summary.files_unchanged} unchanged, {summary.files_conflict} changed by others (left alone), "
              f"{summary.files_failed} failed")
        print(f"chunks: {summary.chunks_indexed} indexed ({summary.chunks_from_dictionary} from the dictionary "
              f"page alone), {summary.chunks_had_filter} already had a filter, "
              f"{summary.chunks_unsupported} unsupported; page indexes: {summary.offset_indexes} OffsetIndex, "
              f"{summary.column_indexes} ColumnIndex")
        if summary.sidecar:
            print(f"sidecar {summary.sidecar}: {summary.bytes_appended:,} bytes written in {summary.seconds:.3f} s")
        else:
            print(f"{verb} {summary.bytes_appended:,} bytes in {summary.seconds:.3f} s")
        for path, msg in summary.errors:
            print(f"error: {msg}", file=sys.stderr)
    return 1 if summary.files_failed else 0
