"""Values and column descriptors: a user's values encoded as a column stores
them (``encode_values``: what probes, filters and sidecars hash or compare),
and statistics bounds decoded into Python values typed as pyarrow types them.

Below everything that takes values from users (filters, pruning, the I/O
drivers) and above only the native module: it knows no files, no I/O.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import itertools as _itertools
import uuid as _uuid
import zoneinfo as _zoneinfo
from typing import Any, Iterable

import numpy as np
import pyarrow as pa

from . import _pqfast
from ._errors import INVALID_ARGUMENT, UNSUPPORTED, format_error
from ._time_values import duration_count, epoch_nanos, int96_bytes
from ._values import _fixed_width

FormatError = _pqfast.FormatError

# LogicalType kinds (parquet.thrift LogicalType union ids).
_LT_STRING, _LT_ENUM, _LT_DECIMAL, _LT_DATE, _LT_TIME, _LT_TIMESTAMP = 1, 4, 5, 6, 7, 8
_LT_INTEGER, _LT_JSON, _LT_BSON, _LT_UUID, _LT_FLOAT16 = 10, 12, 13, 14, 15
_UNITS = ("ms", "us", "ns")
_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_UTC_ZONE = _zoneinfo.ZoneInfo("UTC")  # the tzinfo pyarrow's as_py() gives "UTC" timestamps


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

                tz = "UTC" if (kind == _LT_TIMESTAMP and lt["adjusted_to_utc"]) or kind != _LT_TIMESTAMP else None
                if unit < 2:
                    # pyarrow's as_py() for ms and us, without building a scalar (20 us a bound: the
                    # row group verdicts of every scan over a timestamp decode two per row group).
                    t = _EPOCH + (_dt.timedelta(milliseconds=v) if unit == 0 else _dt.timedelta(microseconds=v))
                    return t.replace(tzinfo=_UTC_ZONE) if tz else t
                return pa.scalar(v, pa.timestamp(_UNITS[unit], tz=tz)).as_py()
            if kind == _LT_TIME or conv in ("TIME_MILLIS", "TIME_MICROS"):
                unit = lt["unit"] if kind == _LT_TIME else (0 if conv == "TIME_MILLIS" else 1)

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


def _column_error(desc: dict, message: str, code: str = INVALID_ARGUMENT) -> FormatError:
    """An error about a value for the column `desc` (its message names it)."""
    return format_error(message, code, column=desc["dotted_path"])


def _bad(desc: dict, v: Any, want: str) -> Exception:
    return _column_error(desc,
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
        raise _column_error(desc, f"invalid argument: {v} has more than {scale} decimal places "
                          f"for column {desc['dotted_path']!r}")
    return int(unscaled)


def integer_range(desc: dict) -> tuple[int, int] | None:
    """(lo, hi) of a plain integer column (INT32/INT64 without a date, time,
    timestamp, decimal or duration meaning; its width and sign from the
    logical or converted type); None for any other column."""
    lt = desc["logical_type"]
    kind, conv, pt = lt["kind"], desc["converted_type"], desc["physical_type"]
    if pt not in ("INT32", "INT64") or kind not in (0, _LT_INTEGER) or desc.get("duration_unit"):
        return None
    if conv and not conv.startswith(("UINT_", "INT_")):
        return None
    return _stored_range(desc)


def _stored_range(desc: dict) -> tuple[int, int]:
    """(lo, hi) of the integers an INT32/INT64 column stores: its physical
    width, or the logical/converted type's width and sign."""
    lt = desc["logical_type"]
    kind, conv = lt["kind"], desc["converted_type"]
    bits = 32 if desc["physical_type"] == "INT32" else 64
    unsigned = (kind == _LT_INTEGER and not lt["is_signed"]) or (conv or "").startswith("UINT")
    width = lt["bit_width"] if kind == _LT_INTEGER and lt["bit_width"] else bits
    if conv and conv.startswith(("UINT_", "INT_")) and kind != _LT_INTEGER:
        width = int(conv.split("_")[1])
    return (0, (1 << width) - 1) if unsigned else (-(1 << (width - 1)), (1 << (width - 1)) - 1)


def _int_value(desc: dict, v: Any) -> int:
    """An INT32/INT64 column value as the integer stored (before wrap to the width)."""
    lt = desc["logical_type"]
    kind, conv = lt["kind"], desc["converted_type"]
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
                    raise _column_error(desc, f"invalid argument: {v} has sub-millisecond digits; column "
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

        try:
            count = duration_count(v, unit)
        except ValueError as e:
            raise _column_error(desc, f"invalid argument: {e} (column {desc['dotted_path']!r})") from None
        if count is None:
            raise _bad(desc, v, f"datetime.timedelta values or integers of {unit}")
        v = count
    if not _is_int(v):
        if isinstance(v, (_dt.timedelta, np.timedelta64)):
            raise _bad(desc, v, "integers (the file's schema names no duration unit)")
        raise _bad(desc, v, "integers")
    v = int(v)
    lo, hi = _stored_range(desc)
    if not lo <= v <= hi:
        raise _column_error(desc, f"invalid argument: {v} is out of range for column {desc['dotted_path']!r} "
                          f"({_describe(desc)}: {lo}..{hi})")
    return v


def _fixed_bytes(desc: dict, v: Any) -> bytes:
    lt = desc["logical_type"]
    kind, conv, n = lt["kind"], desc["converted_type"], desc["type_length"]
    if desc["physical_type"] == "INT96":
        n = 12
        # read_table gives INT96 columns as timestamp[ns]: its values (and
        # integers of nanoseconds) become the 12 bytes the writers stored.

        nanos = int(v) if _is_int(v) else epoch_nanos(v)
        if nanos is not None:
            try:
                return int96_bytes(nanos)
            except OverflowError as e:
                raise _column_error(desc, f"invalid argument: {e} (column {desc['dotted_path']!r})") from None
    elif kind == _LT_DECIMAL or conv == "DECIMAL":
        u = _decimal_unscaled(desc, v)
        try:
            return u.to_bytes(n, "big", signed=True)
        except OverflowError:
            raise _column_error(desc, f"invalid argument: {v} does not fit column {desc['dotted_path']!r} "
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
        raise _column_error(desc, f"invalid argument: value {b!r} has {len(b)} bytes; column "
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
        raise _column_error(desc, f"invalid argument: column {desc['dotted_path']!r} is BOOLEAN: "
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
            raise _column_error(desc, code=UNSUPPORTED, message=f"invalid argument: column {desc['dotted_path']!r} is a BYTE_ARRAY "
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
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.null_count:
            raise FormatError("invalid argument: null values have no hash; drop them first")
        if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
            return values.to_numpy(zero_copy_only=False)
        return values.to_pylist()
    if isinstance(values, Iterable):
        out = list(values)
        if any(v is None for v in out):
            raise FormatError("invalid argument: None has no hash (nulls are not in Bloom filters)")
        return out
    raise TypeError(f"values must be a value or an iterable of values, got {type(values).__name__}")
