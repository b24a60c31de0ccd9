"""Pruning without I/O: drive the C++ core with your own reads.

    from pqfast import sansio

    q = sansio.Query("user_id", [42, 7], sansio.descriptor(tail, size, "user_id"))
    p = q.file("s3://b/part-0.parquet", size, tail_bytes=64 * 1024)
    while not p.done:
        for offset, length in p.needs:       # the tail, the footer if longer, filters (coalesced)
            p.feed(offset, read(offset, length))   # or p.fail("why"); a short read fails the file
    q.table([p, ...])                          # the pyarrow Table pqfast.prune returns

Each pruner asks first for the file's last ``tail_bytes``; ``p.footer_length``
and ``p.filter_span`` (bytes from the column's first Bloom filter to the end)
tell a driver how long the next file's tail should be. pqfast's remote
driver (:mod:`pqfast.remote`) is one such loop on asyncio.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _pqfast
from ._assemble import verdict_table
from ._encode import _as_list_or_array, encode_values
from ._plan import with_duration_unit

FormatError = _pqfast.FormatError


def descriptor(tail: bytes, size: int, column: str, name: str = "<file>") -> dict:
    """The leaf descriptor of ``column`` (it types the values) from a file's
    last bytes, which must hold the footer (FormatError otherwise)."""
    tail = bytes(tail)
    start = size - len(tail)

    def read_at(off: int, n: int) -> bytes:
        if off < start:
            raise FormatError(f"{name}: the footer starts before the {len(tail)} bytes given")
        return tail[off - start: off - start + n]

    meta = _pqfast._read_metadata_file(read_at, size, name)
    i = meta.find_column(column)
    if i < 0:
        names = ", ".join(c["dotted_path"] for c in meta.columns()[:12])
        raise FormatError(f"invalid argument: {name}: no column '{column}' (leaf columns: {names})")

    return with_duration_unit(meta, meta.columns()[i])


class Query:
    """A column and values, typed by ``descriptor`` and hashed once."""

    def __init__(self, column: str, values: Any, descriptor: dict, *, by_value: bool = False,
                 use_statistics: bool = True, use_bloom: bool = True, coalesce_gap: int = 1 << 20):
        self.raw_values = _as_list_or_array(values)
        pt, tl, data, offsets = encode_values(descriptor, self.raw_values)
        self.by_value = by_value
        self._q = _pqfast._prune_query(column, pt, tl, data, offsets, by_value, use_statistics, use_bloom,
                                       int(coalesce_gap))

    def file(self, name: str, size: int, tail_bytes: int = 16 * 1024):
        """A pruner for one file of ``size`` bytes (a native _FilePruner)."""
        return self._q.file(name, int(size), int(tail_bytes))

    def table(self, pruners: Sequence, on_error: str = "raise"):
        """The finished pruners' verdicts as pqfast.prune's table."""
        res = _pqfast._pruner_results(list(pruners), self._q.num_values, self.by_value)
        return verdict_table([(res, None)], [p.name for p in pruners], self._q.num_values, self.by_value,
                             self.raw_values, on_error)
