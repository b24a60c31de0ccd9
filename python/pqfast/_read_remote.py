"""``read_table``'s route for ``s3://`` URLs and paths on ``filesystem=``
(with and without filters): the dataset scan through the streaming scanner
(``pqfast.dataset(source).to_table(columns, filter)``: one Python I/O loop
feeding the C++ scanner, coalesced ranged GETs, many files in flight, units
within ``memory_limit``), the lake listed once and its footers read in one
round (kept per process while the listing gives the objects unchanged).

:func:`remote_read` decides before any data page is read, from the source,
the filter and the lake's footers; it returns None, and the caller keeps
the staged scan (``scan.scan_table``), for:

- ``stats=True`` (the caller's check): the staged scan's counts (request
  rounds, requests, bytes fetched) are what those callers read;
- a lookup (every AND names one ``=``/``in`` column: ``_fragments._bloom_key``):
  the staged scan prunes every file by its Bloom filters in one round of
  block reads (five request rounds in all); the dataset would run that same
  staged scan after its own planning (1 id, 10 objects, +20 ms a request:
  96 ms staged, 161 ms through the dataset);
- projections or files the scanner does not take (``Scanner._native_plan``
  is None: nested, dictionary or extension columns, files unlike the first,
  a filter the engine cannot type): the dataset would read them row group
  by row group;
- ``PQFAST_REMOTE_ROUTE=staged`` (benchmarks and tests compare the routes).

Never by catching an error. In the lake layer, beside ``_read_scan`` (the
same for local sources); ``reader`` (the API) calls it.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import pyarrow as pa

from ._dataset_scan import Scanner
from ._fragments import _bloom_key
from ._lake import Lake
from ._paths import _remote_urls
from ._strings import checked_strings

ROUTE_ENV = "PQFAST_REMOTE_ROUTE"
# One read_table: the scanner's batches are concatenated, so as large as its units.
_BATCH_ROWS = 1 << 40


def is_remote(source: Any, filesystem: Any) -> bool:
    """Whether read_table takes `source` from a store: paths on
    `filesystem`, or s3:// URLs."""
    return filesystem is not None or bool(_remote_urls(source))


def remote_read(source: Any, columns: Sequence[str] | None, filters: Any, *, filesystem: Any,
                storage_options: dict | None, memory_limit: int | None, partitioning: str | None,
                strings: str | None, read_dictionary: Sequence[str] | None, threads: int | None):
    """`source` (s3:// URLs or paths on `filesystem`) read through the
    dataset scan into one Table, or None when the staged scan keeps it (see
    the module's doc)."""
    if os.environ.get(ROUTE_ENV) == "staged" or (filters is not None and _bloom_key(filters) is not None):
        return None
    if hasattr(source, "read") or hasattr(source, "read_at"):
        return None  # a file object: the staged scan says what it takes
    checked_strings(strings)
    lake = Lake.open(source, partitioning, filesystem, storage_options, None, tuple(read_dictionary or ()))
    lake.strings = strings
    sc = Scanner(lake, [(i, None) for i in range(len(lake.names))], columns, filters, _BATCH_ROWS,
                 threads=threads, memory_limit=memory_limit)
    plan = sc._native_plan()
    if plan is None:
        return None
    return pa.Table.from_batches(list(sc._native_stream(plan, sc._ahead)), schema=sc._out)
