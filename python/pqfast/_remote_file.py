"""An object in a store opened as pyarrow's filesystems open files, so that
``ParquetFile(key, filesystem=ObjectStoreFS(store))`` reads it by ranged GETs
(positional reads: safe from the reader's threads)."""

from __future__ import annotations

from . import _optional


class _ObjectFile:
    def __init__(self, store, key: str, size: int):
        self._store, self._key, self._size = store, key, size

    def size(self) -> int:
        return self._size

    def read_at(self, n: int, offset: int) -> bytes:
        obstore = _optional.load("obstore")

        if n <= 0:
            return b""
        return bytes(obstore.get_range(self._store, self._key, start=int(offset), length=int(n)))

    def close(self) -> None:
        pass


class ObjectStoreFS:
    """open_input_file(key) for keys of `store` whose sizes are known (`sizes`:
    {key: size}; a key without one is asked for with a HEAD)."""

    def __init__(self, store, sizes: dict | None = None):
        self._store = store
        self._sizes = dict(sizes or {})

    def open_input_file(self, key: str) -> _ObjectFile:
        obstore = _optional.load("obstore")

        size = self._sizes.get(key)
        if size is None or size < 0:
            size = int(obstore.head(self._store, key)["size"])
        return _ObjectFile(self._store, key, size)
