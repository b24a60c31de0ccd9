"""Sidecar index files: what ``pqfast.index`` would append to each data file
(Bloom filters, ColumnIndex / OffsetIndex, the new footer), kept in one file
beside the lake instead, for tables whose metadata pins each data file's size
and checksum, so the files must not change.

Readers see each data file as the file ``index`` would have made: bytes
[0, size) from the data file, then its tail from the sidecar (in C++ an
``OverlayFile``; on object storage ranged GETs of both). Nothing else
changes: the scan engine and the pruner find the filters and page indexes by
the offsets in the tail's footer, as in any indexed file.

Format (version 2), all integers little-endian:

    offset 0   8 bytes   magic "PQFASTIX"
    offset 8   u32       format version (2)
    offset 12  u32       manifest length M
    offset 16  M bytes   manifest, UTF-8 JSON (below)
    then       tails     per data file, the bytes ``index`` would append to it:
                         [Bloom filters][ColumnIndex...][OffsetIndex...]
                         [FileMetaData][u32 length]["PAR1"]; the offsets in
                         them count from the data file's start, as if appended

    manifest = {"format": "pqfast-index", "version": 2, "created_by": "pqfast <version>",
                "files": [{"path": "<relative to the sidecar's directory, '/'-separated>",
                           "size": <data file bytes>,
                           "mtime_ns": <int>, "tail_xxh64": "<16 hex digits>",   (local files)
                           "etag": "<the object's ETag>",                         (s3:// objects)
                           "offset": <the tail's offset in the sidecar>, "length": <its bytes>}]}

A data file's entry holds while the file is as recorded: locally its size,
mtime and the XXH64 of its last 64 KiB (the footer); on S3 its size and ETag.
Otherwise the entry is stale: readers ignore it and say so (a warning), and
the next ``index`` run rebuilds it. Indexing again plans each fresh file as
data file + tail, so only chunks without a filter get one and the new bytes
go after the old tail (a second run with the same columns adds nothing).

Readers treat the sidecar as hostile: a bad magic, an unknown version, a
malformed manifest or a tail outside the file makes the whole sidecar
ignored, with a warning; a tail whose bytes do not parse makes the read fall
back to the data files alone, with a warning. Version 1 (Bloom filters only,
pqfast before page indexes were kept) is refused with a message to run
``index`` again, which replaces it.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import time
import warnings
from typing import Any, NamedTuple

import pyarrow as pa

from . import _pqfast
from ._file import _column_descriptor
from ._pqfast import __version__
from .sansio import Query

MAGIC = b"PQFASTIX"
VERSION = 2
HEADER = 16
DEFAULT_NAME = "_pqfast_index"
TAIL_BYTES = 64 * 1024
MAX_MANIFEST = 1 << 30
_MIN_TAIL = 12  # a footer's smallest tail: 4 bytes of FileMetaData at least, length, "PAR1"
_MAX_INT = 1 << 62


class Entry(NamedTuple):
    """One data file's entry: what it must still match, and where its tail is."""

    size: int
    mtime_ns: int | None
    tail_xxh64: str | None
    etag: str | None
    offset: int
    length: int


class _StatCache:
    """Values computed from a local file, kept while a stat(2) of it gives
    the same (device, inode, size, mtime, ctime), as git's index keeps
    hashes: only for files last changed _RACY_NS before the value was made,
    since a write in the same tick of a coarse file-system clock leaves the
    stat unchanged (a writer that puts the mtime back still moves the
    ctime). Bounded: the oldest entries go first."""

    _RACY_NS = 2_000_000_000
    _MAX = 1 << 16

    def __init__(self):
        self.map: dict = {}
        self.lock = threading.Lock()

    @staticmethod
    def key(st) -> tuple:
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def get(self, path: str):
        try:
            k = self.key(os.stat(path))
        except OSError:
            return None
        with self.lock:
            hit = self.map.get(path)
        return hit[1] if hit is not None and hit[0] == k else None

    def get_many(self, paths: list[str]) -> list:
        """get() of each path, their stats taken in one native call."""
        try:
            keys = _pqfast._stat_keys(paths)
        except (TypeError, UnicodeError):  # names that are not UTF-8: one by one
            return [self.get(p) for p in paths]
        with self.lock:
            hits = [self.map.get(p) for p in paths]
        return [None if h is None or k is None or h[0] != k else h[1] for h, k in zip(hits, keys)]

    def put(self, path: str, st, value) -> None:
        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < self._RACY_NS:
            return
        with self.lock:
            if len(self.map) >= self._MAX:
                self.map.pop(next(iter(self.map)))
            self.map[path] = (self.key(st), value)


_fingerprints = _StatCache()
_manifests = _StatCache()


