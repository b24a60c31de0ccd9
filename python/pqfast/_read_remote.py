"""``read_table``'s route for ``s3://`` URLs, for paths on a
``filesystem=`` (directories, globs, paths named one by one) and for file
objects (a filesystem of one file: ``fs_driver.file_object_filesystem``);
with and without filters, lookups included, ``stats=True`` too: the dataset scan
through the streaming scanner
(``pqfast.dataset(source).to_table(columns, filter)``: one Python I/O loop
feeding the C++ scanner, coalesced ranged GETs, many files in flight, units
within ``memory_limit``), the lake listed once and its footers read in one
round (kept per process while the listing gives the objects unchanged; on
a filesystem, read through the lake's own I/O, whose open files the scan
then reads). A lookup's files are pruned inside the scanner by statistics
and the Bloom blocks its keys hash to, one round for the lake. A path or URL
named alone (not listed) is opened once: its footer's read gives its size
(a suffix GET on ``s3://``; the open on a filesystem).

``stats=True``: ``(table, dict)``, the dict the scan engine's counts over
the filtered units (``_dataset_scan.ScanStats``: row groups pruned by
statistics / Bloom filters / dictionaries / the page index, pages read and
skipped, bytes read...), ``rows``, ``files``, ``seconds``, the scanner's
own counts (``scanner``: units, engine runs, ranges and bytes asked...) and
the requests by round (``_requests``: ``requests``, ``bytes_fetched``,
``rounds``, ``round_detail``: listing, tails, then the scanner's rounds).

:func:`remote_read` is the only route of these sources (there is no
staged scan beside it); what it does is decided before any data page is
read, from the source, the filter and the lake's footers:

- a filter the scanner's filtered units cannot run (nested columns under a
  filter, a filter the engine cannot type, a projection the scanner does
  not plan): evaluated on each batch by pyarrow.compute
  (``Scanner._native_plan``), the row groups the partition keys leave read
  whole;
- one file on a ``filesystem=`` (or a file object) read whole (no filter,
  no stats): None, and the caller reads it by the column reader
  (``ParquetFile.read``).

Never by catching an error (a sidecar that fails the read is read again
without it: ``_sidecar_s3.scan_or_fallback``, by type). In the lake layer, beside ``_read_scan`` (the same for local
sources); ``reader`` (the API) calls it.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Sequence

import pyarrow as pa

from . import _pqfast
from ._dataset_scan import _ENGINE_COUNTS, ScanStats, Scanner
from ._lake import Lake
from ._paths import _has_magic, _remote_urls
from ._requests import Fetcher
from ._sidecar_s3 import scan_or_fallback
from ._stream_io import SMALL_FILE_BYTES
from ._strings import checked_strings
from .fs_driver import file_object_filesystem, is_file_object
from .remote import _selection, normalise_options

FormatError = _pqfast.FormatError

# One read_table: the scanner's batches are concatenated, so as large as its units.
_BATCH_ROWS = 1 << 40


def is_remote(source: Any, filesystem: Any) -> bool:
    """Whether read_table takes `source` from a store: paths on
    `filesystem`, s3:// URLs, or a file object (read as a filesystem of one
    file: ``fs_driver.file_object_filesystem``)."""
    return filesystem is not None or bool(_remote_urls(source)) or is_file_object(source)


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


def _one_file(source: Any) -> bool:
    """Whether `source` names one file (a path, or a list of one)."""
    if isinstance(source, (list, tuple)):
        return len(source) == 1 and not _listed_on(source[0])
    return not _listed_on(source)


def _small_sizes(sizes: Sequence) -> bool:
    """Whether a listing's sizes are of several files whose first is small
    (``_stream_io.SMALL_FILE_BYTES``): read in file tasks, as the dataset
    scan decides from the same sizes."""
    return len(sizes) >= 2 and sizes[0] is not None and 0 <= int(sizes[0]) <= SMALL_FILE_BYTES


def _small_listing(listing) -> bool:
    """_small_sizes of an s3:// listing (``Lake.list_s3``'s)."""
    return listing is not None and _small_sizes([it[2] for it in listing[0][:2]])


