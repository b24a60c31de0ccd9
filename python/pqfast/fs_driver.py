"""Pruning through filesystem objects: ``pqfast.prune(paths, column, values,
filesystem=fs)``, drivers over the sans-IO core (:mod:`pqfast.sansio`). The
backends and ``resolve`` below also serve ``read_table(filters=...,
filesystem=fs)``: the staged scan lists and reads through them
(``pqfast._scan_io.FilesystemIO``).

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
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from . import _optional, _pqfast
from ._paths import hidden_below
from ._progress import Progress
from .remote import TailHint, descriptor_and_tail
from .sansio import Query

FormatError = _pqfast.FormatError

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

        self.pafs = pafs
        self.local = isinstance(fs, pafs.LocalFileSystem)

    def glob(self, pattern: str) -> list[tuple[str, int]]:
        # As expand_paths did: list the fixed part recursively, fnmatch the rest.
        base = pattern[: min(pattern.find(c) for c in "*?[" if c in pattern)]
        base = base.rsplit("/", 1)[0] if "/" in base else ""
        infos = self.fs.get_file_info(self.pafs.FileSelector(base or "/", recursive=True))
        return sorted((i.path, i.size) for i in infos
                      if i.type == self.pafs.FileType.File and fnmatch.fnmatch(i.path, pattern))

    def kind_of(self, path: str) -> tuple[str | None, int]:
        i = self.fs.get_file_info(path)
        t = {self.pafs.FileType.File: "file", self.pafs.FileType.Directory: "directory"}.get(i.type)
        return t, (i.size if i.size is not None else -1)

    def walk_parquet(self, d: str) -> list[tuple[str, int]]:
        infos = self.fs.get_file_info(self.pafs.FileSelector(d, recursive=True))
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


def backend_of(fs):
    if hasattr(fs, "open_input_file") and hasattr(fs, "get_file_info"):
        return _PyArrow(fs)
    if hasattr(fs, "cat_file") and hasattr(fs, "info") and hasattr(fs, "_strip_protocol"):
        return _FsspecAsync(fs) if getattr(fs, "async_impl", False) else _Fsspec(fs)
    raise TypeError(f"unsupported filesystem object {type(fs).__name__}: expected a pyarrow.fs.FileSystem "
                    "or an fsspec filesystem")


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
