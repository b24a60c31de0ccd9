"""Statistics bounds of timestamps decoded as pyarrow's as_py() gives them
(the filter verdicts compare them with the user's values): milliseconds
and microseconds, naive and UTC, negative, at the ends of Python's range
and past them (None, as an OverflowError there)."""

from __future__ import annotations

import pyarrow as pa

from pqfast._encode import _decode_stat

_LT_TIMESTAMP = 8


def _want(v: int, unit: str, tz):
    try:
        return pa.scalar(v, pa.timestamp(unit, tz=tz)).as_py()
    except (OverflowError, ValueError):
        return None


def test_timestamp_bounds_equal_pyarrows_as_py():
    values = [0, 1, -1, 999, -1001, 1_700_000_000_123_456, 1_700_000_000_123, -62_135_596_800_000_000,
              -62_135_596_800_001, 253_402_300_799_999_999, 253_402_300_799_999, 253_402_300_800_000_000, 2 ** 62,
              -(2 ** 62)]
    checked = 0
    for unit_id, unit in ((0, "ms"), (1, "us")):
        for utc in (False, True):
            desc = {"physical_type": "INT64", "converted_type": None,
                    "logical_type": {"kind": _LT_TIMESTAMP, "unit": unit_id, "adjusted_to_utc": utc}}
            for v in values:
                got = _decode_stat(v.to_bytes(8, "little", signed=True), desc)
                want = _want(v, unit, "UTC" if utc else None)
                assert got == want and type(got) is type(want), (unit, utc, v, got, want)
                if want is not None:
                    assert (got.tzinfo is None) == (not utc) and got.utcoffset() == want.utcoffset()
                    checked += 1
    assert checked >= 30, checked
