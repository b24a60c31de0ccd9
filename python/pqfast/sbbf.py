"""pqfast.Sbbf: the Parquet Split Block Bloom Filter."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _pqfast
from ._values import _check_type, _fixed_width, hash_values

_FUSED_TYPES = ("INT32", "INT64", "FLOAT", "DOUBLE")


class Sbbf:
    """A Parquet Split Block Bloom Filter (bit-identical to the spec and Arrow C++).

    Create one with ``Sbbf(num_bytes)`` (a positive multiple of 32),
    ``Sbbf.for_ndv(ndv, fpp)`` (Arrow C++'s sizing), ``Sbbf.from_bitset(buf)``
    (a raw bitset) or ``Sbbf.parse(buf)`` (header + bitset as in a Parquet file).
    """

    __slots__ = ("_f",)

    def __init__(self, num_bytes: int):
        self._f = _pqfast._Sbbf.with_num_bytes(int(num_bytes))

    @classmethod
    def _wrap(cls, native: Any) -> "Sbbf":
        obj = cls.__new__(cls)
        obj._f = native
        return obj

    @classmethod
    def for_ndv(cls, ndv: int, fpp: float) -> "Sbbf":
        """An empty filter sized for ``ndv`` distinct values at false-positive rate ``fpp``."""
        return cls._wrap(_pqfast._Sbbf.for_ndv(int(ndv), float(fpp)))

    @staticmethod
    def optimal_num_bytes(ndv: int, fpp: float) -> int:
        """Arrow C++'s size for (ndv, fpp): a power of two from 32 B to 128 MiB."""
        return _pqfast._Sbbf.optimal_num_bytes(int(ndv), float(fpp))

    @classmethod
    def from_bitset(cls, buffer: Any) -> "Sbbf":
        """A filter over a copy of a raw bitset (no header)."""
        return cls._wrap(_pqfast._Sbbf.from_bitset(buffer))

    @classmethod
    def parse(cls, buffer: Any) -> "Sbbf":
        """A filter from its on-disk form: Thrift BloomFilterHeader then bitset."""
        return cls._wrap(_pqfast._Sbbf.parse(buffer))

    @property
    def num_bytes(self) -> int:
        return self._f.num_bytes

    @property
    def num_blocks(self) -> int:
        return self._f.num_blocks

    @property
    def bitset(self) -> bytes:
        """The raw bitset (num_bytes bytes)."""
        return self._f.bitset()

    def fill_ratio(self) -> float:
        """Fraction of bits set."""
        return self._f.fill_ratio()

    def insert_hashes(self, hashes: Any) -> None:
        self._f.insert_hashes(np.ascontiguousarray(hashes, dtype=np.uint64))

    def check_hashes(self, hashes: Any) -> np.ndarray:
        """A numpy bool array: True where the hash may be present."""
        return self._f.check_hashes(np.ascontiguousarray(hashes, dtype=np.uint64))

    def insert_hash(self, hash: int) -> None:
        self._f.insert_hash(int(hash))

    def check_hash(self, hash: int) -> bool:
        return self._f.check_hash(int(hash))

    def insert(self, values: Any, physical_type: str, type_length: int | None = None) -> None:
        """Insert typed values (hashed as the Parquet spec says)."""
        self.insert_hashes(hash_values(values, physical_type, type_length))

    def check(self, values: Any, physical_type: str, type_length: int | None = None) -> np.ndarray:
        """Probe typed values; a numpy bool array, False = definitely absent."""
        t = _check_type(physical_type)
        if t in _FUSED_TYPES:
            # Hash and probe in one native pass, no intermediate hash array.
            data, n, _ = _fixed_width(values, t, None)
            return self._f.check_values(data, n, t, 0)
        return self.check_hashes(hash_values(values, t, type_length))

    def fold(self, target_fpp: float) -> int:
        """Fold to the smallest size meeting ``target_fpp`` (as Arrow C++ 25+); returns the halvings."""
        return self._f.fold(float(target_fpp))

    def serialize(self) -> bytes:
        """Header + bitset, the bytes a Parquet writer stores."""
        return self._f.serialize()

    def copy(self) -> "Sbbf":
        return Sbbf._wrap(self._f.copy())

    def __contains__(self, hash: int) -> bool:
        return self.check_hash(hash)

    def __repr__(self) -> str:
        return f"pqfast.Sbbf(num_bytes={self.num_bytes}, fill={self.fill_ratio():.3f})"


def check_product(filters: "list[Sbbf]", values: Any, physical_type: str | None = None,
                  type_length: int | None = None) -> np.ndarray:
    """The IN-list x filters product, one native call for all pairs.

    ``filters`` are the Bloom filters of one column (e.g. one per row group);
    ``values`` are typed values (with ``physical_type``) or, when
    ``physical_type`` is None, uint64 hashes. Returns a bool array of shape
    (len(values), len(filters)): True where the filter may hold the value.
    """
    if physical_type is None:
        hashes = np.ascontiguousarray(values, dtype=np.uint64)
    else:
        hashes = hash_values(values, physical_type, type_length)
    return _pqfast._sbbf_check_product([f._f for f in filters], hashes)
