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
``read_pruned`` reads them with the staged scan (:mod:`pqfast.scan`).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import glob as _glob
import itertools as _itertools
import os
import uuid as _uuid
from typing import Any, Iterable, Sequence

import numpy as np

from . import _pqfast
from .sbbf import Sbbf
from ._assemble import VERDICTS, verdict_table
from ._partitions import hidden_below

FormatError = _pqfast.FormatError


# LogicalType kinds (parquet.thrift LogicalType union ids).
_LT_STRING, _LT_ENUM, _LT_DECIMAL, _LT_DATE, _LT_TIME, _LT_TIMESTAMP = 1, 4, 5, 6, 7, 8
_LT_INTEGER, _LT_JSON, _LT_BSON, _LT_UUID, _LT_FLOAT16 = 10, 12, 13, 14, 15
_UNITS = ("ms", "us", "ns")
_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


# ---- opening files -----------------------------------------------------------------


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


# ---- typed statistics ----------------------------------------------------------------


def _decode_stat(raw: bytes | None, desc: dict) -> Any:
    """A statistics bound as a Python value typed like pyarrow's."""
    if raw is None:
        return None
    pt = desc["physical_type"]
    lt = desc["logical_type"]
    kind = lt["kind"]
    conv = desc["converted_type"]
    try:
        if pt == "BOOLEAN":
            return bool(raw[0]) if len(raw) >= 1 else None
        if pt in ("INT32", "INT64"):
            width = 4 if pt == "INT32" else 8
            if len(raw) != width:
                return None
            unsigned = (kind == _LT_INTEGER and not lt["is_signed"]) or (conv or "").startswith("UINT")
            v = int.from_bytes(raw, "little", signed=not unsigned)
            if kind == _LT_DECIMAL or conv == "DECIMAL":
                return _decimal.Decimal(v).scaleb(-_scale(desc))
            if kind == _LT_DATE or conv == "DATE":
                return _EPOCH_DATE + _dt.timedelta(days=v)
            if kind == _LT_TIMESTAMP or conv in ("TIMESTAMP_MILLIS", "TIMESTAMP_MICROS"):
                unit = lt["unit"] if kind == _LT_TIMESTAMP else (0 if conv == "TIMESTAMP_MILLIS" else 1)
                import pyarrow as pa

                tz = "UTC" if (kind == _LT_TIMESTAMP and lt["adjusted_to_utc"]) or kind != _LT_TIMESTAMP else None
                return pa.scalar(v, pa.timestamp(_UNITS[unit], tz=tz)).as_py()
            if kind == _LT_TIME or conv in ("TIME_MILLIS", "TIME_MICROS"):
                unit = lt["unit"] if kind == _LT_TIME else (0 if conv == "TIME_MILLIS" else 1)
                import pyarrow as pa

                t = pa.time32(_UNITS[unit]) if pt == "INT32" else pa.time64(_UNITS[unit])
                return pa.scalar(v, t).as_py()
            return v
        if pt in ("FLOAT", "DOUBLE"):
            width = 4 if pt == "FLOAT" else 8
            if len(raw) != width:
                return None
            return float(np.frombuffer(raw, dtype="<f4" if width == 4 else "<f8")[0])
        if pt in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
            if kind == _LT_DECIMAL or conv == "DECIMAL":
                return _decimal.Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-_scale(desc))
            # FLOAT16, ENUM, JSON and other binary bounds stay bytes, as pyarrow
            # gives them: only STRING (UTF8) bounds are text.
            if kind == _LT_STRING or (kind == 0 and conv == "UTF8"):
                return raw.decode("utf-8", "replace")
            return bytes(raw)
        return bytes(raw)
    except (ValueError, OverflowError):
        return None


def _scale(desc: dict) -> int:
    lt = desc["logical_type"]
    return lt["scale"] if lt["kind"] == _LT_DECIMAL else desc["scale"]


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


# ---- metadata objects -----------------------------------------------------------------


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
        from .reader import read_source

        if read_dictionary is None:
            read_dictionary = self._read_dictionary
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

    def close(self) -> None:
        self._source.close()

    def __enter__(self) -> "ParquetFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<pqfast.ParquetFile {self.path!r} rows={self.num_rows} "
                f"row_groups={self.num_row_groups} columns={self.num_columns}>")