def fingerprint(path: str, cached: bool = False) -> dict:
    """What a local data file must still match for its entry to hold.
    ``cached``: a fingerprint made before may answer (see _StatCache);
    writers of sidecars always read the file."""
    if cached and (fp := _fingerprints.get(path)) is not None:
        return fp
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        n = min(st.st_size, TAIL_BYTES)
        tail = os.pread(f.fileno(), n, st.st_size - n)
    fp = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "tail_xxh64": f"{_pqfast.xxh64(tail):016x}"}
    _fingerprints.put(path, st, fp)
    return fp


def manifest_length(head: bytes, total: int, where: str) -> int:
    """The manifest's length from the first 16 bytes; FormatError on a bad
    magic, version or length."""
    FormatError = _pqfast.FormatError
    if len(head) < HEADER or head[:8] != MAGIC:
        raise FormatError(f"corrupt: {where}: not a pqfast sidecar index (bad magic)")
    version, mlen = struct.unpack("<II", head[8:HEADER])
    if version == 1:
        raise FormatError(f"unsupported: {where}: sidecar format version 1 (Bloom filters only, written by an "
                          f"older pqfast); run pqfast.index(..., sidecar=...) again to replace it")
    if version != VERSION:
        raise FormatError(f"unsupported: {where}: sidecar format version {version} (this pqfast reads {VERSION})")
    if mlen > total - HEADER or mlen > MAX_MANIFEST:
        raise FormatError(f"corrupt: {where}: manifest of {mlen} bytes past the {total}-byte file")
    return mlen


def _int(v: Any, what: str, lo: int = 0) -> int:
    if type(v) is not int or not lo <= v < _MAX_INT:
        raise ValueError(f"{what} {v!r} is not an integer >= {lo}")
    return v


def parse_manifest(raw: bytes, total: int, where: str) -> dict[str, Entry]:
    """Entries by relative path; FormatError on anything malformed (the
    whole sidecar is then ignored: entries are not trusted one by one)."""
    start = HEADER + len(raw)
    try:
        m = json.loads(raw.decode("utf-8"))
        if not isinstance(m, dict) or m.get("format") != "pqfast-index" or m.get("version") != VERSION:
            raise ValueError("not a pqfast-index manifest of this version")
        if not isinstance(m.get("files"), list):
            raise ValueError("no list of files")
        files: dict[str, Entry] = {}
        for e in m["files"]:
            if not isinstance(e, dict):
                raise ValueError("a file entry is not an object")
            rel = e.get("path")
            if not isinstance(rel, str) or not rel or rel.startswith("/") or "\0" in rel:
                raise ValueError(f"path {rel!r} is not relative to the sidecar's directory")
            if rel in files:
                raise ValueError(f"{rel} listed twice")
            off, length = _int(e.get("offset"), "offset", start), _int(e.get("length"), "length", _MIN_TAIL)
            if off + length > total:
                raise ValueError(f"{rel}: tail at {off} of {length} bytes past the {total}-byte file")
            local = "etag" not in e
            mtime = _int(e.get("mtime_ns"), "mtime_ns", -_MAX_INT) if local else None
            xxh = e.get("tail_xxh64") if local else None
            etag = None if local else e.get("etag")
            if local and (not isinstance(xxh, str) or len(xxh) != 16):
                raise ValueError(f"{rel}: tail_xxh64 {xxh!r}")
            if not local and (not isinstance(etag, str) or not etag):
                raise ValueError(f"{rel}: etag {etag!r}")
            files[rel] = Entry(_int(e.get("size"), "size", _MIN_TAIL), mtime, xxh, etag, off, length)
        return files
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise _pqfast.FormatError(f"corrupt: {where}: bad sidecar manifest ({e})") from None


class Sidecar:
    """A parsed local sidecar: entries by relative path, freshness checked once per file."""

    def __init__(self, path: str, files: dict[str, Entry]):
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        self._under = os.path.join(self.dir, "")
        self.files = files
        self._fresh: dict[str, bool] = {}

    def rel(self, data_path: str) -> str:
        p = os.path.abspath(data_path)
        if p.startswith(self._under):  # the common case, without relpath's walk (a third of a lookup's cost)
            return p[len(self._under):].replace(os.sep, "/")
        return os.path.relpath(p, self.dir).replace(os.sep, "/")

    def fresh(self, rel: str) -> bool:
        if rel not in self._fresh:
            self.check_fresh([rel])
        return self._fresh[rel]

    def check_fresh(self, rels: list[str]) -> None:
        """fresh() of many files at once: the fingerprints kept from before
        (one native stat call for all), the others made."""
        todo = [r for r in rels if r not in self._fresh]
        local = [r for r in todo if (e := self.files.get(r)) is not None and e.etag is None]
        for r in todo:
            self._fresh[r] = False
        paths = [os.path.join(self.dir, r) for r in local]
        for rel, path, fp in zip(local, paths, _fingerprints.get_many(paths)):
            e = self.files[rel]
            try:
                fp = fp or fingerprint(path, cached=False)
            except OSError:
                continue
            self._fresh[rel] = (fp["size"], fp["mtime_ns"], fp["tail_xxh64"]) == (e.size, e.mtime_ns, e.tail_xxh64)

    def blob(self, e: Entry) -> bytes:
        with open(self.path, "rb") as f:
            return os.pread(f.fileno(), e.length, e.offset)


