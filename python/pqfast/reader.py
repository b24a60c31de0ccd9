"""``pqfast.read_table``: a source (a file, a file object, a list, a
directory, a glob, ``s3://`` URLs, paths on a ``filesystem=``) read into one
pyarrow Table. Plain local reads of flat columns go to the streaming scanner
(``_read_scan``); ``s3://`` and ``filesystem=`` sources, and file objects
with filters or stats, to the dataset scan through the same scanner
(``_read_remote``, ``stats=True`` too); the others (nested, dictionary or
extension columns, files unlike the first, file objects and one
``filesystem=`` file read whole) to the column reader (``_read``, through
``ParquetFile.read``); local filters and statistics to the scanner
through ``_read_local`` (its lean route, or the dataset scan).

An API module: above the scan and the file; nothing in the package below it
imports it. The column reader's names are re-exported here, where they were
first defined (``arrow_errors_named``, ``read_source``, ``parquet_arrow_type``...).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import pyarrow as pa

from . import fs_driver
from ._errors import INVALID_ARGUMENT, UNSUPPORTED, code_of, column_list, format_error
from ._file import ParquetFile
from ._paths import _has_magic, expand_paths, _remote_urls
from ._plan import arrow_format, duration_units, extension_type, is_null_typed, parquet_arrow_type, with_duration_unit
from ._pqfast import FormatError
from ._read import arrow_errors_named, _concat, read_source
from ._read_local import local_read
from ._read_remote import is_remote, remote_read
from ._read_scan import scanner_read
from .scan import _as_schema, _local_partitions

__all__ = ["read_table", "read_source", "arrow_errors_named", "parquet_arrow_type", "extension_type", "arrow_format",
           "duration_units", "with_duration_unit", "is_null_typed"]


def _read_columns_it_has(source, columns, row_groups, filesystem, use_threads, memory_limit, threads=None,
                         strings=None, read_dictionary=None):
    """read_table(source, columns) of the columns the file has (the others
    are given as nulls by the caller)."""
    try:
        return read_table(source, columns, row_groups, filesystem, use_threads, memory_limit=memory_limit,
                          threads=threads, strings=strings, read_dictionary=read_dictionary)
    except KeyError:
        pass
    except FormatError as e:
        # A column the file lacks is an invalid argument; any other error of
        # that code the read of the columns it has raises again.
        if code_of(e) != INVALID_ARGUMENT:
            raise

    f = ParquetFile(source, filesystem=filesystem)
    try:
        have = {d["path"][0] for d in f.columns} | {d["dotted_path"] for d in f.columns}
    finally:
        f.close()
    return read_table(source, [c for c in columns if c in have], row_groups, filesystem, use_threads,
                      memory_limit=memory_limit, threads=threads, strings=strings, read_dictionary=read_dictionary)


def read_table(source: Any, columns: Sequence[str] | None = None, row_groups: Sequence[int] | None = None,
               filesystem: Any = None, use_threads: bool = True, *, filters: Any = None,
               threads: int | None = None, stats: bool = False, storage_options: dict | None = None,
               memory_limit: int | None = None, partitioning: str | None = "hive", strings: str | None = None,
               read_dictionary: Sequence[str] | None = None, memory_map: bool = False, buffer_size: int = 0,
               pre_buffer: bool = True, use_pandas_metadata: bool = False,
               coerce_int96_timestamp_unit: str | None = None, page_checksum_verification: bool = False):
    """Reads a Parquet file (a path, a path on ``filesystem``, a binary file object, or a
    list of paths) into a ``pyarrow.Table``, as ``pyarrow.parquet.read_table`` names it.

    Columns of every physical type and encoding are read, nested ones too
    (lists, structs, maps at any depth, as pyarrow 26 types them); a dotted
    name ``"s.a"`` reads field ``a`` of struct ``s`` as a column ``a``.

    ``filters`` (pyarrow's DNF: a list of ``(column, op, value)`` tuples is an
    AND, a list of such lists an OR; ops ``=``/``==``, ``!=``, ``<``, ``<=``,
    ``>``, ``>=``, ``in``, ``not in``; or a ``pyarrow.compute.Expression`` of
    the same comparisons with ``&``, ``|``, ``~``, ``is_null``, ``is_valid``)
    returns the rows ``pyarrow.dataset`` returns for it, in file-then-row
    order, read by the native scan engine: row groups pruned by min/max and
    Bloom filters, chunks by dictionaries, pages by the page index, filter
    columns decoded first and the projected columns read only for matching
    rows. ``source`` may then also be a directory or a glob, or ``s3://`` URLs
    (``storage_options`` as ``prune`` takes them), read by the streaming
    scanner fed with ranged GETs, many files in flight: the listing, every
    file's tail (footer, page index), the Bloom blocks of ``=``/``in`` atoms,
    then the filter columns' dictionaries and candidate pages, then the
    projected pages of the selected rows (a lookup: five rounds;
    docs/remote.md). With ``filesystem`` (a pyarrow ``FileSystem`` or an
    fsspec filesystem, async ones such as s3fs included) paths on it go the
    same way, listed and read by :mod:`pqfast.fs_driver`'s backends.
    ``stats=True`` returns ``(table, dict)``, the dict saying what was read
    (remote reads also ``rounds``, ``round_detail``, ``requests`` and
    ``bytes_fetched``).

    A directory is read as ``pyarrow.parquet.read_table`` reads it: every
    ``*.parquet`` file under it, in path order, none under a name starting
    with "." or "_" (``_delta_log/``, ``_SUCCESS``); the first file's schema
    is the lake's (columns added later are null in older files, others cast);
    with ``partitioning="hive"`` (the default; None: off) each ``key=value``
    directory level is a dictionary column after the files' columns, typed
    and valued as pyarrow gives it, and filters on it choose directories
    before any file is opened (:mod:`pqfast._partitions`); so too for an
    ``s3://`` prefix ending in "/" and a directory on ``filesystem``.

    ``memory_limit`` bounds the bytes a read may allocate for decompressed
    pages and decoded values, shared by its threads (default: half of what
    the process may use: physical memory, the cgroup's limit, RLIMIT_AS).
    A file that would need more, like a few KB announcing gigabytes, raises
    ``pqfast.MemoryLimitError`` (a ``MemoryError``) naming the column, the
    size asked and the limit, before the memory is allocated.

    ``strings``: the layout of string and binary columns: None (pyarrow's
    types, as the file's Arrow schema names them), ``"view"``
    (string_view / binary_view, as polars and DataFusion return them: views
    into the decoded pages and dictionaries, no per-value copy) or
    ``"large"`` (large_string / large_binary); at any depth of nested
    columns, not in dictionary-typed columns (docs/strings.md).

    ``read_dictionary``: names of columns given as ``dictionary<int32, string>``
    (or ``binary``), as ``pyarrow.parquet.read_table(read_dictionary=)`` types
    and values them: per row group, the dictionary page's values then those of
    pages the writer did not dictionary-encode. The indices come straight from
    the pages' runs (no string is built), which makes group-by keys cheap for
    engines (docs/read_dictionary.md). Other columns named there keep their type.

    pyarrow's I/O hints ``memory_map``, ``buffer_size`` and ``pre_buffer`` are
    taken without effect; ``use_pandas_metadata``, ``coerce_int96_timestamp_unit``
    and ``page_checksum_verification`` at their defaults only (else
    ``pqfast.FormatError``, code "unsupported").
    """
    columns = column_list(columns)
    _pyarrow_options(use_pandas_metadata, coerce_int96_timestamp_unit, page_checksum_verification)
    remote = is_remote(source, filesystem)
    if row_groups is None and remote:
        # s3://, filesystem= and file objects through the dataset scan (the
        # streaming scanner fed by one I/O loop), stats=True too, decided
        # before any page is read; None: one file read whole, below.
        got = remote_read(source, columns, filters, filesystem=filesystem, storage_options=storage_options,
                          memory_limit=memory_limit, partitioning=partitioning, strings=strings,
                          read_dictionary=read_dictionary, threads=threads, stats=stats)
        if got is not None:
            return got
    if filters is not None or stats or (filesystem is None and _remote_urls(source)) \
            or _directory_on(filesystem, source):
        if row_groups is not None or remote:
            # (A remote source gets here with row_groups= only.)
            raise FormatError("invalid argument: filters= reads paths, directories, globs and s3:// URLs; "
                              "row_groups= does not combine with it yet")
        # Local paths: the streaming scanner (_read_local).
        return local_read(source, columns, filters, threads=threads, use_threads=use_threads, stats=stats,
                          memory_limit=memory_limit, partitioning=partitioning, strings=strings,
                          read_dictionary=read_dictionary)

    if filesystem is None:
        # Local paths (a file, a list, a directory, a glob) whose projection
        # the streaming scanner takes go through it; the rest below.
        table = scanner_read(source, columns, row_groups, use_threads, threads, memory_limit, partitioning, strings,
                             read_dictionary)
        if table is not None:
            return table
        if isinstance(source, str) and _has_magic(source) and not os.path.exists(source):
            # A glob the scanner does not take (nested columns...): its files, each by the column reader.
            source = expand_paths(source)
            if not source:
                raise FormatError("invalid argument: no Parquet files match the glob")
    if filesystem is None and isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source)):
        files = expand_paths(source)
        if not files:
            raise FormatError(f"invalid argument: no Parquet files in {os.fspath(source)}")
        parts = _local_partitions(source, files, partitioning) if partitioning is not None else None
        if parts is None:
            return read_table(files, columns, row_groups, None, use_threads, memory_limit=memory_limit,
                              threads=threads, strings=strings, read_dictionary=read_dictionary)
        cols, keys = parts.split(columns)
        tables = _read_files(files, cols, row_groups, use_threads, memory_limit, threads=threads, strings=strings,
                             read_dictionary=read_dictionary)
        table = parts.with_columns(_concat(tables), keys, range(len(files)), [t.num_rows for t in tables])
        return table.select(list(columns)) if columns is not None else table
    if isinstance(source, (list, tuple)):
        tables = _read_files(source, columns, row_groups, use_threads, memory_limit, filesystem, threads, strings,
                             read_dictionary)
        return _concat(tables) if tables else pa.table({})
    with ParquetFile(source, filesystem=filesystem) as f:
        return f.read(columns=columns, row_groups=row_groups, use_threads=use_threads, memory_limit=memory_limit,
                      threads=threads, strings=strings, read_dictionary=read_dictionary)


def _pyarrow_options(use_pandas_metadata, coerce_int96_timestamp_unit, page_checksum_verification) -> None:
    """pyarrow.parquet.read_table's options that would change the result, at
    their defaults only (a clear error, not a TypeError, for the others).
    Its I/O hints (``memory_map``, ``buffer_size``, ``pre_buffer``) are taken
    without effect: pqfast reads by its own positioned reads."""
    for name, value, default in (("use_pandas_metadata", use_pandas_metadata, False),
                                 ("coerce_int96_timestamp_unit", coerce_int96_timestamp_unit, None),
                                 ("page_checksum_verification", page_checksum_verification, False)):
        if value != default:
            raise format_error(f"pqfast.read_table: {name}={value!r} is not supported (only its default, "
                               f"{default!r})", UNSUPPORTED)


def _directory_on(filesystem, source) -> bool:
    """Whether `source` names a directory of `filesystem` (read as a lake,
    its key=value levels columns, as pyarrow reads it). A
    name ending in ".parquet" is taken for a file: a read of one file asks
    nothing more of the store than it did."""
    if filesystem is None or not isinstance(source, (str, os.PathLike)) or os.fspath(source).endswith(".parquet"):
        return False

    try:
        return fs_driver.backend_of(filesystem).kind_of(os.fspath(source))[0] == "directory"
    except (OSError, ValueError):
        return False  # the file's own open says what is wrong


def _read_files(source, columns, row_groups, use_threads, memory_limit, filesystem=None, threads=None,
                strings=None, read_dictionary=None) -> list:
    """Each file of the list read whole (its projected columns), as a table
    in the first file's schema (pyarrow.dataset's rule for a lake)."""
    tables = []
    for s in source:
        if tables and columns is not None:
            # A file lacking a projected column (added to the lake later) gives it as nulls.
            t = _read_columns_it_has(s, columns, row_groups, filesystem, use_threads, memory_limit, threads, strings,
                                     read_dictionary)
        else:
            t = read_table(s, columns, row_groups, filesystem, use_threads, memory_limit=memory_limit,
                           threads=threads, strings=strings, read_dictionary=read_dictionary)
        if tables and t.schema != tables[0].schema:
            # As pyarrow.dataset: the first file's schema is the lake's; columns it lacks are left out.
            t = _as_schema(t, tables[0].schema, os.fspath(s) if isinstance(s, (str, os.PathLike)) else repr(s))
        tables.append(t)
    return tables
