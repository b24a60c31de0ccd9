"""``pqfast.prune``: which files and row groups of a lake can hold values of
a column (min/max statistics, Bloom filters, a sidecar index), and the
footer cache it keeps. Below the readers: the dataset scan prunes a lookup's
row groups with it before the scanner asks any byte (``_fragments``), and
``pqfast.parquet`` re-exports it beside ``read_pruned``.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from . import _pqfast
from ._assemble import verdict_table
from ._encode import _as_list_or_array, encode_values
from ._errors import INVALID_ARGUMENT, IO_ERROR, format_error
from ._file import _column_descriptor, _with_duration_unit
from ._paths import expand_paths, _has_magic, _remote_urls
from ._progress import Progress
from ._sidecar import apply, find
from ._sidecar_s3 import apply_remote
from .fs_driver import prune_filesystem
from .remote import prune_remote
from .scan import clear_tail_cache

FormatError = _pqfast.FormatError


# ---- pruning -------------------------------------------------------------------------------


def clear_footer_cache() -> None:
    """Forget the footers kept by ``prune(..., cache=True)`` (and the column types memoised for typing values),
    and the tails of objects kept by ``read_table`` on ``s3://`` URLs."""
    _pqfast._footer_cache_clear()

    clear_tail_cache()


def prune(paths_or_glob: Any, column: str, values: Any, filesystem: Any = None, *,
          threads: int | None = None, by_value: bool = False, use_statistics: bool = True,
          use_bloom: bool = True, on_error: str = "raise", progress: Any = None, cache: bool = False,
          storage_options: dict | None = None, concurrency: int = 256, sidecar: Any = None):
    table = _prune(paths_or_glob, column, values, filesystem, threads=threads, by_value=by_value,
                   use_statistics=use_statistics, use_bloom=use_bloom, on_error=on_error, progress=progress,
                   cache=cache, storage_options=storage_options, concurrency=concurrency)
    # A sidecar index (pqfast.index(..., sidecar=...)) beside the files: its
    # filters judge the row groups the files' own metadata cannot.
    if sidecar is False or not use_bloom or filesystem is not None:
        return table
    return judge(table, paths_or_glob, column, values, sidecar, storage_options, by_value, use_statistics)