# ---- typing probe values -----------------------------------------------------------------


def _bad(desc: dict, v: Any, want: str) -> Exception:
    return FormatError(
        f"invalid argument: column {desc['dotted_path']!r} is {_describe(desc)} and takes {want}; "
        f"got {type(v).__name__} {v!r}")


def _describe(desc: dict) -> str:
    s = desc["physical_type"]
    if desc["physical_type"] == "FIXED_LEN_BYTE_ARRAY":
        s += f"({desc['type_length']})"
    if desc["logical_type"]["name"]:
        s += f" {desc['logical_type']['name']}"
    elif desc["converted_type"]:
        s += f" {desc['converted_type']}"
    return s


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _decimal_unscaled(desc: dict, v: Any) -> int:
    scale = _scale(desc)
    if _is_int(v):
        v = _decimal.Decimal(int(v))
    if isinstance(v, str):
        try:
            v = _decimal.Decimal(v)
        except _decimal.InvalidOperation:
            raise _bad(desc, v, "decimal.Decimal values") from None
    if not isinstance(v, _decimal.Decimal):
        raise _bad(desc, v, "decimal.Decimal values")
    unscaled = v.scaleb(scale)
    if unscaled != unscaled.to_integral_value():
        raise FormatError(f"invalid argument: {v} has more than {scale} decimal places "
                          f"for column {desc['dotted_path']!r}")
    return int(unscaled)


def _int_value(desc: dict, v: Any) -> int:
    """An INT32/INT64 column value as the integer stored (before wrap to the width)."""
    lt = desc["logical_type"]
    kind, conv, pt = lt["kind"], desc["converted_type"], desc["physical_type"]
    if kind == _LT_DECIMAL or conv == "DECIMAL":
        return _decimal_unscaled(desc, v)
    if kind == _LT_DATE or conv == "DATE":
        if isinstance(v, _dt.datetime):
            raise _bad(desc, v, "datetime.date values (not datetimes)")
        if isinstance(v, _dt.date):
            return (v - _EPOCH_DATE).days
        if isinstance(v, np.datetime64):
            return int(v.astype("datetime64[D]").astype(np.int64))
        if _is_int(v):
            return int(v)
        raise _bad(desc, v, "datetime.date values or day numbers")
    if kind == _LT_TIMESTAMP or conv in ("TIMESTAMP_MILLIS", "TIMESTAMP_MICROS"):
        unit = lt["unit"] if kind == _LT_TIMESTAMP else (0 if conv == "TIMESTAMP_MILLIS" else 1)
        if isinstance(v, np.datetime64):
            return int(v.astype(f"datetime64[{_UNITS[unit]}]").astype(np.int64))
        if isinstance(v, _dt.datetime):
            delta = v - (_EPOCH_UTC if v.tzinfo is not None else _EPOCH)
            us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
            nanos = getattr(v, "nanosecond", 0)  # pandas.Timestamp
            if unit == 0:
                if us % 1000:
                    raise FormatError(f"invalid argument: {v} has sub-millisecond digits; column "
                                      f"{desc['dotted_path']!r} stores milliseconds")
                return us // 1000
            return us if unit == 1 else us * 1000 + nanos
        if _is_int(v):
            return int(v)
        raise _bad(desc, v, "datetime.datetime values or integers in the column's unit")
    if kind == _LT_TIME or conv in ("TIME_MILLIS", "TIME_MICROS"):
        unit = lt["unit"] if kind == _LT_TIME else (0 if conv == "TIME_MILLIS" else 1)
        if isinstance(v, _dt.time):
            us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
            return us // 1000 if unit == 0 else (us if unit == 1 else us * 1000)
        if _is_int(v):
            return int(v)
        raise _bad(desc, v, "datetime.time values or integers in the column's unit")
    unit = desc.get("duration_unit")
    if unit and not _is_int(v):
        # An Arrow duration (the unit from the embedded schema): timedelta values.
        from ._time_values import duration_count

        try:
            count = duration_count(v, unit)
        except ValueError as e:
            raise FormatError(f"invalid argument: {e} (column {desc['dotted_path']!r})") from None
        if count is None:
            raise _bad(desc, v, f"datetime.timedelta values or integers of {unit}")
        v = count
    if not _is_int(v):
        if isinstance(v, (_dt.timedelta, np.timedelta64)):
            raise _bad(desc, v, "integers (the file's schema names no duration unit)")
        raise _bad(desc, v, "integers")
    v = int(v)
    bits = 32 if pt == "INT32" else 64
    unsigned = (kind == _LT_INTEGER and not lt["is_signed"]) or (conv or "").startswith("UINT")
    width = lt["bit_width"] if kind == _LT_INTEGER and lt["bit_width"] else bits
    if conv and conv.startswith(("UINT_", "INT_")) and kind != _LT_INTEGER:
        width = int(conv.split("_")[1])
    lo, hi = (0, (1 << width) - 1) if unsigned else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
    if not lo <= v <= hi:
        raise FormatError(f"invalid argument: {v} is out of range for column {desc['dotted_path']!r} "
                          f"({_describe(desc)}: {lo}..{hi})")
    return v


