"""One Parquet file: where its bytes come from (``_Source``: a local path read
natively, a path on a ``filesystem=``, a binary file object), its footer as
pyarrow names the metadata (``ParquetFile``, ``RowGroupMetaData``,
``ColumnChunkMetaData``, ``Statistics``) and its row groups read
(``ParquetFile.read``): a local file's flat columns through the streaming
scanner (``_scan_whole``), the rest through the column reader.

Above the column reader and the values layer; below the scan, the lake and
the API modules (``pqfast.parquet`` re-exports these classes).
"""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any, Iterator, Sequence

import numpy as np
import pyarrow as pa

from . import _pqfast
from ._encode import _decode_stat
from ._errors import UNSUPPORTED, batch_size_of, column_list, format_error
from ._plan import duration_units
from ._read import _concat, arrow_errors_named, read_source
from ._scan_whole import read_file
from .sbbf import Sbbf

FormatError = _pqfast.FormatError


class _Source:
    """A file to read: a local path (read natively) or a read_at callable."""

    def __init__(self, source: Any, filesystem: Any = None):
        self._fh = None
        self.read_at = None
        self.positional = False
        if filesystem is None and isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if path.startswith("file://"):
                path = path[len("file://"):]
            self.path = path
            self.local = True
            return
        self.local = False
        if filesystem is not None:
            path = os.fspath(source) if isinstance(source, os.PathLike) else str(source)
            self.path = path
            if hasattr(filesystem, "open_input_file"):  # pyarrow.fs.FileSystem
                fh = filesystem.open_input_file(path)
                self._fh = fh
                self.size = fh.size()
                self.read_at = lambda off, n: fh.read_at(n, off)
                self.positional = True  # read_at does not move a shared position: safe from threads
                return
            if hasattr(filesystem, "open"):  # fsspec
                fh = filesystem.open(path, "rb")
                self._fh = fh
                size = getattr(fh, "size", None)
                self.size = int(size if size is not None else filesystem.size(path))
                self.read_at = _seek_reader(fh)
                return
            raise TypeError(f"unsupported filesystem object {type(filesystem).__name__}")
        if hasattr(source, "read") and hasattr(source, "seek"):
            self.path = str(getattr(source, "name", "<file object>"))
            source.seek(0, 2)
            self.size = source.tell()
            self.read_at = _seek_reader(source)
            return
        raise TypeError(f"expected a path or a binary file object, got {type(source).__name__}")

    def metadata(self):
        if self.local:
            return _pqfast._read_metadata_path(self.path)
        return _pqfast._read_metadata_file(self.read_at, self.size, self.path)

    def bloom_filter(self, offset: int, length: int | None):
        ln = -1 if length is None else int(length)
        if self.local:
            return _pqfast._load_bloom_filter_path(self.path, int(offset), ln)
        return _pqfast._load_bloom_filter_file(self.read_at, self.size, self.path, int(offset), ln)

    def close(self):
        if self._fh is not None:
            try:
                self._fh.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
            self._fh = None


def _seek_reader(fh):
    def read_at(off, n):
        fh.seek(off)
        out = fh.read(n)
        return bytes(out)

    return read_at


class Statistics:
    """Min/max and counts of a column chunk. ``min``/``max`` are typed like
    pyarrow's (int, float, str, bytes, Decimal, date, datetime); ``min_raw``/
    ``max_raw`` are the PLAIN bytes. ``has_min_max`` is False when the bounds
    are absent or unusable (legacy bounds of a type whose order they break)."""

    def __init__(self, d: dict, desc: dict):
        self._d = d
        self._desc = desc

    @property
    def has_min_max(self) -> bool:
        return self._d["min"] is not None and self._d["max"] is not None

    @property
    def min_raw(self) -> bytes | None:
        return self._d["min"]

    @property
    def max_raw(self) -> bytes | None:
        return self._d["max"]

    @property
    def min(self) -> Any:
        return _decode_stat(self._d["min"], self._desc)

    @property
    def max(self) -> Any:
        return _decode_stat(self._d["max"], self._desc)

    @property
    def null_count(self) -> int | None:
        return self._d["null_count"]

    @property
    def distinct_count(self) -> int | None:
        return self._d["distinct_count"]

    @property
    def is_legacy(self) -> bool:
        """True when min/max come from the deprecated fields (1/2)."""
        return bool(self._d["min_is_legacy"] or self._d["max_is_legacy"])

    @property
    def physical_type(self) -> str:
        return self._desc["physical_type"]

    def __repr__(self) -> str:
        return f"Statistics(min={self.min!r}, max={self.max!r}, null_count={self.null_count})"


