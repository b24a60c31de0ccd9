"""``pqfast.index``: Bloom filters appended to the files of a lake that have none.

The work per file is C++ (pqfast/index.h): each requested column chunk without
a filter gets the SBBF pyarrow would write for its values (XXH64 of the PLAIN
bytes, Arrow C++'s size for the chunk's distinct count and ``fpp``, folded to
``fpp``), built from the dictionary page alone when every data page uses it;
the filters and a new footer, the old one re-encoded losslessly, are appended
after the old end of the file. The file is swapped atomically (a clone or copy
beside it, then rename), so readers see the old file or the new one, never a
mix; a file changed by another process meanwhile is left alone.
"""

from __future__ import annotations

import os
import time
from typing import Any

from . import _index_s3, _index_sidecar, _pqfast, remote as _remote
from ._index_run import IndexSummary, _per_file
from ._paths import expand_paths, _remote_urls
from ._progress import Progress


def _columns(columns: Any) -> list[str]:
    if isinstance(columns, str):
        columns = [c for c in columns.split(",")]
    cols = [str(c).strip() for c in columns]
    if not cols or any(not c for c in cols):
        raise ValueError(f"columns must name at least one column, got {columns!r}")
    return cols


def index(source: Any, columns: Any, *, fpp: float = 0.01, ndv: int | None = None, page_index: bool = True,
          storage_options: dict | None = None, threads: int | None = None, dry_run: bool = False,
          progress: Any = None, on_error: str = "raise", sidecar: Any = None) -> IndexSummary:
    """Append Bloom filters for ``columns`` to every file of ``source`` whose chunks have none.

    ``source``: a path, a directory (every ``*.parquet`` under it), a glob, or
    a list of them. ``columns``: names or dotted paths (a list, or one string
    "a,b"). ``fpp``: the target false-positive probability; ``ndv``: the
    distinct count to size every filter for (default: each chunk's exact
    count, as pyarrow would be told). Chunks that already have a filter are
    left alone, so a second run appends nothing. ``dry_run`` plans and counts
    without writing. ``progress``: True for a bar on stderr (or a
    ``pqfast._progress.Progress``). ``on_error="skip"`` records a file's
    error in ``summary.errors`` and goes on; by default the first error is
    raised once the other files are done.

    ``page_index=True`` also appends a ColumnIndex and an OffsetIndex for each
    requested chunk that has neither (as parquet-java and arrow-rs write them:
    per data page its location, first row, min/max, null count); it decodes
    every data page of those chunks.

    ``s3://`` URLs (a pattern, a prefix ending in "/", objects; with
    ``storage_options`` as ``prune`` takes them): the plan reads ranges, then a
    multipart upload copies the old bytes on the server (UploadPartCopy) and
    appends the tail, conditional on the object's ETag (objects under 5 MiB are
    put back whole); an object changed meanwhile is a conflict, left alone.

    ``sidecar=True`` (or a path, or an ``s3://`` URL): the data files are not
    touched; what would be appended to each (filters, page indexes, footer)
    goes into one index file for the lake instead (``_pqfast_index`` in the
    source directory or the files' common parent; on S3 beside the objects:
    under the pattern's or prefix's directory; format in
    ``pqfast._sidecar``), which ``prune`` and ``read_table(filters=)`` find
    and read as if the files had been indexed. Entries of unchanged files are
    kept (a new column goes after their old tail), those of changed files
    rebuilt, those of files gone dropped.

    Returns an :class:`IndexSummary` (files, chunks indexed, chunks that
    already had a filter, bytes appended, seconds, per-file details).
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if not (0.0 < float(fpp) < 1.0):
        raise ValueError(f"fpp must be in (0, 1), got {fpp!r}")
    if ndv is not None and int(ndv) <= 0:
        raise ValueError(f"ndv must be positive, got {ndv!r}")
    cols = _columns(columns)
    start = time.perf_counter()
    if sidecar not in (None, False):
        if _remote_urls(source):
            target = _index_sidecar.S3Target(source, sidecar, storage_options)
        elif storage_options:
            raise ValueError("storage_options are for s3:// sources")
        else:
            target = _index_sidecar.LocalTarget(source, sidecar)
        return _index_sidecar.build(target, cols, float(fpp), int(ndv or 0), bool(page_index), threads, progress,
                                    on_error, bool(dry_run), start)
    remote = _remote_urls(source)
    if remote:
        _, items = _remote.resolve(source, storage_options)
        client = _index_s3.make_client(storage_options)
        paths = [u for u, _, _ in items]
        keys = {u: (_remote.split_url(u)[0], k) for u, k, _ in items}
    elif storage_options:
        raise ValueError("storage_options are for s3:// sources")
    else:
        paths = expand_paths(source)
    summary = IndexSummary(dry_run=bool(dry_run))
    bar = None
    if progress is not None and progress is not False:
        bar = progress if isinstance(progress, Progress) else Progress(total=len(paths), label="index")

    # Threads left over by the files (fewer files than threads) build the
    # chunks of each file in parallel.
    inner_threads = max(1, (threads or os.cpu_count() or 1) // max(1, len(paths)))

    def one(path: str):
        if remote:
            bucket, key = keys[path]
            try:
                return path, _index_s3.index_object(client, bucket, key, path, cols, float(fpp), int(ndv or 0),
                                                    bool(page_index), bool(dry_run), inner_threads), None
            except Exception as e:  # noqa: BLE001 - reported per object like a local file's error
                return path, None, e if isinstance(e, _pqfast.FormatError) else _pqfast.FormatError(
                    f"{path}: {type(e).__name__}: {e}")
        try:
            return path, _pqfast._index_file(os.fsencode(path), cols, float(fpp), int(ndv or 0), bool(dry_run),
                                                bool(page_index), inner_threads), None
        except (_pqfast.FormatError, OSError) as e:
            return path, None, e

    failures: list = []
    for path, res in _per_file(paths, one, threads, bar, summary, failures):
        outcome = res["outcome"]
        if outcome == "indexed":
            summary.files_changed += 1
            summary.files_cloned += bool(res["cloned"])
        elif outcome == "conflict":
            summary.files_conflict += 1
        else:
            summary.files_unchanged += 1
        for k in ("chunks_indexed", "chunks_had_filter", "chunks_unsupported", "chunks_from_dictionary",
                  "offset_indexes", "column_indexes", "bytes_appended", "bytes_copied", "bytes_uploaded"):
            setattr(summary, k, getattr(summary, k) + res.get(k, 0))
        summary.bytes_downloaded += res.get("get_bytes", 0)
        res["path"] = path
        summary.details.append(res)
    if bar is not None:
        bar.close()
    summary.seconds = time.perf_counter() - start
    if failures and on_error == "raise":
        raise failures[0]
    return summary


