"""Probe and filter values of time types, turned into what the file stores.

``read_table`` returns INT96 columns as ``timestamp[ns]`` and Arrow durations
(plain INT64 with the unit in the embedded ``ARROW:schema``) as
``duration[unit]``: a lookup takes the values it returns (datetime,
pandas.Timestamp, numpy.datetime64; timedelta, pandas.Timedelta,
numpy.timedelta64) and gets the bytes the writers hashed and compared.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_NANOS_PER_DAY = 86_400 * 10**9
# Julian day number of 1970-01-01: INT96 timestamps count days from the Julian epoch.
_JULIAN_UNIX_EPOCH = 2_440_588
_UNIT_NANOS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def epoch_nanos(v: Any) -> int | None:
    """Nanoseconds since 1970-01-01 of a datetime-like value (naive: as given;
    aware: in UTC, as Arrow stores it), None when `v` is not one."""
    if isinstance(v, np.datetime64):
        if np.isnat(v):
            return None
        return int(v.astype("datetime64[ns]").astype(np.int64))
    if isinstance(v, _dt.datetime):
        delta = v - (_EPOCH_UTC if v.tzinfo is not None else _EPOCH)
        us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return us * 1000 + int(getattr(v, "nanosecond", 0))  # pandas.Timestamp keeps nanoseconds
    return None


def int96_bytes(nanos: int) -> bytes:
    """The 12-byte INT96 timestamp of `nanos` since the epoch, as Spark,
    Impala and parquet-java write it: nanoseconds of the day (little-endian
    int64), then the Julian day (little-endian int32)."""
    days, nod = divmod(int(nanos), _NANOS_PER_DAY)
    julian = days + _JULIAN_UNIX_EPOCH
    if not 0 <= julian < 2**31:
        raise OverflowError(f"{nanos} ns is outside the INT96 range")
    return nod.to_bytes(8, "little", signed=True) + julian.to_bytes(4, "little", signed=True)


def duration_count(v: Any, unit: str) -> int | None:
    """A timedelta-like value as a count of `unit` ("s", "ms", "us", "ns");
    None when `v` is not one. A value finer than the unit is refused."""
    if isinstance(v, np.timedelta64):
        if np.isnat(v):
            return None
        nanos = int(v.astype("timedelta64[ns]").astype(np.int64))
    elif isinstance(v, _dt.timedelta):
        nanos = ((v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds) * 1000
        nanos += int(getattr(v, "nanoseconds", 0))  # pandas.Timedelta
    else:
        return None
    per = _UNIT_NANOS[unit]
    if nanos % per:
        raise ValueError(f"{v!r} is finer than the column's unit ({unit})")
    return nanos // per