def remote_read(source: Any, columns: Sequence[str] | None, filters: Any, *, filesystem: Any,
                storage_options: dict | None, memory_limit: int | None, partitioning: str | None,
                strings: str | None, read_dictionary: Sequence[str] | None, threads: int | None,
                stats: bool = False):
    """`source` (s3:// URLs, paths on `filesystem`, a file object) read
    through the dataset scan into one Table (with ``stats``: (table,
    dict)), or None for one file read whole (see the module's doc).

    An s3:// pattern or prefix read before is read from its last listing
    while it is listed again (the listing's round overlaps the pages'); the
    table is returned only when the new listing is the same (every object's
    size, ETag and modification time), else read again from the new one."""
    if is_file_object(source):
        # A fed source like any store's file: its reads are the scanner's needs.
        filesystem, source = file_object_filesystem(source)
        partitioning = None
    if filesystem is not None and filters is None and not stats and _one_file(source):
        return None  # one file read whole: the column reader (ParquetFile.read)
    checked_strings(strings)
    t0 = time.perf_counter()
    # With stats: the requests counted by round, the scan engine's counts summed.
    log = Fetcher() if stats else None

    def read(listing):
        # Tails from a sidecar index that fail the scan (a hostile or broken
        # sidecar): a warning, and the read again without sidecars.
        return scan_or_fallback(lambda: read_once(listing))

    def read_once(listing):
        # A lake of small objects without a filter: no footer read first (each
        # was a GET of its own before the pages' GET), each object fetched
        # whole in one GET and decoded in file tasks
        # (_stream_io.remote_small_files, through the dataset scan's stream).
        small = filters is None and _small_listing(listing)
        # (A filesystem's listing is made in Lake.open: its sizes decide
        # there, the footers then read by the plan if the files are not small.)
        listed_here = filesystem is not None and listing is None
        lake = Lake.open(source, partitioning, filesystem, storage_options, None, tuple(read_dictionary or ()),
                         listing=listing, read_footers=not small and not listed_here, fetch_log=log)
        if listed_here:
            small = filters is None and _small_sizes(lake.sizes[:2])
        lake.strings = strings
        counts = ScanStats() if stats else None
        sc = Scanner(lake, [(i, None) for i in range(len(lake.names))], columns, filters, _BATCH_ROWS,
                     threads=threads, memory_limit=memory_limit, scan_stats=counts)
        if small:
            batches = sc.to_batches()
        else:
            plan = sc._native_plan()
            # (None: a projection the scanner does not plan, read row group by
            # row group by the column reader, a filter evaluated per batch.)
            batches = sc._native_stream(plan, sc._ahead) if plan is not None else sc.to_batches()
        table = pa.Table.from_batches(list(batches), schema=sc._out)
        if not stats:
            return table
        return table, _stats(table, lake, sc, counts)

    overlapped = [False]  # read from the kept listing while it was listed again

    def listed_and_read():
        key = _kept_key(source, storage_options) if filesystem is None else None
        if key is None:
            return read(None)
        with _kept_lock:
            kept = _KEPT.get(key)
        if kept is None:
            listing = Lake.list_s3(source, storage_options, log)
            _keep(key, listing)
            return read(listing)
        fresh: dict = {}

        def list_again():
            try:
                fresh["listing"] = Lake.list_s3(source, storage_options, log)
            except BaseException as e:  # noqa: BLE001 - raised by the reader below
                fresh["error"] = e

        lister = threading.Thread(target=list_again, name="pqfast-relist", daemon=True)
        lister.start()
        overlapped[0] = True
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

    got = listed_and_read()
    if got is not None and stats:
        # (After the listing made again beside the read, when there was one: its requests counted.)
        got[1].update(log.totals(), listing_overlapped=overlapped[0])
        got[1]["seconds"] = time.perf_counter() - t0
    return got


def _stats(table: pa.Table, lake: Lake, sc: Scanner, counts: ScanStats) -> dict:
    """read_table(stats=True)'s dict of a read through the scanner (see the
    module's doc), from the scanner's counts (docs/remote.md names them and
    maps the staged scan's old round names); the requests and the time are added
    by the caller."""
    ran = counts.snapshot()  # the scan engine's, over filtered units (none: no filter, or none left)
    info = sc.last_readahead
    # (A projection the scanner does not plan was read unit by unit: no scanner counts.)
    scanner = dict(getattr(info, "stats", None) or {})
    scanner.pop("engine", None)
    st = dict.fromkeys(_ENGINE_COUNTS, 0)
    st.update(ran)
    st.pop("route", None)
    if not ran and sc._filter.dnf is None:  # every unit read whole
        st.update(row_groups=scanner.get("units", 0), row_groups_read=scanner.get("units_decoded", 0))
    elif not ran:  # the footers' statistics ruled out every row group: nothing ran
        st.update(row_groups=sc._ruled_out, row_groups_pruned_by_statistics=sc._ruled_out)
    st.update(route="scanner", files=len(lake.names), rows=table.num_rows, scanner=scanner,
              engine_runs=scanner.get("engine_runs", 0))
    if getattr(info, "sidecar_files", 0):  # (as a local read: only when some file was read with a tail)
        st["files_with_sidecar"] = info.sidecar_files
    return st
