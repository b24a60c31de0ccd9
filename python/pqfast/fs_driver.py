"""Pruning through filesystem objects: ``pqfast.prune(paths, column, values,
filesystem=fs)``, drivers over the sans-IO core (:mod:`pqfast.sansio`). The
backends and ``resolve`` below also serve ``read_table(filters=...,
filesystem=fs)``: a lake lists and reads footers, and the streaming
scanner's I/O loop reads pages, through them (:class:`FilesystemIO`); a
file object is read as a filesystem of one file
(:func:`file_object_filesystem`).

Three drivers, chosen by what ``fs`` is:

- an fsspec filesystem with async support (``fs.async_impl``: s3fs, gcsfs,
  adlfs, http): sizes from the listing, then one ranged ``_cat_file`` of
  each file's tail, ``concurrency`` files in flight on the filesystem's own
  event loop (its HTTP session lives there). s3fs's connection pool is
  botocore's ``max_pool_connections``, 10 unless the filesystem was made
  with ``config_kwargs={"max_pool_connections": 256}``: files beyond the
  pool wait for a connection, so the pool, not ``concurrency``, bounds the
  rate.
- a pyarrow ``FileSystem``: sizes from ``get_file_info(FileSelector)`` for
  patterns and directories, then per file ``open_input_file`` and one
  ``read_at`` of the tail, on ``threads`` Python threads. pyarrow's Python
  API opens by path only, and its S3 filesystem sends a HEAD on every open
  (it skips it only for a C++ ``FileInfo``, which Python cannot pass): 1
  HEAD + 1 GET per file.
- any other fsspec filesystem (``file``, ...): sizes from the listing,
  ``fs.cat_file(path, start, end)`` on ``threads`` threads.

In all three the tail's length is learned from the footers seen so far
(:class:`pqfast.remote.TailHint`), further ranges the pruner asks for (the
footer when the tail was short, Bloom filters elsewhere) are read and fed
back, the first file's tail (read once to type the values) is not read
again, and a file's error (missing, denied, truncated) is reported by
``on_error`` as a local file's is, with any secret of the filesystem masked.

Explicit paths: a path not ending in ".parquet" is asked about once (a
directory is pruned recursively); for fsspec, the sizes of ".parquet"
paths come from one listing of their common parent when two or more share
it (s3fs answers from its listing cache when it has one), else from an
``info`` (a HEAD) per file, made concurrently with the reads.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from . import _optional, _pqfast
from ._paths import hidden_below
from ._progress import Progress
from .remote import TailHint, _NoCyclicGC, descriptor_and_tail, ran, run
from .sansio import Query

FormatError = _pqfast.FormatError
# A lake's sidecar index (pqfast._sidecar.DEFAULT_NAME): a directory's
# listing notes it (the scan then finds it without a request).
SIDECAR_NAME = "_pqfast_index"

# The first file's tail read to type the values (as the remote driver reads it).
_FIRST_TAIL = 256 * 1024


def _has_magic(p: str) -> bool:
    return any(ch in p for ch in "*?[")


# ---- what a filesystem is, and the few calls each kind needs --------------------------


class _PyArrow:
    """A pyarrow.fs.FileSystem."""

    kind = "pyarrow"

    def __init__(self, fs):
        self.fs = fs
        self.walked: dict = {}  # directories listed -> the size of the sidecar index in them (-1: none)
        self.pafs = pafs
        self.local = isinstance(fs, pafs.LocalFileSystem)

    def glob(self, pattern: str) -> list[tuple[str, int]]:
        # As expand_paths did: list the fixed part recursively, fnmatch the rest.
        base = pattern[: min(pattern.find(c) for c in "*?[" if c in pattern)]
        base = base.rsplit("/", 1)[0] if "/" in base else ""
        infos = self.fs.get_file_info(self.pafs.FileSelector(base or "/", recursive=True))
        self._note_sidecar(base or "/", infos)
        return sorted((i.path, i.size) for i in infos
                      if i.type == self.pafs.FileType.File and fnmatch.fnmatch(i.path, pattern))

    def _note_sidecar(self, d: str, infos) -> None:
        side = d.rstrip("/") + "/" + SIDECAR_NAME
        self.walked[d.rstrip("/")] = next((i.size for i in infos if i.path == side and i.size is not None), -1)

    def kind_of(self, path: str) -> tuple[str | None, int]:
        i = self.fs.get_file_info(path)
        t = {self.pafs.FileType.File: "file", self.pafs.FileType.Directory: "directory"}.get(i.type)
        return t, (i.size if i.size is not None else -1)

    def walk_parquet(self, d: str) -> list[tuple[str, int]]:
        infos = self.fs.get_file_info(self.pafs.FileSelector(d, recursive=True))
        self._note_sidecar(d, infos)
        return sorted((i.path, i.size) for i in infos
                      if i.type == self.pafs.FileType.File and i.path.endswith(".parquet") and not hidden_below(d, i.path))

    def list_sizes(self, _paths: list[str]) -> dict:
        # Opening a file costs a HEAD whatever we know, and it gives the size:
        # a listing would only add requests.
        return {}

    # Per file: open (the HEAD), then positional reads (safe across threads).
    def open(self, path: str, size: int):
        f = self.fs.open_input_file(path)
        return f.size(), f

    def read(self, h, path: str, off: int, n: int) -> bytes:
        return h.read_at(n, off)

    def close(self, h) -> None:
        if h is not None:
            h.close()


class _Fsspec:
    """An fsspec filesystem, through its blocking API."""

    kind = "fsspec"

    def __init__(self, fs):
        self.fs = fs
        self.walked: dict = {}  # directories listed -> the size of the sidecar index in them (-1: none)
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        self.local = protocol in ("file", "local")

    def _key(self, p: str) -> str:
        return self.fs._strip_protocol(p).rstrip("/")

    def glob(self, pattern: str) -> list[tuple[str, int]]:
        found = self.fs.glob(pattern, detail=True)
        return sorted((name, int(i["size"])) for name, i in found.items() if i.get("type") == "file")

    def kind_of(self, path: str) -> tuple[str | None, int]:
        i = self.fs.info(path)
        return i.get("type"), int(i.get("size") or -1)

    def walk_parquet(self, d: str) -> list[tuple[str, int]]:
        found = self.fs.find(d, detail=True)
        side = self._key(d) + "/" + SIDECAR_NAME
        self.walked[self._key(d)] = next((int(i["size"]) for n, i in found.items()
                                          if self._key(n) == side and i.get("type") == "file"), -1)
        return sorted((name, int(i["size"])) for name, i in found.items()
                      if i.get("type") == "file" and name.endswith(".parquet") and not hidden_below(d, name))

    def list_sizes(self, paths: list[str]) -> dict:
        """Sizes of explicit paths: one listing per parent that two or more share."""
        by_parent: dict = {}
        for p in paths:
            by_parent.setdefault(self.fs._parent(self._key(p)), []).append(p)
        out = {}
        for parent, ps in by_parent.items():
            if len(ps) < 2:
                continue
            try:
                listed = {self._key(i["name"]): i for i in self.fs.ls(parent, detail=True)}
            except (OSError, ValueError):
                continue  # each file's own request says what is wrong
            for p in ps:
                i = listed.get(self._key(p))
                if i is not None and i.get("type") == "file":
                    out[p] = int(i["size"])
        return out

    def open(self, path: str, size: int):
        if size < 0:
            size = int(self.fs.info(path)["size"])
        return size, None

    def read(self, h, path: str, off: int, n: int) -> bytes:
        return self.fs.cat_file(path, start=off, end=off + n)

    def close(self, h) -> None:
        pass


class _FsspecAsync(_Fsspec):
    """An fsspec filesystem with async methods: reads on its event loop."""

    kind = "fsspec-async"

    async def aopen(self, path: str, size: int) -> int:
        if size < 0:
            size = int((await self.fs._info(path))["size"])
        return size

    async def aread(self, path: str, off: int, n: int) -> bytes:
        return await self.fs._cat_file(path, start=off, end=off + n)


# ---- a file object as a filesystem of one file ---------------------------------------


class _Unclosed:
    """A caller's file object, read by pyarrow (``pa.PythonFile``) without
    being closed when pyarrow closes its handle: the caller owns it."""

    def __init__(self, f):
        self._f = f
        self.closed = False
        self.mode = "rb"

    def read(self, n=-1):
        return self._f.read(n)

    def seek(self, off, whence=0):
        return self._f.seek(off, whence)

    def tell(self):
        return self._f.tell()

    def readable(self):
        return True

    def seekable(self):
        return True

    def writable(self):
        return False

    def close(self):
        self.closed = True


class _OneFile(pafs.FileSystemHandler):
    """A pyarrow filesystem handler holding one binary file object under one
    name: the file object is then read as a file on a ``filesystem=`` is
    (``read_table(file_like, filters=...)``: the streaming scanner asks its
    ranges, which are read from it, one at a time)."""

    def __init__(self, name: str, f):
        self.name = name
        self.f = f
        if hasattr(f, "size") and callable(f.size):
            self.size = int(f.size())
        else:
            at = f.tell()
            f.seek(0, 2)
            self.size = f.tell()
            f.seek(at)

    def get_type_name(self):
        return "pqfast-file-object"

    def normalize_path(self, path):
        return path

    def _info(self, path):
        if path == self.name:
            return pafs.FileInfo(path, pafs.FileType.File, size=self.size)
        return pafs.FileInfo(path, pafs.FileType.NotFound)

    def get_file_info(self, paths):
        return [self._info(p) for p in paths]

    def get_file_info_selector(self, selector):
        return [self._info(self.name)]

    def open_input_file(self, path):
        if path != self.name:
            raise FileNotFoundError(path)
        # (pyarrow's read_at on it seeks and reads under its lock.)
        return pa.PythonFile(_Unclosed(self.f), mode="r")

    def open_input_stream(self, path):
        return self.open_input_file(path)

    def _read_only(self, *_args, **_kw):
        raise OSError("a file object is read only")

    create_dir = delete_dir = delete_dir_contents = delete_root_dir_contents = delete_file = _read_only
    move = copy_file = open_output_stream = open_append_stream = _read_only

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other


def is_file_object(source: Any) -> bool:
    """Whether `source` is a binary file object (not a path, nor a list)."""
    return hasattr(source, "read_at") or (hasattr(source, "read") and hasattr(source, "seek"))


def file_object_filesystem(f) -> tuple[Any, str]:
    """(a pyarrow filesystem holding file object `f`, its path there): `f`
    read through ``filesystem=`` as a file of one store is."""
    name = str(getattr(f, "name", "") or "file-object.parquet")
    if not name.endswith(".parquet"):
        name += ".parquet"  # (named alone, not listed: see _read_remote._listed_on)
    return pafs.PyFileSystem(_OneFile(name, f)), name


def backend_of(fs):
    if hasattr(fs, "open_input_file") and hasattr(fs, "get_file_info"):
        return _PyArrow(fs)
    if hasattr(fs, "cat_file") and hasattr(fs, "info") and hasattr(fs, "_strip_protocol"):
        return _FsspecAsync(fs) if getattr(fs, "async_impl", False) else _Fsspec(fs)
    raise TypeError(f"unsupported filesystem object {type(fs).__name__}: expected a pyarrow.fs.FileSystem "
                    "or an fsspec filesystem")


# ---- a lake's I/O on a filesystem (the streaming scanner's, its footers') ---------------


class FilesystemIO:
    """Paths on a pyarrow or fsspec filesystem, for a lake (its listing,
    footers) and the streaming scanner's I/O loop (``_stream_io``).
    Blocking backends read on a pool of threads (:func:`default_threads`:
    64 for remote stores, the cores for local ones); an async fsspec
    filesystem reads on its own event loop, where the scan then runs. A
    pyarrow file is opened once per lake (on S3 each open is a HEAD),
    except on the local filesystem, where a file kept open would be a
    descriptor per file of the lake."""

    def __init__(self, source: Any, filesystem: Any):
        self.fs = filesystem
        self.source = source
        self.be = backend_of(filesystem)
        self.secrets = secrets_of(filesystem)
        self._async = self.be.kind == "fsspec-async"
        self._keep_open = self.be.kind == "pyarrow" and not self.be.local
        self._pool = ThreadPoolExecutor(max_workers=default_threads(self.be))
        self._handles: dict = {}
        self._opening: dict = {}  # path -> lock held while its kept handle is opened
        self._sizes: dict = {}  # from the listing or the first open: an fsspec read then asks for no info
        self._lock = threading.Lock()
        self.directory = None
        if isinstance(source, (str, os.PathLike)) and not _has_magic(os.fspath(source)):
            # As the backend's listing names the files below it (fsspec: no protocol, an absolute local path).
            d = os.fspath(source)
            self.directory = self.be._key(d) if hasattr(self.be, "_key") else d.rstrip("/")

    async def _blocking(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def listing(self):
        """[(name, path, size, None)] of the source (``resolve``'s)."""
        return ran(self.run, self._list)

    async def _list(self):
        # In a thread: an async filesystem's blocking calls wait on the loop this runs on.
        items = await self._blocking(resolve, self.source, self.be, None, self.secrets)
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

    def run(self, main) -> None:
        """Awaits ``main()`` where the filesystem's reads run."""
        with _NoCyclicGC():
            if self._async:
                _run_on_fs_loop(self.fs, main)
            else:
                run(main())

    def close(self) -> None:
        with self._lock:
            handles, self._handles = list(self._handles.values()), {}
        for h in handles:
            self.be.close(h)
        self._pool.shutdown(wait=False)


# ---- errors: one line, secrets masked -------------------------------------------------

_SECRET_WORDS = ("secret", "token", "password", "passwd", "credential", "sas", "account_key", "signature")


def secrets_of(fs) -> list[str]:
    """Strings of ``fs``'s configuration that must not appear in messages."""
    found: list = []

    def walk(d, depth=0):
        if not isinstance(d, dict) or depth > 3:
            return
        for k, v in d.items():
            if isinstance(v, dict):
                walk(v, depth + 1)
            elif isinstance(v, str) and any(w in str(k).lower() for w in _SECRET_WORDS):
                found.append(v)

    for name in ("secret", "token", "secret_key", "session_token", "password"):
        v = getattr(fs, name, None)
        if isinstance(v, str):
            found.append(v)
    walk(getattr(fs, "storage_options", None))
    try:  # pyarrow's S3FileSystem pickles its options, secret included
        red = fs.__reduce__()
        if isinstance(red, tuple) and len(red) > 1 and red[1] and isinstance(red[1][0], dict):
            walk(red[1][0])
    except Exception:  # noqa: BLE001 - best effort
        pass
    return sorted({s for s in found if len(s) >= 6}, key=len, reverse=True)


_KINDS = ((FileNotFoundError, "not found"), (PermissionError, "access denied"),
          (IsADirectoryError, "is a directory"), (TimeoutError, "timed out"))


def describe_error(e: BaseException, secrets: list[str]) -> str:
    text = str(e).strip()
    first = text.splitlines()[0] if text else type(e).__name__
    # By the exception's type only: pyarrow's S3 filesystem raises a bare
    # OSError for a 403, its line keeps the server's ACCESS_DENIED.
    kind = next((w for t, w in _KINDS if isinstance(e, t)), None)
    line = f"{kind}: {first}" if kind else f"{type(e).__name__}: {first}"
    for s in secrets:
        line = line.replace(s, "***")
    return line[:500]


# ---- which files, and their sizes -----------------------------------------------------


def resolve(paths_or_glob: Any, be, sizes: dict | None = None, secrets: list[str] = ()) -> list[tuple[str, str, int]]:
    """(display, path, size) of the files named: a pattern (listed, with
    sizes), a directory (every *.parquet under it), a path or a list of them.
    size -1: not known yet (the file's own open or info finds it)."""
    single = isinstance(paths_or_glob, (str, os.PathLike))
    given = [os.fspath(paths_or_glob)] if single else [p if type(p) is str else os.fspath(p) for p in paths_or_glob]

    def listed(what: str, fn, arg):
        try:
            return [(q, q, s) for q, s in fn(arg)]
        except Exception as e:  # noqa: BLE001 - one clear line, secrets masked
            raise FormatError(f"{what}: cannot list: {describe_error(e, secrets)}") from None

    def ask(p: str):
        # Maybe a directory: one request for this path (not per file of a lake).
        try:
            t, s = be.kind_of(p)
        except (OSError, ValueError):
            return [(p, p, -1)]  # the file's own read reports what is wrong
        if t == "directory":
            return listed(p, be.walk_parquet, p)
        return [(p, p, s if t == "file" else -1)]

    slots: list = [None] * len(given)
    asks = []
    explicit: list = []
    for i, p in enumerate(given):
        if sizes is not None and p in sizes:
            slots[i] = [(p, p, int(sizes[p]))]
        elif _has_magic(p):
            slots[i] = listed(p, be.glob, p)
        elif single or not p.endswith(".parquet"):
            asks.append(i)
        else:
            slots[i] = [(p, p, -1)]
            explicit.append(p)
    if asks:
        # Concurrently: a list of extension-less paths is not a serial HEAD each.
        with ThreadPoolExecutor(max_workers=min(32, len(asks))) as pool:
            for i, got in zip(asks, pool.map(ask, [given[i] for i in asks])):
                slots[i] = got
    out = [it for slot in slots for it in slot]
    if explicit:
        known = be.list_sizes(explicit)
        if known:
            out = [(d, p, known.get(p, s)) if s < 0 else (d, p, s) for d, p, s in out]
    return out


def column_descriptor(be, items, column: str, on_error: str, secrets: list[str]):
    """The probed column's descriptor from the first readable file, the tail
    size it suggests, and that file's tail: (desc, tail_bytes, index, (size, start, bytes))."""
    first_error = None
    for idx, (display, path, size) in enumerate(items):
        h = None
        try:
            size, h = be.open(path, size)
            start = max(0, size - _FIRST_TAIL)
            tail = bytes(be.read(h, path, start, size - start))

            def read_at(off: int, n: int, _t=tail, _s=start, _h=h, _p=path):
                if off >= _s:
                    return _t[off - _s: off - _s + n]
                return bytes(be.read(_h, _p, off, n))

            desc, tail_bytes = descriptor_and_tail(read_at, size, display, column)
            return desc, tail_bytes, idx, (size, start, tail)
        except FormatError as e:
            first_error = str(e)
        except Exception as e:  # noqa: BLE001 - worded below, secrets masked
            first_error = f"{display}: {describe_error(e, secrets)}"
        finally:
            be.close(h)
        if on_error == "raise":
            raise FormatError(first_error)
    raise FormatError(f"no readable file has column {column!r}: {first_error}")


# ---- one file -------------------------------------------------------------------------


def _from_tail(tail, off: int, n: int):
    """The bytes [off, off + n) when the kept first tail holds them, else None."""
    if tail is None:
        return None
    _size, start, data = tail
    if off >= start and off + n <= start + len(data):
        return data[off - start: off - start + n]
    return None


def _failed(query, p, display: str, e: BaseException, secrets):
    msg = f"{display}: {describe_error(e, secrets)}"
    if p is None:
        p = query.file(display, 12, 64)
    p.fail(msg)
    return p


def prune_file_sync(be, query, item, hint: TailHint, secrets, tail=None):
    """One file through blocking reads (a thread of the pool)."""
    display, path, size = item
    p = h = None
    opened = False
    try:
        if tail is not None:
            size = tail[0]
        else:
            size, h = be.open(path, size)
            opened = True
        p = query.file(display, size, hint.bytes)
        while not p.done:
            for off, n in p.needs:
                data = _from_tail(tail, off, n)
                if data is None:
                    if not opened:
                        _, h = be.open(path, size)
                        opened = True
                    data = be.read(h, path, off, n)
                p.feed(off, data)
                if p.done:
                    break
    except Exception as e:  # noqa: BLE001 - a file's error, reported with it
        p = _failed(query, p, display, e, secrets)
    finally:
        be.close(h)
    hint.learn(p.footer_length, p.filter_span)
    return p


async def prune_file_async(be, query, item, hint: TailHint, secrets, tail=None):
    """One file through the filesystem's async API."""
    display, path, size = item
    p = None
    try:
        size = tail[0] if tail is not None else await be.aopen(path, size)
        p = query.file(display, size, hint.bytes)
        while not p.done:
            needs = p.needs
            todo = [(off, n) for off, n in needs if _from_tail(tail, off, n) is None]
            got = dict(zip(todo, await asyncio.gather(*(be.aread(path, off, n) for off, n in todo))))
            for off, n in needs:
                data = got.get((off, n))
                p.feed(off, data if data is not None else _from_tail(tail, off, n))
                if p.done:
                    break
    except Exception as e:  # noqa: BLE001 - a file's error, reported with it
        p = _failed(query, p, display, e, secrets)
    hint.learn(p.footer_length, p.filter_span)
    return p


# ---- many files -----------------------------------------------------------------------


def _prune_threads(be, query, items, workers: int, hint, secrets, first, advance):
    idx, tail = first
    out: list = [None] * len(items)
    it = iter(range(len(items)))  # shared: each thread takes the next file (no future per file)

    def worker():
        for i in it:
            out[i] = prune_file_sync(be, query, items[i], hint, secrets, tail if i == idx else None)
            if advance is not None:
                advance(1)

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(items)))) as pool:
        for f in [pool.submit(worker) for _ in range(max(1, min(workers, len(items))))]:
            f.result()
    return out


