"""``read_table``'s route through the streaming scanner for local sources
of several files without a filter (a list of files, a directory, a glob):
without ``row_groups=``, a lake whose first file is small is read in file
tasks (:func:`._scan_whole.read_files`: each file opened once, read whole
with its footer and decoded by the thread that read it), run after run of
files alike, each planned from its first file's footer alone; otherwise
the files' footers are read at once, the files planned as one lake (as
``pqfast.dataset`` opens it) and read whole by
:func:`._scan_whole.read_whole` into one Table (a single file goes the
same way through ``ParquetFile.read``).

:func:`scanner_read` decides before any data page is read: it returns None
(the caller keeps the column reader) when the source is not local paths,
or ``PQFAST_READ_ROUTE=reader`` asks for the column reader, or when the
scanner does not take the projection (:func:`._stream_io.native_plan`).
Files whose columns differ from the first file's are runs of their own (a
scan each, conformed to the first's schema); dictionary
(``read_dictionary=`` included), extension and cast columns are finished
batch by batch. Never by catching an error.

In the lake layer: it opens a :class:`._lake.Lake` over the source, as
``pqfast.dataset`` does; ``reader`` (the API) calls it.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import pyarrow as pa

from . import _pqfast
from ._lake import LOCAL, Lake
from ._nested import with_map_names
from ._paths import _has_magic, _remote_urls
from ._read import _concat, _memory_limit, _thread_count
from ._strings import checked_strings
from ._scan_whole import (
    DEFAULT_READAHEAD_BYTES, ROUTE_ENV, SMALL_READ_BYTES, names_list, read_files, read_whole, selected_row_groups,
    shape, wants_reader,
)
from ._stream_io import native_plan, small_files_plan

FormatError = _pqfast.FormatError

# Files of a lake up to this size are read whole with their footers (one
# open and one read per file instead of two of each: on a lake of 10,000
# files of 57 KB, per-file syscalls were a fifth of reading Q12's five
# columns), their bytes kept for the scan, at most _kept_bytes() in all
# (then files are read as before: the footer's tail, then the ranges).
WHOLE_FILE_BYTES = 1 << 20
KEPT_WHOLE_BYTES = DEFAULT_READAHEAD_BYTES

__all__ = ["ROUTE_ENV", "SMALL_READ_BYTES", "scanner_read"]


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


def scanner_read(source: Any, columns: Sequence[str] | None, row_groups: Sequence[int] | None, use_threads: bool,
                 threads: int | None, memory_limit: int | None, partitioning: str | None,
                 strings: str | None, read_dictionary: Sequence[str] | None = None) -> pa.Table | None:
    """`source` read whole by the streaming scanner, or None when the scanner
    does not take it (see the module's doc); the caller then reads it by
    the column reader."""
    if wants_reader() or not _local_paths(source):
        return None
    if isinstance(source, (str, os.PathLike)) and os.path.isfile(os.fspath(source)):
        return None  # one file: ParquetFile.read (_scan_whole.read_file decides its route)
    if not names_list(read_dictionary):
        return None  # (the column reader says what is wrong with it)
    strings = checked_strings(strings)
    n_threads = _thread_count(threads, use_threads)
    limit = _memory_limit(memory_limit)
    # A directory's hive levels are columns (partitioning=None: none); a
    # file, a list or a glob has none, as the column reader reads them.
    is_dir = isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source))
    lake = Lake.open(source, partitioning if is_dir else None, None, None, read_dictionary=read_dictionary or ())
    if lake.kind != LOCAL:
        return None
    cols = None if columns is None else list(columns)
    n_threads = n_threads or (os.cpu_count() or 1)
    if len(lake.names) > 1 and row_groups is None:
        got = _read_files(lake, cols, strings, n_threads, limit)
        if got is not None:
            return got
    return _read_by_footers(lake, cols, row_groups, strings, n_threads, limit)


def _read_by_footers(lake: Lake, cols, row_groups, strings, n_threads: int, limit: int) -> pa.Table | None:
    """The lake's selected row groups planned from every file's footer and
    read whole (:func:`_read_lake`), or None when the scanner does not take
    the projection.

    The footers are read at once in C++ (and conformity decided from them),
    not file by file in Python; the sizes spare the scanner a stat of each
    file. Small files are read whole there, in one read, and the scan takes
    their ranges from those bytes (see WHOLE_FILE_BYTES)."""
    sizes = lake.read_local_footers(n_threads, WHOLE_FILE_BYTES, _kept_bytes(limit)) if len(lake.names) > 1 else None
    selection = [(i, selected_row_groups(lake.meta(i), row_groups)) for i in range(len(lake.names))]
    selection = [(i, rgs) for i, rgs in selection if rgs is None or rgs]
    plan = native_plan(lake, selection, cols, strings)
    if plan is None:
        return None
    rows, nbytes = shape([lake.meta(i) for i, _ in selection], [rgs for _, rgs in selection])
    if nbytes < SMALL_READ_BYTES:
        n_threads = 1
    return _read_lake(lake, selection, plan, rows, n_threads, limit, sizes)


def _read_files(lake: Lake, cols, strings, n_threads: int, limit: int) -> pa.Table | None:
    """Every row group of a lake of small files (its first file at most
    ``_stream_io.SMALL_FILE_BYTES``) read in file tasks (:func:`read_files`),
    run after run: each run planned from its first file's footer alone (no
    footer read ahead, no Python object per file) and ending before the
    first file whose columns differ from it, where the next run begins, in
    file tasks again (so a lake whose tail evolved keeps them). A run whose
    first file is the lake's last or is not small, and the rest after it,
    are read by :func:`_read_by_footers`. None when the lake's first file is
    not small or the scanner does not take the projection (decided from the
    first file, as native_plan decides)."""
    parts: list = []
    part = lake
    while True:
        selection = [(i, None) for i in range(len(part.names))]
        plan = small_files_plan(part, selection, cols, strings)
        if plan is None:
            if not parts:
                return None
            rest = _read_by_footers(part, cols, None, strings, n_threads, limit)
            return None if rest is None else _concat(parts + [rest])
        requested = None if plan.convert is not None else (plan.file_schema if plan.keys else plan.out)
        stream, batch_files, stopped = read_files(list(part.keys), part.meta(0), plan.specs, requested, n_threads,
                                                  limit, WHOLE_FILE_BYTES, sorted(plan.runs[0].missing))
        parts.append(_table_of(part, selection, plan, stream, batch_files))
        if stopped is None:
            return parts[0] if len(parts) == 1 else _concat(parts)
        part = part.subset(range(stopped, len(part.names)))


def _kept_bytes(limit: int) -> int:
    """The most bytes of whole small files kept between reading the footers
    and the scan: what the scan may hold ahead anyway (its readahead), a
    quarter of a memory_limit when one is given (the scan charges them to
    it as they are fed; kept before it starts, they are not yet)."""
    return int(limit) // 4 if limit else KEPT_WHOLE_BYTES


def _read_lake(lake: Lake, selection: list, plan, batch_size: int, n_threads: int, limit: int,
               sizes: list | None) -> pa.Table:
    """The selected row groups of a lake read whole (:func:`read_whole`)
    into a Table of a chunk per row group, the partition keys appended:
    each run of files read alike (``NativePlan.runs``: files unlike the
    first start a new one) by a scan of its own, its batches conformed to
    the lake's schema."""
    if len(plan.runs) == 1:
        return _read_run(lake, plan.runs[0].selection, plan, batch_size, n_threads, limit, sizes)
    return _concat([_read_run(lake, run.selection, plan.for_run(run), batch_size, n_threads, limit, sizes)
                    for run in plan.runs])