def _fixed_bytes(desc: dict, v: Any) -> bytes:
    lt = desc["logical_type"]
    kind, conv, n = lt["kind"], desc["converted_type"], desc["type_length"]
    if desc["physical_type"] == "INT96":
        n = 12
        # read_table gives INT96 columns as timestamp[ns]: its values (and
        # integers of nanoseconds) become the 12 bytes the writers stored.
        from ._time_values import epoch_nanos, int96_bytes

        nanos = int(v) if _is_int(v) else epoch_nanos(v)
        if nanos is not None:
            try:
                return int96_bytes(nanos)
            except OverflowError as e:
                raise FormatError(f"invalid argument: {e} (column {desc['dotted_path']!r})") from None
    elif kind == _LT_DECIMAL or conv == "DECIMAL":
        u = _decimal_unscaled(desc, v)
        try:
            return u.to_bytes(n, "big", signed=True)
        except OverflowError:
            raise FormatError(f"invalid argument: {v} does not fit column {desc['dotted_path']!r} "
                              f"({_describe(desc)})") from None
    elif kind == _LT_UUID:
        if isinstance(v, _uuid.UUID):
            return v.bytes
        if isinstance(v, str):
            try:
                return _uuid.UUID(v).bytes
            except ValueError:
                raise _bad(desc, v, "uuid.UUID values or UUID strings") from None
    elif kind == _LT_FLOAT16 and isinstance(v, (float, int, np.floating)) and not isinstance(v, bool):
        return np.float16(v).tobytes()
    if isinstance(v, str):
        v = v.encode("utf-8")
    if not isinstance(v, (bytes, bytearray, memoryview, np.bytes_)):
        raise _bad(desc, v, "datetime values, integer nanoseconds or 12-byte INT96 values"
                   if desc["physical_type"] == "INT96" else f"bytes of length {n}")
    b = bytes(v)
    if len(b) != n:
        raise FormatError(f"invalid argument: value {b!r} has {len(b)} bytes; column "
                          f"{desc['dotted_path']!r} ({_describe(desc)}) needs {n}")
    return b


def _encode_small_list(desc: dict, pt: str, values: list):
    """A user's few lookups (plain ints, or str for a BYTE_ARRAY column),
    encoded in C++ (simple_values.h) without the general path's checks and
    numpy conversions. None when the values or the column need the general
    path, which then words any error."""
    kind, converted = desc["logical_type"]["kind"], desc["converted_type"]
    got = _pqfast._encode_small_list(pt, kind != 0 or converted is not None,
                                     kind == _LT_DECIMAL or converted == "DECIMAL", values)
    return None if got is None else (pt, 0, got[0], got[1])


