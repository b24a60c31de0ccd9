"""Sidecar indexes (format in ``pqfast._sidecar``) of remote sources: on S3
written by ``pqfast.index(urls, columns, sidecar=True | "s3://bucket/key")``
beside the objects (``_index_sidecar.S3Target``), read here for ``prune``
and for scans of s3:// URLs; on a ``filesystem=``, ``_pqfast_index`` in the
lake's directory (written locally by ``pqfast.index(dir, sidecar=True)``),
for its scans. A scan gets the tails (:class:`RemoteTails`) and the C++
scanner reads each covered file as object + tail (the overlay local files
use too, ``ScanPlanFile::sidecar_tail``): its I/O loop reads the ranges the
scanner says lie in the sidecar from the sidecar.

Where: ``_pqfast_index`` in the directory a pattern or prefix lists
(``s3://b/lake/*.parquet`` and ``s3://b/lake/`` -> ``s3://b/lake/_pqfast_index``),
for a list of URLs their common directory; or the URL given. The listing of
a pattern shows the sidecar, so finding it costs a scan no request; a list
of URLs costs one HEAD.

An entry holds while the object has the size and ETag it recorded. A reader
sees a fresh object as object + tail: offsets below the object's size are
ranged GETs of the object, the others ranged GETs of the sidecar at the
tail's offset (a read across the boundary is two GETs). ``prune`` drives its
sans-IO pruners so here (``read_overlay``); scans are told the split by the
scanner.
"""

from __future__ import annotations

import asyncio
import posixpath
import threading
import warnings
from typing import Any, NamedTuple

from . import _optional, _pqfast, remote, _sidecar
from ._sidecar import TAIL_BYTES, Entry
from .remote import is_url, _selection, split_url
from .sansio import Query, descriptor

_IN_FLIGHT = 256


def etag(v: Any) -> str:
    """An ETag without the quotes S3 puts around it (botocore keeps them, obstore not always)."""
    return str(v).strip('"') if v else ""


def _dir_of(url: str) -> str:
    sel = _selection(url)
    return sel[0].rstrip("/") if sel is not None else posixpath.dirname(split_url(url)[1])


def location(source: Any, sidecar: Any = None) -> tuple[str, str]:
    """(bucket, key) of the sidecar of ``source``: the one named (an s3:// URL
    in the objects' bucket), else ``_pqfast_index`` in their directory."""
    urls = [source] if isinstance(source, str) else list(source)
    bucket = split_url(urls[0])[0]
    if sidecar not in (None, True):
        if not is_url(sidecar):
            raise ValueError(f"sidecar= for s3:// objects must be an s3:// URL, not {sidecar!r}")
        b, key = split_url(sidecar)
        if b != bucket or not key or key.endswith("/"):
            raise ValueError(f"sidecar {sidecar!r}: an object in the bucket {bucket!r} of the data")
        return b, key
    dirs = [_dir_of(u) for u in urls]
    common = "" if any(not d for d in dirs) else posixpath.commonpath(dirs)
    return bucket, (common + "/" if common else "") + _sidecar.DEFAULT_NAME


def rel(side_key: str, key: str) -> str:
    return posixpath.relpath(key, posixpath.dirname(side_key) or ".")


def fresh(e: Entry | None, size: int, tag: Any) -> bool:
    return e is not None and e.etag is not None and e.size == size and etag(e.etag) == etag(tag)


async def read_manifest(get, key: str, size: int, where: str) -> dict[str, Entry]:
    """The entries of the sidecar object ``key`` of ``size`` bytes;
    ``get(key, offset, n)`` is an async ranged read. FormatError when malformed."""
    head = bytes(await get(key, 0, min(size, TAIL_BYTES)))
    mlen = _sidecar.manifest_length(head[:_sidecar.HEADER], size, where)
    raw = head[_sidecar.HEADER:_sidecar.HEADER + mlen]
    if len(raw) < mlen:
        raw += bytes(await get(key, len(head), _sidecar.HEADER + mlen - len(head)))
    return _sidecar.parse_manifest(raw, size, where)