class ColumnChunkMetaData:
    """One column chunk of a row group (pyarrow.parquet.ColumnChunkMetaData's names)."""

    def __init__(self, file: "ParquetFile", rg: int, col: int):
        self._file = file
        self._rg = rg
        self._col = col
        self._d = file._meta.column_chunk(rg, col)
        self._desc = file._columns[col]

    @property
    def path_in_schema(self) -> str:
        p = self._d["path_in_schema"] or self._desc["path"]
        return ".".join(p)

    @property
    def physical_type(self) -> str:
        return self._d["physical_type"] if self._d["has_meta_data"] else self._desc["physical_type"]

    @property
    def logical_type(self) -> str:
        return self._desc["logical_type"]["name"] or "None"

    @property
    def converted_type(self) -> str | None:
        return self._desc["converted_type"]

    @property
    def encodings(self) -> tuple[str, ...]:
        return self._d["encodings"]

    @property
    def compression(self) -> str:
        return self._d["compression"]

    @property
    def num_values(self) -> int:
        return self._d["num_values"]

    @property
    def total_compressed_size(self) -> int:
        return self._d["total_compressed_size"]

    @property
    def total_uncompressed_size(self) -> int:
        return self._d["total_uncompressed_size"]

    @property
    def file_offset(self) -> int:
        return self._d["file_offset"]

    @property
    def file_path(self) -> str:
        return self._d["file_path"]

    @property
    def data_page_offset(self) -> int:
        return self._d["data_page_offset"]

    @property
    def dictionary_page_offset(self) -> int | None:
        return self._d["dictionary_page_offset"]

    @property
    def has_dictionary_page(self) -> bool:
        return self._d["dictionary_page_offset"] is not None

    @property
    def index_page_offset(self) -> int | None:
        return self._d["index_page_offset"]

    @property
    def has_column_index(self) -> bool:
        return self._d["column_index_offset"] is not None

    @property
    def has_offset_index(self) -> bool:
        return self._d["offset_index_offset"] is not None

    @property
    def is_stats_set(self) -> bool:
        return self._d["statistics"] is not None

    @property
    def statistics(self) -> Statistics | None:
        s = self._d["statistics"]
        return None if s is None else Statistics(s, self._desc)

    @property
    def bloom_filter_offset(self) -> int | None:
        return self._d["bloom_filter_offset"]

    @property
    def bloom_filter_length(self) -> int | None:
        """Bytes of header + bitset; None when the writer did not record it (parquet-java < 1.14)."""
        return self._d["bloom_filter_length"]

    def bloom_filter(self) -> Sbbf | None:
        """The chunk's Bloom filter as a :class:`pqfast.Sbbf`, or None."""
        off = self.bloom_filter_offset
        if off is None:
            return None
        native = self._file._source.bloom_filter(off, self.bloom_filter_length)
        return None if native is None else Sbbf._wrap(native)

    def to_dict(self) -> dict:
        d = dict(self._d)
        d["path_in_schema"] = self.path_in_schema
        s = self.statistics
        d["statistics"] = None if s is None else {
            "has_min_max": s.has_min_max, "min": s.min, "max": s.max,
            "null_count": s.null_count, "distinct_count": s.distinct_count}
        return d

    def __repr__(self) -> str:
        return (f"<pqfast.ColumnChunkMetaData {self.path_in_schema} {self.physical_type} "
                f"{'/'.join(self.encodings)} bloom={self.bloom_filter_offset}>")


class RowGroupMetaData:
    def __init__(self, file: "ParquetFile", i: int):
        self._file = file
        self._i = i
        self._d = file._meta.row_group(i)

    @property
    def num_rows(self) -> int:
        return self._d["num_rows"]

    @property
    def num_columns(self) -> int:
        return self._d["num_columns"]

    @property
    def total_byte_size(self) -> int:
        return self._d["total_byte_size"]

    def column(self, j: int) -> ColumnChunkMetaData:
        if not -self.num_columns <= j < self.num_columns:
            raise IndexError(f"column index {j} out of range (0..{self.num_columns - 1})")
        return ColumnChunkMetaData(self._file, self._i, j % self.num_columns)

    def __repr__(self) -> str:
        return f"<pqfast.RowGroupMetaData num_rows={self.num_rows} num_columns={self.num_columns}>"