def encode_values(desc: dict, values: Any) -> tuple[str, int, np.ndarray, np.ndarray | None]:
    """(physical type, type_length, PLAIN bytes, offsets or None) for values of a column."""
    pt = desc["physical_type"]
    if pt == "BOOLEAN":
        raise FormatError(f"invalid argument: column {desc['dotted_path']!r} is BOOLEAN: "
                          "Parquet has no Bloom filter for booleans")
    if type(values) is list and 0 < len(values) <= 64:
        fast = _encode_small_list(desc, pt, values)
        if fast is not None:
            return fast
    values = _as_list_or_array(values)
    kind = desc["logical_type"]["kind"]
    # Plain numbers (no logical annotation): the vectorised path.
    plain_numeric = kind == 0 and desc["converted_type"] is None
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf" and pt in ("INT32", "INT64", "FLOAT", "DOUBLE") \
            and plain_numeric:
        from ._values import _fixed_width

        if pt in ("INT32", "INT64") and values.dtype.kind == "f":
            raise _bad(desc, values.dtype, "integers")
        data, _, _ = _fixed_width(values, pt, None)
        return pt, 0, np.ascontiguousarray(data), None
    items = list(values)
    if pt in ("INT32", "INT64"):
        ints = [_int_value(desc, v) for v in items]
        bits = 32 if pt == "INT32" else 64
        mask = (1 << bits) - 1
        arr = np.array([i & mask for i in ints], dtype=np.uint32 if bits == 32 else np.uint64)
        return pt, 0, arr.view(np.uint8), None
    if pt in ("FLOAT", "DOUBLE"):
        for v in items:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise _bad(desc, v, "numbers")
        arr = np.array(items, dtype="<f4" if pt == "FLOAT" else "<f8")
        return pt, 0, arr.view(np.uint8), None
    if pt == "BYTE_ARRAY":
        if kind == _LT_DECIMAL or desc["converted_type"] == "DECIMAL":
            raise FormatError(f"invalid argument: column {desc['dotted_path']!r} is a BYTE_ARRAY "
                              "DECIMAL, whose byte width depends on the writer: not supported")
        parts = []
        for v in items:
            if isinstance(v, str):
                parts.append(v.encode("utf-8"))
            elif isinstance(v, (bytes, bytearray, memoryview, np.bytes_)):
                parts.append(bytes(v))
            else:
                raise _bad(desc, v, "str or bytes values")
        offsets = np.fromiter(_itertools.accumulate((len(p) for p in parts), initial=0), np.int64,
                              len(parts) + 1)
        return pt, 0, np.frombuffer(b"".join(parts), dtype=np.uint8), offsets
    # FIXED_LEN_BYTE_ARRAY, INT96
    parts = [_fixed_bytes(desc, v) for v in items]
    tl = desc["type_length"] if pt == "FIXED_LEN_BYTE_ARRAY" else 12
    return pt, tl, np.frombuffer(b"".join(parts), dtype=np.uint8), None


def _as_list_or_array(values: Any):
    if isinstance(values, (str, bytes, bytearray, int, float, _decimal.Decimal, _dt.date, _dt.time, _uuid.UUID)):
        return [values]
    if isinstance(values, np.ndarray):
        if values.ndim == 0:
            return values.reshape(1)
        if values.dtype.kind in "iuf":
            return values.ravel()
        return list(values.ravel())
    try:
        import pyarrow as pa

        if isinstance(values, (pa.Array, pa.ChunkedArray)):
            if values.null_count:
                raise FormatError("invalid argument: null values have no hash; drop them first")
            if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
                return values.to_numpy(zero_copy_only=False)
            return values.to_pylist()
    except ImportError:
        pass
    if isinstance(values, Iterable):
        out = list(values)
        if any(v is None for v in out):
            raise FormatError("invalid argument: None has no hash (nulls are not in Bloom filters)")
        return out
    raise TypeError(f"values must be a value or an iterable of values, got {type(values).__name__}")


# ---- pruning -------------------------------------------------------------------------------


def _remote_urls(p: Any) -> bool:
    """s3:// URLs (one, or a list whose first is one)."""
    if isinstance(p, str):
        return p.startswith(("s3://", "s3a://"))
    if isinstance(p, (list, tuple)) and p and isinstance(p[0], str):
        return p[0].startswith(("s3://", "s3a://"))
    return False


