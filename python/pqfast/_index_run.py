"""What an index run shares, in place and into a sidecar: its summary
(``IndexSummary``, what ``pqfast.index`` returns) and the per-file loop on a
thread pool that counts each file into it.

Below ``_index`` (in place) and ``_index_sidecar`` (the sidecar writer).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field


@dataclass
class IndexSummary:
    """What ``pqfast.index`` did (or, with ``dry_run``, would do)."""

    files: int = 0                 # files looked at
    files_changed: int = 0         # files that got new bytes (would, in a dry run)
    files_unchanged: int = 0       # nothing to add
    files_conflict: int = 0        # changed by another process meanwhile: left alone
    files_failed: int = 0          # errors (only with on_error="skip")
    chunks_indexed: int = 0
    chunks_had_filter: int = 0
    chunks_unsupported: int = 0    # BOOLEAN, nested or encrypted chunks
    chunks_from_dictionary: int = 0
    offset_indexes: int = 0        # page indexes appended (OffsetIndex, ColumnIndex)
    column_indexes: int = 0
    bytes_appended: int = 0
    bytes_copied: int = 0          # bytes copied through user space (0 when cloned or copied in the kernel)
    bytes_uploaded: int = 0        # s3://: bytes sent (the tails; whole objects under 5 MiB)
    bytes_downloaded: int = 0      # s3://: bytes of the ranged GETs
    files_cloned: int = 0          # files whose old bytes were shared by a reflink (no copy at all)
    seconds: float = 0.0
    dry_run: bool = False
    sidecar: str | None = None     # the sidecar index written (sidecar=); bytes_appended is its size
    details: list = field(default_factory=list)  # one dict per file (path, outcome, chunks...)
    errors: list = field(default_factory=list)   # (path, message) with on_error="skip"

    def as_dict(self, details: bool = False) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("details", "errors")}
        out["errors"] = [{"path": p, "error": m} for p, m in self.errors]
        if details:
            out["details"] = self.details
        return out


def _per_file(paths, one, threads, bar, summary, failures: list):
    """Runs one(path) -> (path, result, error) for every path on up to
    `threads` threads; yields (path, result) in path order for the files
    that succeeded, after counting each file (and each failure, whose
    exception goes to `failures`) into `summary` and advancing `bar`."""
    workers = max(1, min(threads or os.cpu_count() or 1, len(paths) or 1))
    # One worker: the files in this thread (a pool thread would only add a
    # thread start and a hand-off per file, and a fresh thread's first
    # decompression context).
    pool = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        for path, res, err in (pool.map(one, paths) if pool is not None else map(one, paths)):
            summary.files += 1
            if bar is not None:
                bar.advance()
            if err is not None:
                summary.files_failed += 1
                summary.errors.append((path, str(err)))
                failures.append(err)
                continue
            yield path, res
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
