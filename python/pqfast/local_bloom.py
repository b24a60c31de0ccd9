"""pqfast.LocalBloom: RocksDB's cache-local Bloom filter (FastLocalBloom)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _pqfast


def _pack_keys(keys: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Byte keys as (uint8 data, int64 offsets) in Arrow layout."""
    if isinstance(keys, (bytes, bytearray, memoryview, str)):
        raise TypeError("keys must be a sequence of bytes objects (or a numpy uint64 array of hashes), not a single value")
    items = [bytes(k) if not isinstance(k, bytes) else k for k in keys]
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    if items:
        np.cumsum(np.fromiter((len(k) for k in items), dtype=np.int64, count=len(items)), out=offsets[1:])
    data = np.frombuffer(b"".join(items), dtype=np.uint8)
    return data, offsets


def _is_hashes(keys: Any) -> bool:
    if isinstance(keys, np.ndarray):
        if keys.dtype == np.uint64:
            return True
        raise TypeError(f"a numpy array of keys must hold uint64 hashes, not {keys.dtype}")
    return False


def rocksdb_hash64(data: Any) -> int:
    """RocksDB's 64-bit key hash (``Hash64`` / ``GetSliceHash64``, seed 0) of a bytes-like object."""
    return _pqfast.rocksdb_hash64(data)


class LocalBloom:
    """RocksDB's FastLocalBloom filter, bit-compatible with format_version=5 full filters.

    ``LocalBloom.build(keys, bits_per_key)`` builds what RocksDB builds for the
    same keys (a list of bytes, hashed with RocksDB's key hash) or hashes (a
    numpy uint64 array, used as given); ``serialize()`` gives the filter block
    RocksDB stores (5-byte trailer included) and ``LocalBloom.parse(buf)``
    reads one. ``check(keys)`` answers with a numpy bool array.
    """

    __slots__ = ("_f",)

    def __init__(self) -> None:
        raise TypeError("use LocalBloom.build(keys, bits_per_key) or LocalBloom.parse(buffer)")

    @classmethod
    def _wrap(cls, native: Any) -> "LocalBloom":
        obj = object.__new__(cls)
        obj._f = native
        return obj

    @classmethod
    def build(cls, keys: Any, bits_per_key: float) -> "LocalBloom":
        """A filter over ``keys`` (list of bytes, or numpy uint64 hashes) at ``bits_per_key``."""
        if _is_hashes(keys):
            return cls._wrap(_pqfast._LocalBloom.build_from_hashes(np.ascontiguousarray(keys), float(bits_per_key)))
        data, offsets = _pack_keys(keys)
        return cls._wrap(_pqfast._LocalBloom.build_from_keys(data, offsets, float(bits_per_key)))

    @classmethod
    def with_shape(cls, payload_bytes: int, num_probes: int) -> "LocalBloom":
        """An empty filter of ``payload_bytes`` (a multiple of 64) and ``num_probes`` (1..30)."""
        return cls._wrap(_pqfast._LocalBloom.with_shape(int(payload_bytes), int(num_probes)))

    @classmethod
    def parse(cls, buffer: Any) -> "LocalBloom":
        """A filter from a RocksDB full-filter block (payload + 5-byte trailer).

        Always-false (<= 5 bytes) and always-true blocks parse into filters that
        answer accordingly; Legacy Bloom, Ribbon and reserved trailers raise
        ``pqfast.FormatError`` naming the filter.
        """
        return cls._wrap(_pqfast._LocalBloom.parse(buffer))

    @property
    def num_probes(self) -> int:
        return self._f.num_probes

    @property
    def num_lines(self) -> int:
        return self._f.num_lines

    @property
    def payload_bytes(self) -> int:
        return self._f.payload_bytes

    @property
    def kind(self) -> str:
        """``fast_local_bloom``, ``always_false`` or ``always_true``."""
        return self._f.kind

    def fill_ratio(self) -> float:
        return self._f.fill_ratio()

    def insert(self, keys: Any) -> None:
        """Add keys (list of bytes) or hashes (numpy uint64) to the filter as it is sized."""
        if _is_hashes(keys):
            hashes = np.ascontiguousarray(keys)
        else:
            hashes = _pqfast._rocksdb_hash64_keys(*_pack_keys(keys))
        self._f.insert_hashes(hashes)

    def check(self, keys: Any) -> np.ndarray:
        """A numpy bool array: True where the key (or hash) may be present."""
        if _is_hashes(keys):
            return self._f.check_hashes(np.ascontiguousarray(keys))
        return self._f.check_keys(*_pack_keys(keys))

    def serialize(self) -> bytes:
        """The RocksDB filter block: payload then the 5-byte trailer."""
        return self._f.serialize()

    def copy(self) -> "LocalBloom":
        return LocalBloom._wrap(self._f.copy())

    def __contains__(self, key: bytes) -> bool:
        return bool(self.check([key])[0])

    def __repr__(self) -> str:
        return (f"pqfast.LocalBloom(kind={self.kind}, payload_bytes={self.payload_bytes}, "
                f"num_probes={self.num_probes})")