def read(path: str) -> Sidecar:
    """Parses a local sidecar (or takes the entries parsed before from a
    sidecar unchanged since); FormatError on anything malformed."""
    files = _manifests.get(path)
    if files is None:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            mlen = manifest_length(f.read(HEADER), st.st_size, path)
            files = parse_manifest(f.read(mlen), st.st_size, path)
        _manifests.put(path, st, files)
    return Sidecar(path, files)


def load(path: str, stacklevel: int = 4) -> Sidecar | None:
    """read(), or None with a warning when the sidecar is unreadable or malformed."""
    try:
        return read(path)
    except (OSError, _pqfast.FormatError) as e:
        warnings.warn(f"pqfast: sidecar ignored: {e}", stacklevel=stacklevel)
        return None


def encode(entries: list) -> tuple[bytes, int]:
    """(header + manifest, total size) of a sidecar holding ``entries``:
    (relative path, fingerprint dict, [tail parts]) in that order, each part
    bytes or (path, offset, length) of bytes in another file."""
    # Offsets depend on the manifest's length, which depends on the offsets'
    # digits: lay out with a guess, then again until the length is stable.
    mlen = 0
    for _ in range(8):
        off = HEADER + mlen
        files = []
        for rel, fp, parts in entries:
            n = sum(len(p) if isinstance(p, (bytes, bytearray, memoryview)) else p[2] for p in parts)
            files.append({"path": rel, **fp, "offset": off, "length": n})
            off += n
        manifest = json.dumps({"format": "pqfast-index", "version": VERSION, "created_by": f"pqfast {__version__}",
                               "files": files}, separators=(",", ":")).encode()
        if len(manifest) == mlen:
            break
        mlen = len(manifest)
    return MAGIC + struct.pack("<II", VERSION, len(manifest)) + manifest, off


def identity(path: str):
    """(device, inode, size, mtime, ctime) of a file, None when there is none:
    a sidecar replaced by another writer has another."""
    try:
        return _StatCache.key(os.stat(path))
    except FileNotFoundError:
        return None


def write(path: str, entries: list, expect: Any = False) -> int:
    """Writes a local sidecar atomically (temporary file + fsync + rename);
    returns its size. Parts that lie in another file are copied from it in
    pieces (the old sidecar's tails, never all in memory). ``expect``: the
    identity() the sidecar must still have just before the rename (another
    indexer's sidecar is not replaced: FormatError)."""
    head, total = encode(entries)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(head)
            for _, _, parts in entries:
                for p in parts:
                    if isinstance(p, (bytes, bytearray, memoryview)):
                        f.write(p)
                        continue
                    src, off, n = p
                    with open(src, "rb") as s:
                        while n:
                            chunk = os.pread(s.fileno(), min(n, 8 << 20), off)
                            if not chunk:
                                raise _pqfast.FormatError(f"truncated: {src}: ends inside a tail it lists")
                            f.write(chunk)
                            off += len(chunk)
                            n -= len(chunk)
            f.flush()
            os.fsync(f.fileno())
            assert f.tell() == total
        if expect is not False and identity(path) != expect:
            raise _pqfast.FormatError(f"{path}: replaced by another writer while this index was built; "
                                      f"run pqfast.index again")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return total


def find(paths: list[str]) -> str | None:
    """The sidecar beside the files (in the directory of the first, or a parent of it up to 3 levels)."""
    if not paths:
        return None
    d = os.path.dirname(os.path.abspath(os.fspath(paths[0])))
    for _ in range(4):
        p = os.path.join(d, DEFAULT_NAME)
        if os.path.isfile(p):
            return p
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def warn_stale(where: str, stale: list[str], stacklevel: int = 4) -> None:
    if stale:
        warnings.warn(f"pqfast: sidecar {where}: {len(stale)} file(s) changed since it was written "
                      f"(their entries are ignored; run pqfast.index(..., sidecar=...) again): "
                      f"{', '.join(sorted(stale)[:5])}", stacklevel=stacklevel)