async def read_overlay(get, key: str, side_key: str, e: Entry, off: int, n: int) -> bytes:
    """Bytes [off, off + n) of object ``key`` with its tail appended."""
    n = max(0, min(n, e.size + e.length - off))
    parts = []
    if off < e.size:
        take = min(n, e.size - off)
        parts.append(get(key, off, take))
        off, n = off + take, n - take
    if n:
        parts.append(get(side_key, e.offset + off - e.size, n))
    return b"".join(bytes(p) for p in await asyncio.gather(*parts))


async def _tail(get, key: str, side_key: str, e: Entry) -> bytes:
    """The last bytes of the object + tail, its whole footer in them."""
    size = e.size + e.length
    n = min(size, TAIL_BYTES)
    tail = await read_overlay(get, key, side_key, e, size - n, n)
    need = _pqfast._row_group_ranges(tail, size, [])[0]
    if need > len(tail):
        tail = await read_overlay(get, key, side_key, e, size - need, need - len(tail)) + tail
    return tail


def apply_remote(table, column: str, values: Any, source: Any, sidecar: Any, storage_options, by_value: bool,
                 use_statistics: bool = True):
    """prune's table for s3:// URLs with the sidecar's verdicts for the
    objects that have "no_filter" rows and a fresh entry (see
    _sidecar.with_sidecar_verdicts). Requests: one round of HEADs (the
    sidecar, those objects), the manifest, then per object the tail and the
    Bloom filter blocks the pruner asks for. No sidecar: the table as it is;
    a malformed one or a tail that does not parse: the same, with a warning."""
    obstore = _optional.load("obstore")

    bucket, side_key = location(source, sidecar)
    where = f"s3://{bucket}/{side_key}"
    store = remote.make_store(bucket, storage_options)
    paths = table.column("path").to_pylist()
    verdicts = table.column("verdict").to_pylist()
    todo = list(dict.fromkeys(p for p, v in zip(paths, verdicts) if v == "no_filter"))
    gate = asyncio.Semaphore(_IN_FLIGHT)

    async def get(key, off, n):
        async with gate:
            return await obstore.get_range_async(store, key, start=int(off), length=int(n))

    async def head(key):
        async with gate:
            return await obstore.head_async(store, key)

    async def main():
        keys = [remote.split_url(u)[1] for u in todo]
        heads = await asyncio.gather(head(side_key), *(head(k) for k in keys), return_exceptions=True)
        if isinstance(heads[0], FileNotFoundError):
            return None
        if isinstance(heads[0], BaseException):
            raise heads[0]
        files = await read_manifest(get, side_key, int(heads[0]["size"]), where)
        judged, stale = [], []
        for url, key, h in zip(todo, keys, heads[1:]):
            e = files.get(rel(side_key, key))
            if e is None or isinstance(h, BaseException):
                continue
            (judged if fresh(e, int(h["size"]), h.get("e_tag")) else stale).append((url, key, e))
        _sidecar.warn_stale(where, [u for u, _, _ in stale], stacklevel=6)
        if not judged:
            return None
        tails = await asyncio.gather(*(_tail(get, k, side_key, e) for _, k, e in judged))
        first = judged[0]
        q = Query(column, values, descriptor(tails[0], first[2].size + first[2].length, column, first[0]),
                  by_value=by_value, use_statistics=use_statistics)

        async def one(item, tail):
            url, key, e = item
            size = e.size + e.length
            p = q.file(url, size, len(tail))
            p.feed(size - len(tail), tail)
            while not p.done:
                needs = p.needs
                got = await asyncio.gather(*(read_overlay(get, key, side_key, e, o, n) for o, n in needs))
                for (o, _), d in zip(needs, got):
                    p.feed(o, d)
                    if p.done:
                        break
            return p

        pruners = await asyncio.gather(*(one(it, t) for it, t in zip(judged, tails)))
        return q.table(list(pruners))

    try:
        judged = remote.run(main())
    except Exception as e:  # noqa: BLE001 - unreadable or malformed: the table as the objects give it
        msg = e if isinstance(e, _pqfast.FormatError) else f"{where}: {remote.describe_error(e, store)}"
        warnings.warn(f"pqfast: sidecar ignored: {msg}", stacklevel=3)
        return table
    return table if judged is None else _sidecar.with_sidecar_verdicts(table, judged, by_value)


