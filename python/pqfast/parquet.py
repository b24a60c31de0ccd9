"""Parquet metadata, Bloom filters and lake pruning, named like pyarrow's metadata.

    f = pqfast.ParquetFile("part-0.parquet")
    f.num_rows, f.num_row_groups, f.num_columns, f.created_by
    c = f.row_group(0).column(2)
    c.path_in_schema, c.physical_type, c.encodings, c.statistics.min
    c.bloom_filter_offset, c.bloom_filter_length, c.bloom_filter()   # -> pqfast.Sbbf or None

    pqfast.prune("lake/*.parquet", "user_id", [42, 43])             # -> pyarrow.Table
    pqfast.read_pruned("lake/*.parquet", "user_id", [42])            # the rows, by the scan engine

Local paths are read by C++ (pread, a thread pool over files, the GIL
released). A pyarrow ``FileSystem`` or an fsspec filesystem (``filesystem=``),
or an open binary file object, is read through Python and parsed by the same
C++ code; ``prune`` drives such filesystems with :mod:`pqfast.fs_driver`,
``read_pruned`` reads them with the streaming scanner (the dataset scan).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._encode import _as_list_or_array, encode_values
from ._dataset_scan import read_row_groups
from ._file import ColumnChunkMetaData, ParquetFile, RowGroupMetaData, Statistics
from ._paths import expand_paths
from ._prune import clear_footer_cache, judge, kept_row_groups, prune
from .reader import read_table
from ._lake import partitioned_lake
from ._read_local import local_read

# Re-exported where users found them (pqfast.parquet.ParquetFile, .expand_paths, .encode_values).
__all__ = ["ParquetFile", "RowGroupMetaData", "ColumnChunkMetaData", "Statistics", "prune", "read_pruned",
           "kept_row_groups", "clear_footer_cache", "expand_paths", "encode_values", "judge"]


def read_pruned(paths_or_glob: Any, column: str, values: Any, filesystem: Any = None, *,
                columns: Sequence[str] | None = None, filter_rows: bool = True, threads: int | None = None,
                storage_options: dict | None = None):
    """The rows of the lake where ``column`` is one of ``values``, read by the
    scan engine: ``read_table(paths_or_glob, filters=[(column, "in", values)])``
    on local paths, ``s3://`` URLs (``storage_options``) or ``filesystem``, so
    the result equals a full scan with that filter (``pyarrow.dataset``'s).

    ``filter_rows=False``: the row groups :func:`prune` keeps (maybe /
    no_filter) are read whole, each through the same engine, rows unfiltered.
    On a hive-partitioned directory the key columns come too, as with
    ``filter_rows=True``; a key as ``column`` picks whole files by their
    directories, so both give the same rows.
    """
    cols = list(columns) if columns is not None else None
    lake = None if filter_rows else partitioned_lake(paths_or_glob, storage_options, filesystem)
    if filter_rows or (lake is not None and column in lake[1].types):
        vals = _as_list_or_array(values)
        vals = vals.tolist() if isinstance(vals, np.ndarray) else list(vals)
        return read_table(paths_or_glob, columns=cols, filters=[(column, "in", vals)], filesystem=filesystem,
                          storage_options=storage_options, threads=threads)
    # A partitioned lake's files are pruned as listed (no second listing) and read
    # through the directory, which gives their key columns.
    table = prune(lake[0] if lake is not None else paths_or_glob, column, values, filesystem, threads=threads,
                  storage_options=storage_options)
    kept = kept_row_groups(table)
    # The dataset scan's one route (the streaming scanner), where it takes
    # them (remote sources: always).
    got = read_row_groups(paths_or_glob, kept, cols, threads=threads, partitioning="hive" if lake is not None else None,
                          filesystem=filesystem, storage_options=storage_options)
    if got is not None:
        return got
    # Names read_row_groups does not find among the source's files: the
    # local read of the files named (with no row group kept, the source
    # still types the empty table: its first file's footer alone is read).
    if lake is not None:
        return local_read(paths_or_glob, cols, None, threads=threads, row_groups=kept)
    return local_read(list(kept) if kept else paths_or_glob, cols, None, threads=threads, row_groups=kept)
