"""The fragments an engine's scan reads (pqfast.dask, pqfast.ray): the files
that can hold a match, pruned by the Bloom filters and statistics of an
``=``/``in`` column every conjunction of the filter names (pqfast.prune:
one request per file, a fraction of a footer read), then
``pqfast.dataset``'s fragments of those files, pruned by statistics.
A 1-id query over 1,000 files becomes one fragment, not 1,000 partitions
each pruning its own file."""

from __future__ import annotations

from typing import Any, Callable

from ._pqfast import FormatError
from .filters import normalize
from .parquet import kept_row_groups, prune


def _bloom_key(filters) -> tuple[str, list] | None:
    """(column, values) when every conjunction of ``filters`` holds an ``=``
    or ``in`` atom on one column: a row can match only if that column holds
    one of the values, so Bloom filters and statistics (pqfast.prune) can
    rule files out before any fragment is made. None otherwise."""
    if filters is None:
        return None
    try:
        dnf = normalize(filters)
    except FormatError:  # a filter pqfast applies after reading (pyarrow.compute): no pruning here
        return None
    if not dnf:
        return None
    common = None
    for conj in dnf:
        cols = {a.column for a in conj if a.op in ("eq", "in") and not a.negate}
        common = cols if common is None else common & cols
    if not common:
        return None
    col = sorted(common)[0]
    values = []
    for conj in dnf:
        for a in conj:
            if a.column == col and a.op in ("eq", "in") and not a.negate:
                if any(v is None for v in a.values):
                    return None  # "in" a set holding None matches null rows: no value to probe for
                values.extend(a.values)
    return col, list(dict.fromkeys(values))


def kept_fragments(ds: Any, filters: Any, dataset_kw: dict,
                   prune_files: Callable[[list, str, list], Any] | None = None) -> list:
    """``ds``'s fragments for ``filters`` (``dataset_kw``: how ``ds`` was
    opened), files pruned first by ``prune_files(files, column, values)``
    (a pqfast.prune table; default: pqfast.prune here)."""
    files = list(ds.files)
    key = _bloom_key(filters)
    if key is None or not files or key[0] in ds.partition_keys or key[0] not in ds.schema.names \
            or dataset_kw.get("filesystem") is not None:  # pqfast.prune reads local paths and s3:// URLs
        # (A key column's filter is decided by directories in get_fragments.)
        return list(ds.get_fragments(filter=filters))
    col, values = key
    try:
        if prune_files is None:
            table = prune(files, col, values, storage_options=dataset_kw.get("storage_options"))
        else:
            table = prune_files(files, col, values)
    except (FormatError, TypeError, ValueError, OverflowError):
        # Values pqfast.prune cannot probe for (a type it does not hash): the
        # scan prunes each file itself.
        return list(ds.get_fragments(filter=filters))
    kept = kept_row_groups(table)
    if not kept:
        return []
    # The kept files alone: only their footers are read.
    return list(ds.with_files(kept).get_fragments(filter=filters))