# ---- scans of s3:// URLs and filesystem= paths -----------------------------------------

# Set while a scan runs again without sidecars (a tail that did not parse):
# scans started meanwhile in other threads read without them too, which
# costs them speed, never rows.
_OFF = threading.Event()
# Scans that read objects through a sidecar, counted: a scan that fails
# after this moved may owe its error to a sidecar's tail. (The count is
# shared by threads: another scan's sidecar costs a failed scan one retry.)
_attached = [0]


class RemoteTails(NamedTuple):
    """A sidecar's tails for a fed scan (``_pqfast._Scanner``'s
    ``sidecar_size`` and ``tails``; the remote twin of
    ``_sidecar.local_tails``): the sidecar's key (its path on a filesystem),
    its size, per file (object size, tail offset, tail length) or
    (-1, 0, 0), its version ("" when none: what pruning learns of the files
    read with it is then not kept), and how many files have a tail. The
    scanner reads each file with a tail as object + tail (the one overlay,
    in C++: ScanPlanFile::sidecar_tail)."""

    key: str
    size: int
    tails: list
    version: str
    used: int


async def _counted_head(fetcher, store, key: str):
    obstore = _optional.load("obstore")

    rnd = fetcher.step("sidecar")
    fetcher._started(rnd)
    try:
        return await obstore.head_async(store, key)
    finally:
        fetcher._done(rnd, 0)


def _judged(items: list, files: dict, rel_of, fresh_of) -> tuple[list, list, int]:
    """(per item its tail or (-1, 0, 0), the stale items' names, tails used)."""
    tails, stale, used = [], [], 0
    for it in items:
        e = files.get(rel_of(it))
        if e is not None and fresh_of(it, e):
            tails.append((e.size, e.offset, e.length))
            used += 1
            continue
        tails.append((-1, 0, 0))
        if e is not None:
            stale.append(it[0])
    return tails, stale, used


# Manifests parsed before, by (endpoint, sidecar URL, size, ETag): a
# sidecar rewritten gets another ETag, so a warm scan of a listed lake
# reads no manifest (one round fewer). Bounded.
_manifests: dict = {}
_MANIFESTS_MAX = 64
_manifests_lock = threading.Lock()


def _keep_manifest(key, files: dict) -> None:
    if key is None:
        return
    with _manifests_lock:
        if len(_manifests) >= _MANIFESTS_MAX:
            _manifests.pop(next(iter(_manifests)))
        _manifests[key] = files


async def object_tails(fetcher, store, items: list, urls: list, listed: dict,
                       endpoint: str = "") -> RemoteTails | None:
    """The tails of the sidecar beside s3:// objects (``location``) for the
    listing's (url, key, size, version) items, or None when no fresh entry
    covers one. Finding it costs no request when the listing showed it
    (``listed``: key -> (size, ETag)), else one HEAD; then its manifest (one
    or two GETs; none when one of that size and ETag was parsed before at
    ``endpoint``) and a HEAD per object the listing did not size. Stale
    entries are warned about; an unreadable or malformed sidecar is ignored
    with a warning."""
    if _OFF.is_set() or not items:
        return None
    bucket, side_key = location(urls)
    where = f"s3://{bucket}/{side_key}"
    try:
        if all(remote._selection(u) is not None for u in urls):
            if side_key not in listed:
                return None
            side_size, side_tag = listed[side_key]
        else:
            try:
                h = await _counted_head(fetcher, store, side_key)
            except FileNotFoundError:
                return None
            side_size, side_tag = int(h["size"]), h.get("e_tag")
        kept = (endpoint, where, int(side_size), etag(side_tag)) if etag(side_tag) else None
        files = _manifests.get(kept) if kept is not None else None
        if files is None:
            files = await read_manifest(lambda k, o, n: fetcher.get("sidecar", k, o, n), side_key, side_size, where)
            _keep_manifest(kept, files)
        unsized = [it for it in items if it[2] < 0 and rel(side_key, it[1]) in files]
        heads = dict(zip([it[1] for it in unsized],
                         await asyncio.gather(*(_counted_head(fetcher, store, it[1]) for it in unsized))))
    except Exception as e:  # noqa: BLE001 - unreadable or malformed: the objects are read as they are
        msg = e if isinstance(e, _pqfast.FormatError) else f"{where}: {remote.describe_error(e, store)}"
        warnings.warn(f"pqfast: sidecar ignored: {msg}", stacklevel=2)
        return None

    def fresh_of(it, e):
        if it[1] in heads:
            return fresh(e, int(heads[it[1]]["size"]), heads[it[1]].get("e_tag"))
        return fresh(e, it[2], it[3][0] if it[3] else None)

    tails, stale, used = _judged(items, files, lambda it: rel(side_key, it[1]), fresh_of)
    _sidecar.warn_stale(where, stale, stacklevel=2)
    if not used:
        return None
    _attached[0] += 1
    return RemoteTails(side_key, int(side_size), tails, etag(side_tag), used)