class ParquetFile:
    """A Parquet file's footer, parsed by pqfast's own Thrift reader.

    ``source`` is a local path, a path on ``filesystem`` (a pyarrow
    ``FileSystem`` or fsspec filesystem), or a binary file object.
    ``read_dictionary``: columns the reads give as ``dictionary<int32, string/binary>``
    (pyarrow's keyword, here or on each read; docs/read_dictionary.md).
    """

    def __init__(self, source: Any, filesystem: Any = None, *, read_dictionary: Sequence[str] | None = None):
        self._read_dictionary = read_dictionary
        self._source = _Source(source, filesystem)
        try:
            self._meta = self._source.metadata()
        except BaseException:
            self._source.close()
            raise
        self._columns = self._meta.columns()

    @classmethod
    def _with_metadata(cls, source: Any, filesystem: Any, meta) -> "ParquetFile":
        """The file opened with a footer parsed before (a dataset reads each
        footer once, then many row groups of the file)."""
        self = cls.__new__(cls)
        self._read_dictionary = None
        self._source = _Source(source, filesystem)
        self._meta = meta
        self._columns = meta.columns()
        return self

    @property
    def path(self) -> str:
        return self._source.path

    @property
    def num_rows(self) -> int:
        return self._meta.num_rows

    @property
    def num_row_groups(self) -> int:
        return self._meta.num_row_groups

    @property
    def num_columns(self) -> int:
        """Leaf columns."""
        return self._meta.num_columns

    @property
    def created_by(self) -> str:
        return self._meta.created_by

    @property
    def format_version(self) -> int:
        return self._meta.version

    @property
    def serialized_size(self) -> int:
        return self._meta.footer_length

    @property
    def metadata(self) -> dict:
        return self._meta.key_value_metadata

    @property
    def columns(self) -> list[dict]:
        """Leaf column descriptors: path, physical/logical/converted types, levels."""
        return [dict(c) for c in self._columns]

    def column_index(self, column: str) -> int:
        i = self._meta.find_column(column)
        if i < 0:
            names = ", ".join(c["dotted_path"] for c in self._columns[:12])
            raise KeyError(f"{self.path}: no column {column!r} (leaf columns: {names})")
        return i

    def row_group(self, i: int) -> RowGroupMetaData:
        if not -self.num_row_groups <= i < self.num_row_groups:
            raise IndexError(f"row group index {i} out of range (0..{self.num_row_groups - 1})")
        return RowGroupMetaData(self, i % self.num_row_groups)

    def page_headers(self, row_group: int, column: int) -> list[dict]:
        """The page headers of one column chunk (type, sizes, num_values, encoding), in order."""
        src = self._source
        if src.local:
            return _pqfast._page_headers_path(src.path, self._meta, row_group, column)
        return _pqfast._page_headers_file(src.read_at, src.size, src.path, self._meta, row_group, column)

    def read(self, columns: Sequence[str] | None = None, row_groups: Sequence[int] | None = None,
             use_threads: bool = True, memory_limit: int | None = None, threads: int | None = None,
             strings: str | None = None, read_dictionary: Sequence[str] | None = None):
        """The file's columns as a ``pyarrow.Table`` (pqfast's reader; see pqfast.reader).
        ``memory_limit``, ``strings``, ``read_dictionary``: as ``pqfast.read_table`` takes
        them (``read_dictionary`` None: the one the file was opened with); ``threads``: the
        reader's threads (None: ``use_threads`` decides, all cores or one)."""
        columns = column_list(columns)
        if read_dictionary is None:
            read_dictionary = self._read_dictionary
        if self._source.local:
            # Flat columns of a local file go through the streaming scanner
            # (_scan_whole decides before the read; None: the column reader).
            with arrow_errors_named(self._source.path):
                table = read_file(self._source.path, self._meta, columns, row_groups, use_threads, memory_limit,
                                  threads, strings, read_dictionary)
            if table is not None:
                return table
        return read_source(self._source, self._meta, columns, row_groups, use_threads, memory_limit, threads,
                           strings, read_dictionary=read_dictionary)

    def read_row_group(self, i: int, columns: Sequence[str] | None = None, use_threads: bool = True,
                       memory_limit: int | None = None, threads: int | None = None, strings: str | None = None,
                       read_dictionary: Sequence[str] | None = None):
        return self.read(columns=columns, row_groups=[i], use_threads=use_threads, memory_limit=memory_limit,
                         threads=threads, strings=strings, read_dictionary=read_dictionary)

    def read_row_groups(self, row_groups: Sequence[int], columns: Sequence[str] | None = None,
                        use_threads: bool = True, memory_limit: int | None = None, threads: int | None = None,
                        strings: str | None = None, read_dictionary: Sequence[str] | None = None):
        return self.read(columns=columns, row_groups=row_groups, use_threads=use_threads, memory_limit=memory_limit,
                         threads=threads, strings=strings, read_dictionary=read_dictionary)

    def iter_batches(self, batch_size: int = 65536, row_groups: Sequence[int] | None = None,
                     columns: Sequence[str] | None = None, use_threads: bool = True, use_pandas_metadata: bool = False,
                     *, memory_limit: int | None = None, threads: int | None = None, strings: str | None = None,
                     read_dictionary: Sequence[str] | None = None) -> Iterator[pa.RecordBatch]:
        """The file's rows as record batches of ``batch_size`` rows (the last
        one shorter), as ``pyarrow.parquet.ParquetFile.iter_batches`` gives
        them: ``row_groups`` in the order given (None: all), batches running
        across row groups. One row group is decoded at a time (its columns
        by ``threads``), so memory holds a row group and a batch, not the file."""
        batch_size = batch_size_of(batch_size)
        if use_pandas_metadata:
            raise format_error("ParquetFile.iter_batches: use_pandas_metadata=True is not supported", UNSUPPORTED)
        columns = column_list(columns)
        groups = range(self.num_row_groups) if row_groups is None else [int(g) for g in row_groups]
        pending = None
        for g in groups:
            t = self.read_row_group(g, columns=columns, use_threads=use_threads, memory_limit=memory_limit,
                                    threads=threads, strings=strings, read_dictionary=read_dictionary)
            if pending is not None:
                t = _concat([pending, t])
            at = 0
            while t.num_rows - at >= batch_size:
                yield _one_batch(t.slice(at, batch_size))
                at += batch_size
            pending = t.slice(at, t.num_rows - at)
        if pending is not None and pending.num_rows:
            yield _one_batch(pending)

    def close(self) -> None:
        self._source.close()

    def __enter__(self) -> "ParquetFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<pqfast.ParquetFile {self.path!r} rows={self.num_rows} "
                f"row_groups={self.num_row_groups} columns={self.num_columns}>")