async def _prune_async(be, query, items, concurrency: int, hint, secrets, first, advance):
    idx, tail = first
    out: list = [None] * len(items)
    it = iter(range(len(items)))

    async def worker():
        for i in it:
            out[i] = await prune_file_async(be, query, items[i], hint, secrets, tail if i == idx else None)
            if advance is not None:
                advance(1)

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(items))))))
    return out


def _run_on_fs_loop(fs, coro_fn, *args):
    """Runs on the filesystem's own loop: its HTTP session belongs to it
    (fsspec's IO thread for a blocking-mode instance)."""
    sync = _optional.load("fsspec.asyn").sync

    loop = getattr(fs, "loop", None)
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop is None or (running is not None and running is loop):
        raise RuntimeError("pqfast.prune with an asynchronous fsspec filesystem cannot run on that filesystem's "
                           "own event loop: call it from a thread (await asyncio.to_thread(pqfast.prune, ...))")
    return sync(loop, coro_fn, *args)


def default_threads(be) -> int:
    # Remote stores: threads mostly wait on the network. Local: the cores.
    return (os.cpu_count() or 4) if getattr(be, "local", False) else 64


def prune_filesystem(paths_or_glob: Any, column: str, values: Any, filesystem: Any, *,
                     threads: int | None = None, concurrency: int = 256, by_value: bool = False,
                     use_statistics: bool = True, use_bloom: bool = True, on_error: str = "raise",
                     progress: Any = None, sizes: dict | None = None, coalesce_gap: int = 1 << 20):
    """pqfast.prune(..., filesystem=fs) (see the module's docstring).
    ``threads``: files in flight for pyarrow and blocking fsspec filesystems
    (default 64; the cores for local ones); ``concurrency``: for async fsspec
    filesystems (default 256); ``sizes`` maps paths to sizes already known."""
    be = backend_of(filesystem)
    secrets = secrets_of(filesystem)
    items = resolve(paths_or_glob, be, sizes, secrets)
    if not items:
        return _empty_table(by_value)
    desc, tail_bytes, idx, tail = column_descriptor(be, items, column, on_error, secrets)
    query = Query(column, values, desc, by_value=by_value, use_statistics=use_statistics, use_bloom=use_bloom,
                  coalesce_gap=coalesce_gap)
    advance = None
    if progress is not None and progress is not False:
        bar = progress if isinstance(progress, Progress) else Progress(total=len(items), label="probe")
        bar.total = len(items)
        advance = bar.advance
    hint = TailHint(tail_bytes)
    if be.kind == "fsspec-async":
        pruners = _run_on_fs_loop(filesystem, _prune_async, be, query, items, int(concurrency), hint, secrets,
                                  (idx, tail), advance)
    else:
        pruners = _prune_threads(be, query, items, int(threads or default_threads(be)), hint, secrets,
                                 (idx, tail), advance)
    return query.table(pruners, on_error)


def _empty_table(by_value: bool):
    cols = {"path": pa.array([], pa.string()), "row_group": pa.array([], pa.int32()),
            "verdict": pa.array([], pa.string()), "reason": pa.array([], pa.string())}
    if by_value:
        cols["value"] = pa.array([], pa.string())
    return pa.table(cols)


__all__ = ("prune_filesystem", "backend_of", "resolve")
