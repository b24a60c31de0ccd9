"""Where a staged scan's bytes come from (``scan._scan_staged``): the listing
of a source and ranged reads of its files, behind one small interface so that
the staged engine is the same for every store.

- :class:`ObjectStoreIO`: ``s3://`` URLs through obstore (the Rust
  object_store client), async, listings with ETags and modification times
  (what scans keep between calls is keyed by them).
- :class:`FilesystemIO`: paths on a filesystem object (a pyarrow
  ``FileSystem``, an fsspec filesystem, an async one such as s3fs) through
  :mod:`pqfast.fs_driver`'s backends; the listing is ``fs_driver.resolve``'s.

Each offers:

- ``source``: what the caller named (for messages);
- ``cache_key``: the store's name in what scans keep (tails, pruners'
  footers, listings); ``pattern``: the source when it is one pattern whose
  listing is kept (None: none kept);
- ``fetcher(f)``: the scan's fetcher (``scan._Fetcher`` over this I/O), or
  one wrapping it;
- ``async list()``: ``[(name, key, size, version)]`` in the order the scan
  reads them; ``size`` -1 when unknown, ``version`` None when the listing
  gives none (nothing is then kept for the next scan); ``listing()``: the
  same, listed now (partitions are decided from it before a scan starts);
  ``given``: a listing made before, which ``list()`` then returns instead
  of listing again (a partitioned lake's scans each read some of its files);
- ``directory``: the directory or prefix the source names, whose
  ``key=value`` levels are partition keys; None for anything else (files,
  patterns, lists);
- ``async read(key, offset, length)``, and ``async suffix(key, n)``:
  ``(size, the last n bytes or fewer)`` of a file whose size the listing
  did not give;
- ``describe(e)``: one line, secrets masked;
- ``parquet_file(key, size)``: a :class:`pqfast.ParquetFile` over the same
  store (nested columns are read after the engine);
- ``run(main)``: awaits ``main()`` on the event loop the store needs;
  ``close()``.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import fs_driver, _optional, _pqfast, remote
from ._file import ParquetFile
from ._remote_file import ObjectStoreFS
from ._sidecar_s3 import ScanOverlay
from .remote import _NoCyclicGC, run

FormatError = _pqfast.FormatError


class ObjectStoreIO:
    """One bucket of an S3-compatible store (obstore). A sidecar index beside
    the objects (``pqfast.index(..., sidecar=...)``): the objects a fresh
    entry covers are read as object + tail (``_sidecar_s3.ScanOverlay``, a
    wrapper of the fetcher that the listing informs)."""

    def __init__(self, source: Any, storage_options: dict | None):
        self._remote = remote
        self.source = source
        self.urls = [source] if isinstance(source, str) else list(source)
        if not self.urls:
            raise FormatError(f"invalid argument: no objects match {source!r}")
        buckets = {remote.split_url(u)[0] for u in self.urls}
        if len(buckets) != 1:
            raise ValueError(f"one bucket per call; got {sorted(buckets)}")
        self.store = remote.make_store(next(iter(buckets)), storage_options)
        self.cache_key = remote.normalise_options(storage_options).get("endpoint", "")
        self.pattern = source if isinstance(source, str) and remote._selection(source) is not None else None
        self.overlay = None
        self.list_requests = 0  # listing pages fetched (explicit URLs: none)
        self.sidecars: dict = {}  # sidecar objects the listing passed: key -> (size, e_tag)
        self.given = None
        key = remote.split_url(source)[1] if isinstance(source, str) else None
        self.directory = source if key is not None and (key == "" or key.endswith("/")) else None

    def fetcher(self, fetcher):
        self.overlay = ScanOverlay(fetcher, self.store)
        self.overlay.listed = self.sidecars
        return self.overlay

    async def _list_objects(self):
        remote = self._remote
        out = []
        for u in self.urls:
            if remote._selection(u) is None:
                out.append((u, remote.split_url(u)[1], -1, None))
                continue
            versions: dict = {}
            got = []
            async for page in remote._listed_pages(self.store, u, versions, self.sidecars):
                self.list_requests += 1
                got.extend(page)
            got.sort(key=lambda it: it[1].encode())
            out.extend((url, key, size, versions.get(url)) for url, key, size in got)
        return out

    def listing(self):
        return _ran(self.run, self._list_objects)

    async def list(self):
        out = list(self.given) if self.given is not None else await self._list_objects()
        # Objects a sidecar covers: listed as object + tail.
        return await self.overlay.attach(out, self.urls)

    async def read(self, key: str, offset: int, length: int):
        obstore = _optional.load("obstore")

        return await obstore.get_range_async(self.store, key, start=int(offset), length=int(length))

    async def suffix(self, key: str, n: int):
        obstore = _optional.load("obstore")

        # One GET gives the size too.
        r = await obstore.get_async(self.store, key, options={"range": {"suffix": int(n)}})
        return int(r.meta["size"]), await r.bytes_async()

    def describe(self, e: BaseException) -> str:
        return self._remote.describe_error(e, self.store)

    def parquet_file(self, key: str, size: int):
        # An object a sidecar covers is read at its own size (its footer is the tail's).
        sizes = self.overlay.object_sizes([(None, key, size, None)])
        return ParquetFile(key, filesystem=ObjectStoreFS(self.store, sizes))

    def run(self, main) -> None:
        with self._remote._NoCyclicGC():
            self._remote.run(main())

    def close(self) -> None:
        pass


class FilesystemIO:
    """Paths on a pyarrow or fsspec filesystem. Blocking backends read on a
    pool of threads (fs_driver's count: 64 for remote stores, the cores for
    local ones); an async fsspec filesystem reads on its own event loop, where
    the scan then runs. A pyarrow file is opened once per scan (on S3 each
    open is a HEAD), except on the local filesystem, where a file kept open
    would be a descriptor per file of the lake."""

    cache_key = None
    pattern = None
    list_requests = None  # not known: the backend's listing calls are its own

    def __init__(self, source: Any, filesystem: Any):
        self._driver = fs_driver
        self.fs = filesystem
        self.source = source
        self.be = fs_driver.backend_of(filesystem)
        self.secrets = fs_driver.secrets_of(filesystem)
        self._async = self.be.kind == "fsspec-async"
        self._keep_open = self.be.kind == "pyarrow" and not self.be.local
        self._pool = ThreadPoolExecutor(max_workers=fs_driver.default_threads(self.be))
        self._handles: dict = {}
        self._opening: dict = {}  # path -> lock held while its kept handle is opened
        self._sizes: dict = {}  # from the listing or the first open: an fsspec read then asks for no info
        self._lock = threading.Lock()
        self.given = None
        self.directory = None
        if isinstance(source, (str, os.PathLike)) and not fs_driver._has_magic(os.fspath(source)):
            # As the backend's listing names the files below it (fsspec: no protocol, an absolute local path).
            d = os.fspath(source)
            self.directory = self.be._key(d) if hasattr(self.be, "_key") else d.rstrip("/")

    def fetcher(self, fetcher):
        return fetcher

    async def _blocking(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def listing(self):
        return _ran(self.run, self.list)

    async def list(self):
        if self.given is not None:
            return list(self.given)
        # In a thread: an async filesystem's blocking calls wait on the loop this runs on.
        items = await self._blocking(self._driver.resolve, self.source, self.be, None, self.secrets)
        with self._lock:
            self._sizes.update((path, size) for _, path, size in items if size >= 0)
        return [(name, path, size, None) for name, path, size in items]

    def _opened(self, path: str):
        """(size, handle or None) of a file, its kept handle when there is one.
        A handle kept open is opened once: reads of the file asked together
        (the streaming scanner asks a row group's chunks of many files at
        once, footers known) wait for that open, not each one its own (a
        HEAD each on S3: 100 for 100 chunks of 10 files)."""
        with self._lock:
            h = self._handles.get(path)
            size = self._sizes.get(path, -1)
            if h is not None:
                return size, h
            opening = self._opening.setdefault(path, threading.Lock()) if self._keep_open else None
        if opening is None:
            size, h = self.be.open(path, size)
            with self._lock:
                self._sizes[path] = size
            return size, h
        with opening:
            with self._lock:
                h = self._handles.get(path)
                if h is not None:
                    return self._sizes.get(path, -1), h
            size, h = self.be.open(path, size)
            with self._lock:
                self._sizes[path] = size
                self._handles[path] = h
                self._opening.pop(path, None)
        return size, h

    def _with_file(self, path: str, fn):
        """fn(size, handle) on the opened file, closed after unless kept open."""
        size, h = self._opened(path)
        try:
            return fn(size, h)
        finally:
            if not self._keep_open:
                self.be.close(h)

    def known_sizes(self, sizes) -> None:
        """(path, size) pairs known already (a listing's; -1: not known)."""
        with self._lock:
            self._sizes.update((p, int(n)) for p, n in sizes if n >= 0)

    def size_of(self, path: str) -> int:
        """A file's size as its listing or its open gave it (-1: not known yet)."""
        with self._lock:
            return self._sizes.get(path, -1)

    def kept_open(self) -> bool:
        """Whether files stay open between reads (pyarrow on an object store:
        each open is a HEAD), so that one open serves a footer and the pages."""
        return self._keep_open

    def footer(self, path: str, first: int):
        """(parsed footer, tail bytes) of file `path`, read through this I/O
        (blocking): its last `first` bytes, then the rest of a longer footer.
        The file's kept handle is the one the scan's reads then use, and the
        tail (page indexes, Bloom filters near the end) is fed to it from
        memory."""
        def parse(size, h):
            n = min(size, first)
            tail = bytes(self.be.read(h, path, size - n, n))
            try:
                need = int(_pqfast._row_group_ranges(tail, size, [])[0])
                if need > len(tail):
                    tail = bytes(self.be.read(h, path, size - need, need - len(tail))) + tail
                return _pqfast._parse_file_metadata(tail[-need:-8]), tail
            except (FormatError, MemoryError) as e:
                raise FormatError(f"{path}: {e}") from None

        return self._with_file(path, parse)

    def _read_blocking(self, path: str, offset: int, length: int):
        return self._with_file(path, lambda _, h: bytes(self.be.read(h, path, offset, length)))

    def _suffix_blocking(self, path: str, n: int):
        def last(size, h):
            start = max(0, size - n)
            return size, bytes(self.be.read(h, path, start, size - start))

        return self._with_file(path, last)

    async def read(self, key: str, offset: int, length: int):
        if self._async:
            return await self.be.aread(key, offset, length)
        return await self._blocking(self._read_blocking, key, offset, length)

    async def suffix(self, key: str, n: int):
        # The size from an open (pyarrow: its HEAD) or an info (fsspec).
        if self._async:
            size = await self.be.aopen(key, -1)
            start = max(0, size - n)
            return size, await self.be.aread(key, start, size - start)
        return await self._blocking(self._suffix_blocking, key, n)

    def describe(self, e: BaseException) -> str:
        return self._driver.describe_error(e, self.secrets)

    def parquet_file(self, key: str, size: int):
        return ParquetFile(key, filesystem=self.fs)

    def run(self, main) -> None:
        with _NoCyclicGC():
            if self._async:
                self._driver._run_on_fs_loop(self.fs, main)
            else:
                run(main())

    def close(self) -> None:
        with self._lock:
            handles, self._handles = list(self._handles.values()), {}
        for h in handles:
            self.be.close(h)
        self._pool.shutdown(wait=False)


def _ran(run, make):
    """What coroutine ``make()`` returns, awaited by an I/O's ``run`` (which
    gives nothing back)."""
    box = {}

    async def main():
        box["v"] = await make()

    run(main)
    return box["v"]