def _one_batch(t: pa.Table) -> pa.RecordBatch:
    """A table's rows as one record batch (its chunks combined only when it has several)."""
    if t.num_columns == 0:  # (rows without columns, as pyarrow gives them for columns=[])
        return pa.record_batch([pa.nulls(t.num_rows)], names=["_"]).drop_columns(["_"])
    batches = t.to_batches()
    if len(batches) == 1:
        return batches[0]
    return pa.RecordBatch.from_arrays([c.combine_chunks() for c in t.columns], schema=t.schema)


def _column_descriptor(path: str, column: str, filesystem: Any, cache: bool) -> dict:
    """The leaf descriptor of ``column`` in ``path``, which types the probe values.

    Memoised in C++ for local files by path, size and mtime (a stat instead
    of a footer read), whatever ``cache`` says: it only types the values, and
    the C++ side checks every file's column type again."""
    if filesystem is None and isinstance(path, (str, os.PathLike)):
        return _pqfast._column_descriptor_path(os.fspath(path), column)
    with ParquetFile(path, filesystem) as f:
        return f._columns[f.column_index(column)]


def _with_duration_unit(desc: dict, paths: list, column: str, filesystem: Any, values: Any) -> dict:
    """`desc` with the Arrow duration unit of `column` (from the first file's
    embedded ARROW:schema) when timedelta values are probed on an INT64."""
    if desc.get("physical_type") != "INT64" or "duration_unit" in desc:
        return desc
    if not any(isinstance(v, (_dt.timedelta, np.timedelta64)) for v in values):
        return desc

    with ParquetFile(paths[0], filesystem) as f:
        unit = duration_units(f._meta).get(column)
    return dict(desc, duration_unit=unit) if unit else desc