def _read_run(lake: Lake, selection: list, plan, batch_size: int, n_threads: int, limit: int,
              sizes: list | None) -> pa.Table:
    files = [(lake.keys[i], int(sizes[i]) if sizes else 0, None if rgs is None else [int(g) for g in rgs])
             for i, rgs in selection]
    keys = plan.keys
    # (a run whose batches are converted comes in the scan's own types)
    requested = None if plan.convert is not None else (plan.file_schema if keys else plan.out)
    stream, batch_files = read_whole(files, [lake.meta(i) for i, _ in selection], plan.specs,
                                     requested, batch_size, n_threads, limit)
    return _table_of(lake, selection, plan, stream, batch_files)


def _table_of(lake: Lake, selection: list, plan, stream, batch_files: list) -> pa.Table:
    """A whole scan's batches (`stream`, `batch_files`: each batch's index
    in `selection`) as a Table in the plan's output schema: converted,
    partition keys appended, map names restored; with no column, the rows."""
    reader = pa.RecordBatchReader._import_from_c_capsule(stream)
    if len(plan.out) and not plan.keys and plan.convert is None:
        return with_map_names(reader.read_all(), plan.out)
    batches = list(reader)
    if not len(plan.out):
        # No column: the row count only (a table of no columns keeps it so).
        rows = sum(b.num_rows for b in batches)
        return pa.table({"_": pa.nulls(rows)}).drop_columns(["_"])
    return with_map_names(pa.Table.from_batches(_with_keys(lake, selection, plan, batches, batch_files),
                                                schema=plan.out), plan.out)


def _with_keys(lake: Lake, selection: list, plan, batches: list, batch_files: list) -> list:
    """The batches (converted to the lake's types: ``plan.convert``) with
    their files' partition keys appended, in the output schema."""
    out = []
    conv = plan.convert or (lambda b: b.columns)
    for k, b in zip(batch_files, batches):
        i = selection[k][0]
        cols = dict(zip(plan.file_schema.names, conv(b)))
        for name in plan.keys:
            cols[name] = lake.parts.column_chunk(name, i, b.num_rows)
        out.append(pa.RecordBatch.from_arrays([cols[f.name] for f in plan.out], schema=plan.out))
    return out