async def filesystem_tails(fetcher, io, directory: str, items: list, listed: int | None) -> RemoteTails | None:
    """The tails of ``_pqfast_index`` in ``directory`` of a ``filesystem=``
    lake for its (name, path, size, tail bytes or None) items, or None. An
    entry holds while the file has the size it recorded and the XXH64 of
    its last 64 KiB (read with its footer) is the one recorded: the
    filesystem's listing gives no modification time, which a local read
    checks too. Entries of objects (an ETag) are not judged here. Found by
    the lake's listing (``listed``: the sidecar's size in ``directory``, -1
    or None: none, or not listed), so it costs no request but its
    manifest's reads: paths named one by one and fsspec globs are read
    without a sidecar (a look-up would cost every read a request)."""
    if _OFF.is_set() or not items or not directory:
        return None
    side = posixpath.join(directory, _sidecar.DEFAULT_NAME)
    if listed is None or listed < 0:
        return None
    size = listed
    try:
        io.known_sizes([(side, size)])  # (its reads then ask the filesystem for no size)
        files = await read_manifest(lambda k, o, n: fetcher.get("sidecar", k, o, n), side, int(size), side)
    except Exception as e:  # noqa: BLE001 - unreadable or malformed: the files are read as they are
        msg = e if isinstance(e, _pqfast.FormatError) else f"{side}: {e.__class__.__name__}"
        warnings.warn(f"pqfast: sidecar ignored: {msg}", stacklevel=2)
        return None

    def fresh_of(it, e):
        _, _, n, tail = it
        if n != e.size or len(tail) < min(n, TAIL_BYTES):
            return False
        return f"{_pqfast.xxh64(bytes(tail[len(tail) - min(n, TAIL_BYTES):])):016x}" == e.tail_xxh64

    files = {r: e for r, e in files.items() if e.tail_xxh64 is not None}
    # (A file whose footer planning did not read is read as it is, not called stale.)
    rel_of = lambda it: posixpath.relpath(it[1], directory) if it[3] is not None else None  # noqa: E731
    tails, stale, used = _judged(items, files, rel_of, fresh_of)
    _sidecar.warn_stale(side, stale, stacklevel=2)
    if not used:
        return None
    _attached[0] += 1
    return RemoteTails(side, int(size), tails, "", used)


def scan_or_fallback(scan):
    """scan() (a read of s3:// URLs through the scanner); when it fails with FormatError
    after reading tails from a sidecar, a warning and the scan again without
    sidecars."""
    before = _attached[0]
    try:
        return scan()
    except _pqfast.FormatError as e:
        if _attached[0] == before:
            raise
        warnings.warn(f"pqfast: sidecar ignored: {e}", stacklevel=3)
    _OFF.set()
    try:
        return scan()
    finally:
        _OFF.clear()
