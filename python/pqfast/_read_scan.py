"""``read_table``'s route through the streaming scanner: a local source
without a filter (a file, a list of files, a directory, a glob) read into
one Table by ``_LocalScanner`` (pread and decoding on the scanner's own
threads), the helper the dataset's unfiltered scans use
(:func:`._stream_io.local_batches`).

:func:`scanner_read` decides before any data page is read: it returns None
(the caller keeps the column reader) when the source is not local paths,
unless ``PQFAST_READ_ROUTE=scanner`` asks for this route, or when the
scanner does not take the projection (:func:`._stream_io.native_plan`:
nested, dictionary (``read_dictionary=`` included) or extension columns, a cast after the read, files whose
columns differ from the first file's), or when a selected row group is
larger than ``LARGE_ROW_GROUP_BYTES`` compressed (slower through the
scanner, see there). Never by catching an error.

In the lake layer: it opens a :class:`._lake.Lake` over the source, as
``pqfast.dataset`` does; ``reader`` (the API) calls it.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import pyarrow as pa

from . import _pqfast
from ._lake import LOCAL, Lake
from ._paths import _has_magic, _remote_urls
from ._read import _memory_limit, _thread_count
from ._strings import checked_strings
from ._stream_io import DEFAULT_READAHEAD_BYTES, native_plan

# Ranges of one row group closer than this are read as one pread.
_LOCAL_GAP = 64 << 10

FormatError = _pqfast.FormatError

# PQFAST_READ_ROUTE: "scanner" lets the scanner take the whole-file reads it
# supports; anything else (or unset) keeps them on the column reader, the
# faster of the two today: through the scanner, lineitem SF1 read whole took
# 1.02-1.05x the column reader's time at 1 thread and 1.04-1.34x at 2 (it
# decodes into fresh buffers per row group; the column reader reuses its
# pool's). scripts/bench_read_route.py compares the two in one process.
ROUTE_ENV = "PQFAST_READ_ROUTE"


def _wants_reader() -> bool:
    return os.environ.get(ROUTE_ENV, "").strip().lower() != "scanner"


def _local_paths(source: Any) -> bool:
    """Whether `source` is what the scanner reads: an existing local file or
    directory, a glob, or a non-empty list of existing local files."""
    if isinstance(source, (str, os.PathLike)):
        p = os.fspath(source)
        if isinstance(p, bytes) or _remote_urls(p) or p.startswith("file://"):
            return False
        return os.path.isfile(p) or os.path.isdir(p) or (_has_magic(p) and not os.path.exists(p))
    if isinstance(source, (list, tuple)) and source:
        return all(isinstance(s, (str, os.PathLike)) and not isinstance(os.fspath(s), bytes)
                   and not _remote_urls(os.fspath(s)) and os.path.isfile(os.fspath(s)) for s in source)
    return False


def _row_groups_of(meta, row_groups: Sequence[int] | None) -> list | None:
    """The file's row groups to read (negative ones counted from the end, as
    the column reader takes them), None for all; IndexError past the end."""
    if row_groups is None:
        return None
    n = meta.num_row_groups
    out = []
    for r in row_groups:
        r = int(r)
        if not -n <= r < n:
            raise IndexError(f"row group index {r} out of range (0..{n - 1})")
        out.append(r % n)
    return out


# A read decoding less than this (the footers' uncompressed bytes of the
# selected row groups) runs on the calling thread: handing a few hundred KB
# to the scanner's threads and back costs more than decoding it.
SMALL_READ_BYTES = 2 << 20


# A row group of more compressed bytes than this stays with the column
# reader: the scanner reads a row group's chunks into one buffer, and
# buffers past glibc's largest mmap threshold (32 MiB) are fresh pages each
# time (page faults), where the column reader reuses its pooled buffers.
# Measured on pyarrow's TPC-H SF1 lineitem (6 row groups of ~35 MB): 1.22x
# the column reader's time at 1 and 2 threads through the scanner.
LARGE_ROW_GROUP_BYTES = 32 << 20


def units_ahead(n_threads: int | None) -> int:
    """Row groups read and decoded ahead of the consumer on the scanner's threads."""
    return max(4, 2 * (n_threads or os.cpu_count() or 1))


def _shape(lake: Lake, selection: list) -> tuple[int, int, int]:
    """(rows of the largest selected row group, uncompressed bytes of the
    selected row groups, compressed bytes of the largest). Batches are that
    many rows, so that a row group is one chunk of the table, as the column
    reader gives it."""
    most, nbytes, largest = 1, 0, 0
    for i, rgs in selection:
        meta = lake.meta(i)
        for g in (range(meta.num_row_groups) if rgs is None else rgs):
            rg = meta.row_group(g)
            most = max(most, int(rg["num_rows"]))
            nbytes += max(0, int(rg["total_byte_size"] or 0))
            largest = max(largest, int(rg["total_compressed_size"] or 0))
    return most, nbytes, largest


