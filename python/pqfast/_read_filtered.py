"""``read_table(filters=)`` of local paths as a caller of the dataset scan:
the files' footers read at once in C++, then one streaming scan
(:class:`pqfast._dataset_scan.Scanner`), which prunes every file in C++
(footers cached per process, statistics, Bloom filters) and reads each row
group left with the scan engine, as one engine call would. Whether it takes
a read is decided before any data is read, from the source, the projection
and the filter (:func:`filtered_read` returns None otherwise, and
``scan_table``'s routes read it): hive partitions, nested or dictionary
columns, files unlike the first, a sidecar index, a filter the engine cannot
type or one only pyarrow.compute evaluates keep those routes."""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

import pyarrow as pa

from ._dataset_scan import _ENGINE_COUNTS, Scanner, ScanStats
from ._lake import LOCAL, Lake
from ._read import _memory_limit, _thread_count
from ._strings import checked_strings
from .scan import _local_paths

# Batches as large as a row group's selected rows: the table keeps a chunk per row group.
_WHOLE = 1 << 40


def filtered_read(source: Any, columns: Sequence[str] | None, filters: Any, *, threads: int | None,
                  use_threads: bool, stats: bool, memory_limit: int | None, partitioning: str | None,
                  strings: str | None, read_dictionary) -> Any:
    """The rows of local ``source`` that ``filters`` keeps (with ``stats``:
    ``(table, dict)`` as scan_table gives them), or None when the dataset
    scan does not take the read (see the module's doc)."""
    if filters is None or read_dictionary or not _local_paths(source):
        return None
    t0 = time.perf_counter()
    strings = checked_strings(strings)
    n_threads = _thread_count(threads, use_threads)
    _memory_limit(memory_limit)  # checked here as the engine call checks it
    is_dir = isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source))
    lake = Lake.open(source, partitioning if is_dir else None, None, None)
    if lake.kind != LOCAL or lake.parts is not None or not lake.names:
        return None
    if len(lake.names) > 1:
        # Footers and conformity at once in C++, not file by file in Python.
        lake.read_local_footers(n_threads or (os.cpu_count() or 1))
    counts = ScanStats() if stats else None
    sc = Scanner(lake, [(i, None) for i in range(len(lake.names))], None if columns is None else list(columns),
                 filters, _WHOLE, threads=n_threads, memory_limit=memory_limit, scan_stats=counts, strings=strings)
    if sc._filter.post is not None:
        return None
    plan = sc._native_plan()
    if plan is None:
        return None
    table = pa.Table.from_batches(list(sc._native_stream(plan, sc._ahead)), schema=sc._out)
    if not stats:
        return table
    st = dict.fromkeys(_ENGINE_COUNTS, 0)
    st["files"] = len(lake.names)
    st.update(counts.snapshot())
    st["seconds"] = time.perf_counter() - t0
    return table, st
