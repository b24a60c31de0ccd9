"""``read_table(filters=)`` and ``read_table(stats=True)`` of local paths
(a file, a list, a directory, a glob), the row-group reads of
``read_pruned`` and ``pqfast.dask`` on them, and ``scan_table`` (the same
with the scan engine's index switches): one route, the streaming scanner
(``_LocalScanner``, pqfast/scanner.h).

- A typed filter over flat columns read straight into their final types
  and nested fields the scanner assembles (dictionary leaves as
  dictionaries; finished per row group when the read retypes them), files
  alike: the lean route (``scan.lean_scan`` -> ``_filtered_scan``),
  planned from the first file's cached column plans, no Lake: lookups stay
  as cheap as one engine call. A sidecar index beside the files gives its
  tails to the scan there.
- Everything else, the dataset scan over a :class:`._lake.Lake`
  (``Scanner._native_plan`` / ``_native_stream``, as ``pqfast.dataset``
  scans): hive partitions (keys folded per file), files unlike the first
  (runs of alike files, ``_stream_plan.plan_runs``, each batch conformed to
  the first file's schema), dictionary, extension and cast columns, nested
  columns retyped after the read (finished batch by batch), no filter with
  ``stats=True``, and a filter the engine cannot type (a BYTE_ARRAY
  DECIMAL column: kept as a residual that pyarrow.compute evaluates on each
  batch, ``_dataset_scan._Filter.untyped``).

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
from ._paths import _remote_urls
from ._read import arrow_errors_named
from ._strings import checked_strings, table_with_strings
from .scan import _local_partitions, _local_paths, lean_scan

FormatError = _pqfast.FormatError

# One read: the scanner's batches are concatenated, so as large as its units.
_BATCH_ROWS = 1 << 40


def local_read(source: Any, columns: Sequence[str] | None, filters: Any, *, threads: int | None = None,
               use_threads: bool = True, stats: bool = False, memory_limit: int | None = None,
               partitioning: str | None = "hive", strings: str | None = None,
               read_dictionary: Sequence[str] | None = None, row_groups: dict | None = None,
               flags: tuple = (True, True, True, True)):
    """The rows of local `source` that `filters` keeps (None: every row), as
    one Table, with ``stats``: (table, dict); ``row_groups`` ({path: [row
    group]}, paths as the source names them): only those row groups (a
    file without any is not read). ``flags``: use_statistics, use_bloom,
    use_dictionary, use_page_index of the lean route (the dataset scan
    uses every index the files and a sidecar give)."""
    checked_strings(strings)
    t0 = time.perf_counter()
    where = os.fspath(source) if isinstance(source, (str, os.PathLike)) else repr(source)[:200]
    with arrow_errors_named(where):
        paths = _local_paths(source)
        if not paths:
            raise FormatError(f"invalid argument: no Parquet files in {where}")
        if _local_partitions(source, paths, partitioning) is None:
            got = lean_scan(paths, columns, filters, threads, use_threads, tuple(flags), memory_limit,
                            row_groups, None, strings, read_dictionary, t0)
            if got is not None:
                table = table_with_dictionaries(table_with_strings(got[0], strings), read_dictionary)
                return (table, got[1]) if stats else table
        return _dataset_read(source, columns, filters,
                             threads if threads is not None else (None if use_threads else 1), stats, memory_limit,
                             partitioning, strings, read_dictionary, row_groups, t0)


def scan_table(source: Any, columns: Sequence[str] | None = None, filters: Any = None, *,
               threads: int | None = None, use_threads: bool = True, stats: bool = False,
               use_statistics: bool = True, use_bloom: bool = True, use_dictionary: bool = True,
               use_page_index: bool = True, memory_limit: int | None = None, row_groups: dict | None = None,
               partitioning: str | None = "hive", strings: str | None = None,
               read_dictionary: Sequence[str] | None = None):
    """:func:`local_read` with the scan engine's index switches
    (``use_statistics``, ``use_bloom``, ``use_dictionary``,
    ``use_page_index``: off, that index does not prune; without Bloom
    filters and page indexes a sidecar is not read), for benchmarks and
    tests that compare what each index saves."""
    if _remote_urls(source):
        raise FormatError("invalid argument: scan_table reads local files; s3:// URLs are read by "
                          "pqfast.read_table / pqfast.dataset")
    return local_read(source, columns, filters, threads=threads, use_threads=use_threads, stats=stats,
                      memory_limit=memory_limit, partitioning=partitioning, strings=strings,
                      read_dictionary=read_dictionary, row_groups=row_groups,
                      flags=(use_statistics, use_bloom, use_dictionary, use_page_index))


def _dataset_read(source, columns, filters, threads, stats, memory_limit, partitioning, strings, read_dictionary,
                  row_groups, t0):
    """The read through the dataset scan (as ``pqfast.dataset(source)``
    scans it)."""
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
        table = pa.Table.from_batches(list(sc._native_stream(sc._native_plan(), sc._ahead)), schema=sc._out)
    if not stats:
        return table
    st = _stats(table, lake, sc, counts)
    st["seconds"] = time.perf_counter() - t0
    return table, st


def read_rows(source: Any, columns, filters=None, *, threads: int | None = None, partitioning: str | None = "hive",
              row_groups: dict | None = None):
    """The rows of local paths for callers that choose row groups
    (``pqfast.dask``'s parts): :func:`local_read`. Remote sources are the
    dataset scan's (``_dataset_scan.read_row_groups``)."""
    return local_read(source, columns, filters, threads=threads, partitioning=partitioning, row_groups=row_groups)