def scanner_read(source: Any, columns: Sequence[str] | None, row_groups: Sequence[int] | None, use_threads: bool,
                 threads: int | None, memory_limit: int | None, partitioning: str | None,
                 strings: str | None, read_dictionary: Sequence[str] | None = None) -> pa.Table | None:
    """`source` read whole by the streaming scanner, or None when the scanner
    does not take it (see the module's doc); the caller then reads it by
    the column reader."""
    if _wants_reader() or not _local_paths(source):
        return None
    if read_dictionary is not None and (isinstance(read_dictionary, (str, bytes)) or not isinstance(
            read_dictionary, (list, tuple)) or not all(isinstance(c, str) for c in read_dictionary)):
        return None  # (the column reader says what is wrong with it)
    strings = checked_strings(strings)
    n_threads = _thread_count(threads, use_threads)
    limit = _memory_limit(memory_limit)
    # A directory's hive levels are columns (partitioning=None: none); a
    # file, a list or a glob has none, as the column reader reads them.
    is_dir = isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source))
    # Columns read as dictionaries make native_plan decline (the column reader builds them).
    lake = Lake.open(source, partitioning if is_dir else None, None, None, read_dictionary=read_dictionary or ())
    if lake.kind != LOCAL:
        return None
    cols = None if columns is None else list(columns)
    # Many files: their footers read at once in C++ (and conformity decided
    # from them), not file by file in Python; the sizes spare the scanner a
    # stat of each file.
    sizes = lake.read_local_footers(n_threads or (os.cpu_count() or 1)) if len(lake.names) > 1 else None
    selection = [(i, _row_groups_of(lake.meta(i), row_groups)) for i in range(len(lake.names))]
    selection = [(i, rgs) for i, rgs in selection if rgs is None or rgs]
    plan = native_plan(lake, selection, cols, strings)
    if plan is None:
        return None
    rows, nbytes, largest = _shape(lake, selection)
    if largest > LARGE_ROW_GROUP_BYTES:
        return None
    if nbytes < SMALL_READ_BYTES:
        n_threads = 1
    return _read_whole(lake, selection, plan, rows, n_threads or (os.cpu_count() or 1), limit, sizes)


def _read_whole(lake: Lake, selection: list, plan, batch_size: int, n_threads: int, limit: int,
                sizes: list | None) -> pa.Table:
    """The selected row groups through one ``_LocalScanner``, taken whole
    (``read_all``: no Python per batch) into a Table of a chunk per row group.

    One thread: the calling thread reads and decodes (no threads of the
    scanner's own, one unit at a time). More: ``n_threads - 1`` threads of
    the scanner's own and the calling thread, which reads and decodes beside
    them while it waits (LocalScan::next_batch), enough units ahead to keep
    them all busy."""
    files = [(lake.keys[i], int(sizes[i]) if sizes else 0, None if rgs is None else [int(g) for g in rgs])
             for i, rgs in selection]
    own = -1 if n_threads <= 1 else n_threads - 1
    ahead = 1 if n_threads <= 1 else units_ahead(n_threads)
    lim = int(limit or 0)
    sc = _pqfast._LocalScanner(files, plan.specs, None, batch_size=batch_size, threads=own,
                               coalesce_gap=_LOCAL_GAP, footers=[lake.meta(i) for i, _ in selection],
                               readahead_bytes=lim // 2 if lim else DEFAULT_READAHEAD_BYTES, memory_limit=lim,
                               max_units_ahead=ahead)
    try:
        keys = plan.keys
        schema = plan.file_schema if keys else plan.out
        stream, batch_files = sc.read_all(schema.__arrow_c_schema__() if len(schema) else None)
    finally:
        sc.cancel()
    reader = pa.RecordBatchReader._import_from_c_capsule(stream)
    if len(plan.out) and not keys:
        return reader.read_all()
    batches = list(reader)
    if not len(plan.out):
        # No column: the row count only (a table of no columns keeps it so).
        rows = sum(b.num_rows for b in batches)
        return pa.table({"_": pa.nulls(rows)}).drop_columns(["_"])
    return pa.Table.from_batches(_with_keys(lake, selection, plan, batches, batch_files), schema=plan.out)


def _with_keys(lake: Lake, selection: list, plan, batches: list, batch_files: list) -> list:
    """The batches with their files' partition keys appended, in the output schema."""
    out = []
    for k, b in zip(batch_files, batches):
        i = selection[k][0]
        cols = dict(zip(plan.file_schema.names, b.columns))
        for name in plan.keys:
            cols[name] = lake.parts.column_chunk(name, i, b.num_rows)
        out.append(pa.RecordBatch.from_arrays([cols[f.name] for f in plan.out], schema=plan.out))
    return out