def _has_magic(p: str) -> bool:
    return "*" in p or "?" in p or "[" in p


def expand_paths(paths_or_glob: Any, filesystem: Any = None) -> list[str]:
    """Paths from a glob, a directory (every *.parquet file under it, none
    under a name starting with "." or "_"), a path, or a list of them."""
    single = isinstance(paths_or_glob, (str, os.PathLike))
    items = [os.fspath(paths_or_glob)] if single else [p if type(p) is str else os.fspath(p) for p in paths_or_glob]
    if filesystem is None and not single and items and all(type(p) is str for p in items):
        # The common case, a list of local *.parquet paths: checked in a few
        # passes over one string instead of path by path.
        blob = "\0".join(items)
        if ("*" not in blob and "?" not in blob and "[" not in blob
                and blob.count("\0") == len(items) - 1
                and blob.count(".parquet\0") == len(items) - 1 and blob.endswith(".parquet")):
            return items
    out: list[str] = []
    for p in items:
        if filesystem is None:
            if "*" in p or "?" in p or "[" in p:
                # glob(3) in C++ where it means the same; Python's for "**".
                out.extend(_pqfast._glob(os.fsencode(p)) if "**" not in p else sorted(_glob.glob(p, recursive=True)))
            elif (single or not p.endswith(".parquet")) and os.path.isdir(p):
                # sorted(glob(p + "/**/*.parquet", recursive=True)), listed in C++
                out.extend(_pqfast._parquet_files_under(os.fsencode(p)))
            else:
                out.append(p)
        elif hasattr(filesystem, "glob") and any(ch in p for ch in "*?["):  # fsspec
            out.extend(sorted(filesystem.glob(p)))
        elif hasattr(filesystem, "get_file_info"):  # pyarrow
            import fnmatch

            import pyarrow.fs as pafs

            if any(ch in p for ch in "*?["):
                base = p[: min(p.find(c) for c in "*?[" if c in p)]
                base = base.rsplit("/", 1)[0] if "/" in base else ""
                infos = filesystem.get_file_info(pafs.FileSelector(base or "/", recursive=True))
                out.extend(sorted(i.path for i in infos if i.type == pafs.FileType.File and fnmatch.fnmatch(i.path, p)))
            else:
                info = filesystem.get_file_info(p)
                if info.type == pafs.FileType.Directory:
                    infos = filesystem.get_file_info(pafs.FileSelector(p, recursive=True))
                    out.extend(sorted(i.path for i in infos if i.type == pafs.FileType.File and i.path.endswith(".parquet")
                                      and not hidden_below(p, i.path)))
                else:
                    out.append(p)
        elif hasattr(filesystem, "isdir") and filesystem.isdir(p):
            out.extend(sorted(f for f in filesystem.glob(p.rstrip("/") + "/**/*.parquet") if not hidden_below(p, f)))
        else:
            out.append(p)
    return out


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
    from .reader import duration_units

    with ParquetFile(paths[0], filesystem) as f:
        unit = duration_units(f._meta).get(column)
    return dict(desc, duration_unit=unit) if unit else desc


def clear_footer_cache() -> None:
    """Forget the footers kept by ``prune(..., cache=True)`` (and the column types memoised for typing values),
    and the tails of objects kept by ``read_table`` on ``s3://`` URLs."""
    _pqfast._footer_cache_clear()
    from .scan import clear_tail_cache

    clear_tail_cache()


def prune(paths_or_glob: Any, column: str, values: Any, filesystem: Any = None, *,
          threads: int | None = None, by_value: bool = False, use_statistics: bool = True,
          use_bloom: bool = True, on_error: str = "raise", progress: Any = None, cache: bool = False,
          storage_options: dict | None = None, concurrency: int = 256, sidecar: Any = None):
    table = _prune(paths_or_glob, column, values, filesystem, threads=threads, by_value=by_value,
                   use_statistics=use_statistics, use_bloom=use_bloom, on_error=on_error, progress=progress,
                   cache=cache, storage_options=storage_options, concurrency=concurrency)
    # A sidecar index (pqfast.index(..., sidecar=...)) beside the files: its
    # filters judge the row groups the files' own metadata cannot.
    if sidecar is False or not use_bloom or filesystem is not None:
        return table
    from ._sidecar import judge

    return judge(table, paths_or_glob, column, values, sidecar, storage_options, by_value, use_statistics)