def _prune(paths_or_glob: Any, column: str, values: Any, filesystem: Any = None, *,
           threads: int | None = None, by_value: bool = False, use_statistics: bool = True,
           use_bloom: bool = True, on_error: str = "raise", progress: Any = None, cache: bool = False,
           storage_options: dict | None = None, concurrency: int = 256):
    """Which files and row groups can hold these values of ``column``?

    Returns a pyarrow Table with one row per (file, row group): ``path``,
    ``row_group``, ``verdict`` ("absent": no value can be there, by min/max
    statistics or the Bloom filter; "maybe"; "no_filter": the chunk has no
    Bloom filter and min/max do not rule every value out) and ``reason``.
    With ``by_value=True``, one row per (file, row group, value) with a
    ``value`` column. Values are typed by the column's physical and logical
    type (ints, floats, str/bytes, date, datetime, Decimal, UUID).
    ``on_error="skip"`` leaves out files that fail (bad footer, missing
    column) instead of raising FormatError. ``cache=True`` keeps the parsed
    footers of local files for later calls (validated by size and mtime on
    each use; :func:`clear_footer_cache` empties it): probing the same lake
    key after key then reads only Bloom filters.

    ``s3://bucket/...`` URLs (a pattern, a prefix ending in "/", or a list)
    are pruned by the remote driver (:mod:`pqfast.remote`, needs obstore):
    one request per file, ``concurrency`` files in flight;
    ``storage_options`` takes the keys polars and pandas users know
    (endpoint, region, access_key_id / key, secret_access_key / secret,
    token, anon), else credentials come from the environment.

    ``filesystem=`` (:mod:`pqfast.fs_driver`): sizes from the listing of a
    pattern or directory, then one ranged read of each file's tail (footer
    and the column's filters, sized from the footers seen so far); per file:

    - an fsspec filesystem with async methods (s3fs, gcsfs, adlfs): 1 GET,
      no HEAD, ``concurrency`` files in flight on its event loop. s3fs
      keeps botocore's pool of 10 connections unless made with
      ``config_kwargs={"max_pool_connections": 256}``;
    - a pyarrow ``FileSystem``: 1 HEAD + 1 GET on S3 (pyarrow's Python API
      opens by path, and its S3 filesystem sends a HEAD on each open),
      ``threads`` files at a time (default 64);
    - any other fsspec filesystem: ``cat_file`` ranges on ``threads`` threads.

    Explicit paths need no listing with pyarrow; with fsspec, paths sharing
    a parent get their sizes from one listing of it, a lone path from an
    ``info``. A file's error (missing, denied, truncated) goes through
    ``on_error`` as a local file's does.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if filesystem is None and _remote_urls(paths_or_glob):
        return prune_remote(paths_or_glob, column, values, storage_options=storage_options, by_value=by_value,
                            use_statistics=use_statistics, use_bloom=use_bloom, on_error=on_error,
                            progress=progress, concurrency=concurrency)
    if filesystem is not None:
        # pyarrow and fsspec filesystems: drivers over the sans-IO core (sizes
        # from the listing, one ranged read of each tail, many files in flight).

        return prune_filesystem(paths_or_glob, column, values, filesystem, threads=threads,
                                concurrency=concurrency, by_value=by_value, use_statistics=use_statistics,
                                use_bloom=use_bloom, on_error=on_error, progress=progress)
    # A local pattern is expanded in C++ and kept there (as a _PathList, which
    # _prune_paths takes back as is).
    pattern = (isinstance(paths_or_glob, (str, os.PathLike)) and _has_magic(os.fspath(paths_or_glob))
               and "**" not in os.fspath(paths_or_glob))
    paths = None
    if not by_value and type(values) is list and 0 < len(values) <= 64 and (progress is None or progress is False):
        # A user's lookup (a few plain values): expansion, typing, pruning and
        # the table in one native call, unless the values or the first file
        # need the general path below (None).
        target = os.fsencode(paths_or_glob) if pattern else expand_paths(paths_or_glob)
        res = _pqfast._prune_local(target, column, values, int(threads or 0), use_statistics, use_bloom, cache)
        if res is not None and "batch" in res:  # (no batch: string columns past 2 GiB, see verdict_batch.h)
            return verdict_table([(res, None)], None, len(values), False, values, on_error)
        paths = None if pattern else target
    if paths is None:
        paths = _pqfast._glob_paths(os.fsencode(paths_or_glob)) if pattern else expand_paths(paths_or_glob)
    if not paths:
        empty = {"path": pa.array([], pa.string()), "row_group": pa.array([], pa.int32()),
                 "verdict": pa.array([], pa.string()), "reason": pa.array([], pa.string())}
        if by_value:
            empty["value"] = pa.array([], pa.string())
        return pa.table(empty)
    # The values are typed by the column as the first readable file declares it.
    desc = None
    first_error = None
    for p in paths:
        try:
            desc = _column_descriptor(p, column, filesystem, cache)
            break
        except (FormatError, KeyError, OSError) as e:
            first_error = e
            if on_error == "raise":
                if isinstance(e, FormatError):
                    raise
                # A KeyError's message is its args[0] (str() would quote it).
                raise format_error(e.args[0] if isinstance(e, KeyError) and e.args else str(e),
                                   INVALID_ARGUMENT if isinstance(e, KeyError) else IO_ERROR) from None
    if desc is None:
        raise FormatError(f"no readable file has column {column!r}: {first_error}")
    raw_values = _as_list_or_array(values)
    desc = _with_duration_unit(desc, paths, column, filesystem, raw_values)
    pt, tl, data, offsets = encode_values(desc, raw_values)
    nv = len(offsets) - 1 if offsets is not None else (len(data) // (tl or {"INT32": 4, "INT64": 8, "FLOAT": 4, "DOUBLE": 8}[pt]))
    cb = None
    if progress is not None and progress is not False:
        bar = progress if isinstance(progress, Progress) else Progress(total=len(paths), label="probe")
        bar.total = len(paths)
        cb = bar.advance
    res = _pqfast._prune_paths(paths, column, pt, tl, data, offsets, int(threads or 0), by_value,
                               use_statistics, use_bloom, cb, cache)
    return verdict_table([(res, None)], paths, nv, by_value, raw_values, on_error)


prune.__doc__ = (_prune.__doc__ or "") + """
    ``sidecar``: a sidecar index written by ``pqfast.index(..., sidecar=...)``
    (a path or an ``s3://`` URL; by default ``_pqfast_index`` is looked for
    beside the files, locally up to three parent directories, on S3 in the
    pattern's or prefix's directory; False: never), read only when some row
    group has no filter of its own. Those files are pruned again as the
    indexed files the sidecar describes: "no_filter" row groups become
    "absent" or "maybe" (the reason says "bloom filter (sidecar)"); entries of
    files changed since (size, mtime or footer; on S3 size or ETag) are
    ignored with a warning.
    """


def kept_row_groups(pruned) -> dict[str, list[int]]:
    """{path: [row group]} of a :func:`prune` table's rows that are not "absent", in its order."""
    keep: dict[str, list[int]] = {}
    for path, rg, verdict in zip(pruned["path"].to_pylist(), pruned["row_group"].to_pylist(),
                                 pruned["verdict"].to_pylist()):
        if verdict != "absent":
            keep.setdefault(path, []).append(rg)
    return keep


def judge(table, source: Any, column: str, values: Any, sidecar: Any = None, storage_options: dict | None = None,
          by_value: bool = False, use_statistics: bool = True):
    """prune's ``table`` of ``source`` (local paths or s3:// URLs) judged
    again with a sidecar where some row group has no filter of its own:
    ``sidecar`` names it (a path or URL), else it is looked for beside the
    files; False: never."""
    if sidecar is False or table.num_rows == 0 or "no_filter" not in table.column("verdict").unique().to_pylist():
        return table
    if _remote_urls(source):
        return apply_remote(table, column, values, source, sidecar, storage_options, by_value, use_statistics)
    where = os.fspath(sidecar) if sidecar not in (None, True) else find(table.column("path")[:1].to_pylist())
    if where is None:
        return table
    return apply(table, column, values, where, by_value, use_statistics)
