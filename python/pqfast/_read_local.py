"""``read_table(filters=)`` and ``read_table(stats=True)`` of local paths
(a file, a list, a directory, a glob), and the row-group reads of
``read_pruned`` and ``pqfast.dask`` on them: one route, the streaming
scanner (``_LocalScanner``, pqfast/scanner.h).

- A typed filter over flat columns read straight into their final types
  and nested fields the scanner assembles (finished per row group when the
  read retypes them), files alike: the lean route (``scan.lean_scan`` -> ``_filtered_scan``),
  planned from the first file's cached column plans, no Lake: lookups stay
  as cheap as one engine call. A sidecar index beside the files gives its
  tails to the scan there.
- Everything else local, the dataset scan over a :class:`._lake.Lake`
  (``Scanner._native_plan`` / ``_native_stream``, as ``pqfast.dataset``
  scans): hive partitions (keys folded per file), files unlike the first
  (runs of alike files, ``_stream_plan.plan_runs``, each batch conformed to
  the first file's schema), dictionary, extension and cast columns, no
  filter with ``stats=True``, and a filter the engine cannot type (a
  BYTE_ARRAY DECIMAL column: kept as a residual that pyarrow.compute
  evaluates on each batch, ``_dataset_scan._Filter.untyped``).
- None (the caller keeps ``scan.scan_table``) only where the dataset scan
  says its plan is None: nested columns under a filter that the lean route
  did not take (files unlike the first, hive lakes, with a nested column
  retyped after the read; a nested dictionary leaf), which scan_table's
  lean route or engine call then reads.

In the lake layer, beside ``_read_remote`` (the same for object storage)
and ``_read_scan`` (whole local reads); ``reader``, ``parquet`` and
``dask`` call it.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

import pyarrow as pa

from . import _pqfast
from ._dataset_scan import ScanStats, Scanner
from ._lake import Lake
from ._read_remote import _stats
from ._dictionaries import table_with_dictionaries
from ._read import arrow_errors_named
from ._strings import checked_strings, table_with_strings
from .scan import _local_partitions, _local_paths, lean_scan, scan_table

FormatError = _pqfast.FormatError

# One read: the scanner's batches are concatenated, so as large as its units.
_BATCH_ROWS = 1 << 40


def local_read(source: Any, columns: Sequence[str] | None, filters: Any, *, threads: int | None = None,
               use_threads: bool = True, stats: bool = False, memory_limit: int | None = None,
               partitioning: str | None = "hive", strings: str | None = None,
               read_dictionary: Sequence[str] | None = None, row_groups: dict | None = None):
    """The rows of local `source` that `filters` keeps (None: every row), as
    one Table, with ``stats``: (table, dict); ``row_groups`` ({path: [row
    group]}, paths as the source names them): only those row groups (a
    file without any is not read). None when the engine's own call keeps
    the read (see the module's doc)."""
    checked_strings(strings)
    t0 = time.perf_counter()
    where = os.fspath(source) if isinstance(source, (str, os.PathLike)) else repr(source)[:200]
    with arrow_errors_named(where):
        paths = _local_paths(source)
        if not paths:
            raise FormatError(f"invalid argument: no Parquet files in {where}")
        if _local_partitions(source, paths, partitioning) is None:
            got = lean_scan(paths, columns, filters, threads, use_threads, (True, True, True, True), memory_limit,
                            row_groups, None, strings, read_dictionary, t0)
            if got is not None:
                table = table_with_dictionaries(table_with_strings(got[0], strings), read_dictionary)
                return (table, got[1]) if stats else table
        return _dataset_read(source, columns, filters,
                             threads if threads is not None else (None if use_threads else 1), stats, memory_limit,
                             partitioning, strings, read_dictionary, row_groups, t0)


def _dataset_read(source, columns, filters, threads, stats, memory_limit, partitioning, strings, read_dictionary,
                  row_groups, t0):
    """The read through the dataset scan (as ``pqfast.dataset(source)``
    scans it), or None when its plan is None."""
    lake = Lake.open(source, partitioning, None, None, None, tuple(read_dictionary or ()))
    lake.strings = strings
    if row_groups is None:
        selection = [(i, None) for i in range(len(lake.names))]
    else:
        selection = [(i, sorted(set(int(g) for g in row_groups[name]))) for i, name in enumerate(lake.names)
                     if row_groups.get(name)]
    counts = ScanStats() if stats else None
    sc = Scanner(lake, selection, columns, filters, _BATCH_ROWS, threads=threads, memory_limit=memory_limit,
                 scan_stats=counts)
    if not selection:
        # No row group chosen: the lake's schema (its first footer), no row.
        table = sc._out.empty_table()
    else:
        plan = sc._native_plan()
        if plan is None:
            return None
        table = pa.Table.from_batches(list(sc._native_stream(plan, sc._ahead)), schema=sc._out)
    if not stats:
        return table
    st = _stats(table, lake, sc, counts)
    st["seconds"] = time.perf_counter() - t0
    return table, st


def read_rows(source: Any, columns, filters=None, *, threads: int | None = None, partitioning: str | None = "hive",
              row_groups: dict | None = None):
    """``scan.scan_table``'s rows of local paths for callers that choose row
    groups (``pqfast.dask``'s parts): by :func:`local_read`, what it leaves
    (nested columns under a filter) by ``scan_table``. Remote sources are
    the dataset scan's (``_dataset_scan.read_row_groups``)."""
    got = local_read(source, columns, filters, threads=threads, partitioning=partitioning, row_groups=row_groups)
    if got is not None:
        return got
    return scan_table(source, columns, filters, threads=threads, partitioning=partitioning, row_groups=row_groups)
