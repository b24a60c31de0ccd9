"""``read_table``'s route for ``s3://`` URLs (with and without filters,
lookups included) and for directories and globs on a ``filesystem=``
(without filters): the
dataset scan through the streaming scanner
(``pqfast.dataset(source).to_table(columns, filter)``: one Python I/O loop
feeding the C++ scanner, coalesced ranged GETs, many files in flight, units
within ``memory_limit``), the lake listed once and its footers read in one
round (kept per process while the listing gives the objects unchanged; on
a filesystem, read through the lake's own I/O, whose open files the scan
then reads). A lookup's files are pruned inside the scanner by statistics
and the Bloom blocks its keys hash to, one round for the lake.

:func:`remote_read` decides before any data page is read, from the source,
the filter and the lake's footers; it returns None, and the caller keeps
the staged scan (``scan.scan_table``), for:

- ``stats=True`` (the caller's check): the staged scan's counts (request
  rounds, requests, bytes fetched) are what those callers read;
- projections or files the scanner does not take (``Scanner._native_plan``
  is None: nested, dictionary or extension columns, files unlike the first,
  a filter the engine cannot type): the dataset would read them row group
  by row group;
- filtered reads on a ``filesystem=`` (through the scanner 1.1-1.3x the
  staged scan's time, the same requests and bytes: fs-range in
  scripts/bench_remote_routes.py), paths named one by one there (the staged
  scan's open of each gives its size; the lake would ask each first: a HEAD
  more per file on a pyarrow S3 filesystem), and one file without a filter
  (the column reader);
- ``PQFAST_REMOTE_ROUTE=staged`` (benchmarks and tests compare the routes).

Never by catching an error (a sidecar that fails the read is read again
without it, as the staged scan does: ``_sidecar_s3.scan_or_fallback``, by
type). In the lake layer, beside ``_read_scan`` (the same for local
sources); ``reader`` (the API) calls it.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

import pyarrow as pa

from . import _pqfast
from ._dataset_scan import Scanner
from ._lake import Lake
from ._paths import _has_magic, _remote_urls
from ._sidecar_s3 import scan_or_fallback
from ._strings import checked_strings
from .remote import _selection, normalise_options

FormatError = _pqfast.FormatError

ROUTE_ENV = "PQFAST_REMOTE_ROUTE"
# One read_table: the scanner's batches are concatenated, so as large as its units.
_BATCH_ROWS = 1 << 40


def is_remote(source: Any, filesystem: Any) -> bool:
    """Whether read_table takes `source` from a store: paths on
    `filesystem`, or s3:// URLs."""
    return filesystem is not None or bool(_remote_urls(source))


# The last listing of each s3:// pattern or prefix read here: (endpoint,
# source) -> Lake.list_s3's tuple; only listings whose every object has a
# version (ETag, modification time). Bounded.
_KEPT: dict = {}
_KEPT_MAX = 64
_kept_lock = threading.Lock()


def _kept_key(source: Any, storage_options: dict | None):
    if not isinstance(source, str) or _selection(source) is None:
        return None  # explicit URLs: no listing to keep
    return normalise_options(storage_options).get("endpoint", ""), source


def _keep(key, listing: tuple) -> None:
    if key is None or not all(it[3] for it in listing[0]):
        return
    with _kept_lock:
        if len(_KEPT) >= _KEPT_MAX:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[key] = listing


def _listed_on(source: Any) -> bool:
    """Whether a source on a filesystem is one the backend lists (a
    directory or a glob: sizes come with the listing), not named paths."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    path = os.fspath(source)
    return _has_magic(path) or not path.endswith(".parquet")


def remote_read(source: Any, columns: Sequence[str] | None, filters: Any, *, filesystem: Any,
                storage_options: dict | None, memory_limit: int | None, partitioning: str | None,
                strings: str | None, read_dictionary: Sequence[str] | None, threads: int | None):
    """`source` (s3:// URLs or paths on `filesystem`) read through the
    dataset scan into one Table, or None when the staged scan keeps it (see
    the module's doc).

    An s3:// pattern or prefix read before is read from its last listing
    while it is listed again (the listing's round overlaps the pages'); the
    table is returned only when the new listing is the same (every object's
    size, ETag and modification time), else read again from the new one."""
    if os.environ.get(ROUTE_ENV) == "staged":
        return None
    if filesystem is not None and (filters is not None or not _listed_on(source)):
        # Filtered: measured 1.1-1.3x the staged scan's time through the
        # scanner (the same requests and bytes; the filtered units' rounds,
        # as on s3://). Paths named one by one: the staged scan opens each
        # once, the open giving its size (a pyarrow S3 filesystem: a HEAD);
        # the lake would ask each its size first. One file without a
        # filter: the column reader (ParquetFile.read).
        return None
    if hasattr(source, "read") or hasattr(source, "read_at"):
        return None  # a file object: the staged scan says what it takes
    checked_strings(strings)

    def read(listing):
        # Tails from a sidecar index that fail the scan (a hostile or broken
        # sidecar): a warning, and the read again without sidecars.
        return scan_or_fallback(lambda: read_once(listing))

    def read_once(listing):
        lake = Lake.open(source, partitioning, filesystem, storage_options, None, tuple(read_dictionary or ()),
                         listing=listing, read_footers=True)
        lake.strings = strings
        sc = Scanner(lake, [(i, None) for i in range(len(lake.names))], columns, filters, _BATCH_ROWS,
                     threads=threads, memory_limit=memory_limit)
        plan = sc._native_plan()
        if plan is None:
            return None
        return pa.Table.from_batches(list(sc._native_stream(plan, sc._ahead)), schema=sc._out)

    key = _kept_key(source, storage_options) if filesystem is None else None
    if key is None:
        return read(None)
    with _kept_lock:
        kept = _KEPT.get(key)
    if kept is None:
        listing = Lake.list_s3(source, storage_options)
        _keep(key, listing)
        return read(listing)
    fresh: dict = {}

    def list_again():
        try:
            fresh["listing"] = Lake.list_s3(source, storage_options)
        except BaseException as e:  # noqa: BLE001 - raised by the reader below
            fresh["error"] = e

    lister = threading.Thread(target=list_again, name="pqfast-relist", daemon=True)
    lister.start()
    try:
        table = read(kept)
        failed = None
    except (FormatError, OSError) as e:
        # An object of the kept listing gone or replaced: the new listing decides.
        table, failed = None, e
    lister.join()
    if "error" in fresh:
        raise fresh["error"]
    listing = fresh["listing"]
    if listing[0] == kept[0] and listing[3] == kept[3]:
        if failed is not None:
            raise failed
        return table
    _keep(key, listing)
    return read(listing)