def _prune(paths_or_glob: Any, column: str, values: Any, filesystem: Any = None, *,
           threads: int | None = None, by_value: bool = False, use_statistics: bool = True,
           use_bloom: bool = True, on_error: str = "raise", progress: Any = None, cache: bool = False,
           storage_options: dict | None = None, concurrency: int = 256):
    """Which files and row groups can hold these values of ``column``?

    Returns a pyarrow Table with one row per (file, row group): ``path``,
    ``row_group``, ``verdict`` ("absent": no value can be there, by min/max
    statistics or the Bloom filter; "maybe"; "no_filter": the chunk has no
    Bloom filter and min/max do not rule every value out) and ``reason``.
    With ``by_value=True``, one row per (file, row group, value) with a
    ``value`` column. Values are typed by the column's physical and logical
    type (ints, floats, str/bytes, date, datetime, Decimal, UUID).
    ``on_error="skip"`` leaves out files that fail (bad footer, missing
    column) instead of raising FormatError. ``cache=True`` keeps the parsed
    footers of local files for later calls (validated by size and mtime on
    each use; :func:`clear_footer_cache` empties it): probing the same lake
    key after key then reads only Bloom filters.

    ``s3://bucket/...`` URLs (a pattern, a prefix ending in "/", or a list)
    are pruned by the remote driver (:mod:`pqfast.remote`, needs obstore):
    one request per file, ``concurrency`` files in flight;
    ``storage_options`` takes the keys polars and pandas users know
    (endpoint, region, access_key_id / key, secret_access_key / secret,
    token, anon), else credentials come from the environment.

    ``filesystem=`` (:mod:`pqfast.fs_driver`): sizes from the listing of a
    pattern or directory, then one ranged read of each file's tail (footer
    and the column's filters, sized from the footers seen so far); per file:

    - an fsspec filesystem with async methods (s3fs, gcsfs, adlfs): 1 GET,
      no HEAD, ``concurrency`` files in flight on its event loop. s3fs
      keeps botocore's pool of 10 connections unless made with
      ``config_kwargs={"max_pool_connections": 256}``;
    - a pyarrow ``FileSystem``: 1 HEAD + 1 GET on S3 (pyarrow's Python API
      opens by path, and its S3 filesystem sends a HEAD on each open),
      ``threads`` files at a time (default 64);
    - any other fsspec filesystem: ``cat_file`` ranges on ``threads`` threads.

    Explicit paths need no listing with pyarrow; with fsspec, paths sharing
    a parent get their sizes from one listing of it, a lone path from an
    ``info``. A file's error (missing, denied, truncated) goes through
    ``on_error`` as a local file's does.
    """
    import pyarrow as pa

    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if filesystem is None and _remote_urls(paths_or_glob):
        from .remote import prune_remote

        return prune_remote(paths_or_glob, column, values, storage_options=storage_options, by_value=by_value,
                            use_statistics=use_statistics, use_bloom=use_bloom, on_error=on_error,
                            progress=progress, concurrency=concurrency)
    if filesystem is not None:
        # pyarrow and fsspec filesystems: drivers over the sans-IO core (sizes
        # from the listing, one ranged read of each tail, many files in flight).
        from .fs_driver import prune_filesystem

        return prune_filesystem(paths_or_glob, column, values, filesystem, threads=threads,
                                concurrency=concurrency, by_value=by_value, use_statistics=use_statistics,
                                use_bloom=use_bloom, on_error=on_error, progress=progress)
    # A local pattern is expanded in C++ and kept there (as a _PathList, which
    # _prune_paths takes back as is).
    pattern = (isinstance(paths_or_glob, (str, os.PathLike)) and _has_magic(os.fspath(paths_or_glob))
               and "**" not in os.fspath(paths_or_glob))
    paths = None
    if not by_value and type(values) is list and 0 < len(values) <= 64 and (progress is None or progress is False):
        # A user's lookup (a few plain values): expansion, typing, pruning and
        # the table in one native call, unless the values or the first file
        # need the general path below (None).
        target = os.fsencode(paths_or_glob) if pattern else expand_paths(paths_or_glob)
        res = _pqfast._prune_local(target, column, values, int(threads or 0), use_statistics, use_bloom, cache)
        if res is not None and "batch" in res:  # (no batch: string columns past 2 GiB, see verdict_batch.h)
            return verdict_table([(res, None)], None, len(values), False, values, on_error)
        paths = None if pattern else target
    if paths is None:
        paths = _pqfast._glob_paths(os.fsencode(paths_or_glob)) if pattern else expand_paths(paths_or_glob)
    if not paths:
        empty = {"path": pa.array([], pa.string()), "row_group": pa.array([], pa.int32()),
                 "verdict": pa.array([], pa.string()), "reason": pa.array([], pa.string())}
        if by_value:
            empty["value"] = pa.array([], pa.string())
        return pa.table(empty)
    # The values are typed by the column as the first readable file declares it.
    desc = None
    first_error = None
    for p in paths:
        try:
            desc = _column_descriptor(p, column, filesystem, cache)
            break
        except (FormatError, KeyError, OSError) as e:
            first_error = e
            if on_error == "raise":
                raise FormatError(str(e).strip('"')) from None
    if desc is None:
        raise FormatError(f"no readable file has column {column!r}: {first_error}")
    raw_values = _as_list_or_array(values)
    desc = _with_duration_unit(desc, paths, column, filesystem, raw_values)
    pt, tl, data, offsets = encode_values(desc, raw_values)
    nv = len(offsets) - 1 if offsets is not None else (len(data) // (tl or {"INT32": 4, "INT64": 8, "FLOAT": 4, "DOUBLE": 8}[pt]))
    cb = None
    if progress is not None and progress is not False:
        from ._progress import Progress

        bar = progress if isinstance(progress, Progress) else Progress(total=len(paths), label="probe")
        bar.total = len(paths)
        cb = bar.advance
    res = _pqfast._prune_paths(paths, column, pt, tl, data, offsets, int(threads or 0), by_value,
                               use_statistics, use_bloom, cb, cache)
    return verdict_table([(res, None)], paths, nv, by_value, raw_values, on_error)


prune.__doc__ = (_prune.__doc__ or "") + """
    ``sidecar``: a sidecar index written by ``pqfast.index(..., sidecar=...)``
    (a path or an ``s3://`` URL; by default ``_pqfast_index`` is looked for
    beside the files, locally up to three parent directories, on S3 in the
    pattern's or prefix's directory; False: never), read only when some row
    group has no filter of its own. Those files are pruned again as the
    indexed files the sidecar describes: "no_filter" row groups become
    "absent" or "maybe" (the reason says "bloom filter (sidecar)"); entries of
    files changed since (size, mtime or footer; on S3 size or ETag) are
    ignored with a warning.
    """


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
    from .reader import read_table
    from .scan import partitioned_lake, scan_table

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
    if lake is not None:
        return scan_table(paths_or_glob, cols, threads=threads, filesystem=filesystem,
                          storage_options=storage_options, row_groups=kept)
    # With no row group kept, the source still types the empty table (its first file's footer alone is read).
    return scan_table(list(kept) if kept else paths_or_glob, cols, threads=threads, filesystem=filesystem,
                      storage_options=storage_options, row_groups=kept)


def kept_row_groups(pruned) -> dict[str, list[int]]:
    """{path: [row group]} of a :func:`prune` table's rows that are not "absent", in its order."""
    keep: dict[str, list[int]] = {}
    for path, rg, verdict in zip(pruned["path"].to_pylist(), pruned["row_group"].to_pylist(),
                                 pruned["verdict"].to_pylist()):
        if verdict != "absent":
            keep.setdefault(path, []).append(rg)
    return keep