def local_tails(paths: list[str], where: str | None = None):
    """For the scan: (sidecar path, per path (size, tail offset, tail length)
    or (-1, 0, 0), number of files with a tail), or None when no sidecar
    (``where``, else one found beside the files) has a fresh entry for any of
    them. Stale entries are warned about."""
    where = where or find(paths)
    if where is None:
        return None
    sc = load(where, stacklevel=5)
    if sc is None:
        return None
    tails, stale, used = [], [], 0
    rels = [sc.rel(p) for p in paths]
    sc.check_fresh(rels)
    for p, rel in zip(paths, rels):
        e = sc.files.get(rel)
        if e is not None and sc.fresh(rel):
            tails.append((e.size, e.offset, e.length))
            used += 1
        else:
            tails.append((-1, 0, 0))
            if e is not None:
                stale.append(p)
    warn_stale(where, stale, stacklevel=5)
    return (where, tails, used) if used else None


def drive(pruner, read) -> None:
    """Feeds a sans-IO pruner from read([(offset, length)]) -> [bytes] until it is done."""
    while not pruner.done:
        needs = pruner.needs
        for (off, _), data in zip(needs, read(needs)):
            pruner.feed(off, data)
            if pruner.done:
                break


def with_sidecar_verdicts(table, judged, by_value: bool):
    """prune's ``table`` with the rows of the files in ``judged`` (a table of
    the same shape, from the files read with their sidecar tails) replacing
    theirs: the sidecar's filters decide where the file's own metadata had no
    filter ("no_filter"); a reason that names a Bloom filter says
    "(sidecar)"."""
    key_cols = ["path", "row_group"] + (["value"] if by_value else [])
    new = {}
    for row in zip(*(judged.column(c).to_pylist() for c in key_cols + ["verdict", "reason"])):
        new[row[:len(key_cols)]] = row[len(key_cols):]
    verdicts = table.column("verdict").to_pylist()
    reasons = table.column("reason").to_pylist()
    keys = zip(*(table.column(c).to_pylist() for c in key_cols))
    for i, k in enumerate(keys):
        got = new.get(tuple(k))
        if got is None or verdicts[i] != "no_filter" or got[0] == "no_filter":
            continue
        verdicts[i] = got[0]
        reasons[i] = got[1].replace("bloom filter", "bloom filter (sidecar)", 1)
    cols = {name: table.column(name) for name in table.column_names}
    cols["verdict"] = pa.array(verdicts, pa.string())
    cols["reason"] = pa.array(reasons, pa.string())
    return pa.table(cols)


def apply(table, column: str, values: Any, where: str, by_value: bool, use_statistics: bool = True):
    """prune's verdicts with a local sidecar: the files with "no_filter" rows
    and a fresh entry are pruned again as data file + tail (the sans-IO
    pruner, fed by preads), and their rows replaced (with_sidecar_verdicts).
    Stale entries are ignored with a warning; a malformed sidecar or a tail
    that does not parse leaves the table as it was, with a warning."""
    sc = load(where, stacklevel=4)
    if sc is None:
        return table
    paths = table.column("path").to_pylist()
    verdicts = table.column("verdict").to_pylist()
    todo = list(dict.fromkeys(p for p, v in zip(paths, verdicts) if v == "no_filter"))
    fresh, stale = [], []
    for p in todo:
        rel = sc.rel(p)
        if rel in sc.files:
            (fresh if sc.fresh(rel) else stale).append((p, sc.files[rel]))
    warn_stale(where, [p for p, _ in stale], stacklevel=4)
    if not fresh:
        return table
    q = Query(column, values, _column_descriptor(fresh[0][0], column, None, False), by_value=by_value,
              use_statistics=use_statistics)
    pruners = []
    with open(sc.path, "rb") as side:
        for p, e in fresh:
            with open(p, "rb") as data:
                def read(ranges, _d=data.fileno(), _e=e):
                    return [read_overlay(_d, side.fileno(), _e, off, n) for off, n in ranges]

                pruner = q.file(p, e.size + e.length, TAIL_BYTES)
                drive(pruner, read)
                pruners.append(pruner)
    try:
        judged = q.table(pruners)
    except _pqfast.FormatError as err:
        warnings.warn(f"pqfast: sidecar ignored: {where}: {err}", stacklevel=3)
        return table
    return with_sidecar_verdicts(table, judged, by_value)


def read_overlay(data_fd: int, side_fd: int, e: Entry, off: int, n: int) -> bytes:
    """Bytes [off, off + n) of a data file with its tail appended (clipped to that size)."""
    n = max(0, min(n, e.size + e.length - off))
    out = b""
    if off < e.size:
        take = min(n, e.size - off)
        out = os.pread(data_fd, take, off)
        off, n = off + take, n - take
    if n:
        out += os.pread(side_fd, n, e.offset + off - e.size)
    return out
