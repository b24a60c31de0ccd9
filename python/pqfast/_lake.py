"""The lake under a ``pqfast.dataset()``: its files (listed once), their hive
partition keys, the dataset schema, footers (read once, on demand), and the
projections a scan asks of it.

A lake is plain data (paths, sizes, the partition keys, the schema, the
filesystem or storage options) plus caches that are not pickled: a
fragment carries a lake of its one file and is read in another process as
in this one.

Scans read it through the one streaming scanner (``_stream_io``,
``_stream_plan``: runs of files read alike, each batch put into the
dataset's schema: a column a file lacks gives nulls, other types are cast,
as pyarrow.dataset does, and the key columns appended).
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

import pyarrow as pa

from . import _optional, _pqfast, fs_driver
from ._file import ParquetFile
from ._partitions import Partitions, discover
from ._paths import _has_magic, expand_paths, _remote_urls
from ._remote_file import ObjectStoreFS
from ._requests import LISTING, TAILS, Fetcher
from ._rowgroup_stats import flat_leaves, leaf_stats, row_counts, summarize
from .fs_driver import FilesystemIO
from .remote import ObjectStoreIO, describe_error, make_store, normalise_options, split_url
from .scan import _TAIL, _checked_partitioning, _refuse_file_objects, _tails, local_partitioned_lake

FormatError = _pqfast.FormatError

LOCAL, S3, FS = "local", "s3", "fs"


def _lists(source: Any) -> bool:
    """Whether a source on a filesystem is one its backend lists (a
    directory or a glob), not paths named one by one."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    path = os.fspath(source)
    return _has_magic(path) or not path.endswith(".parquet")


def _top_names(meta) -> set:
    return {d["path"][0] for d in meta.columns()}


class _LocalFooters:
    """Parsed footers of local files, kept per process while a stat gives the
    file the same (device, inode, size, mtime, ctime): a lake planned again
    (every read_table through the dataset scan plans its runs from every
    footer) does not open and parse each file again (100 files: ~7 ms of
    ~15). Only footers of files last changed 2 s ago or more are kept (a
    write in the same coarse clock tick leaves the stat unchanged), as
    ``scan._first_file_plans`` keeps plans. Bounded: the oldest go first."""

    _MAX = 1 << 14
    _RACY_NS = 2_000_000_000

    def __init__(self):
        self.map: dict = {}
        self.lock = threading.Lock()

    @staticmethod
    def _key(st) -> tuple:
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def get(self, path: str, read):
        """The footer of `path` (read() -> it, when not kept)."""
        return self.get_many([path], lambda paths: [read()])[0]

    def get_many(self, paths: list, read_many) -> list:
        """The footers of `paths` (read_many(paths not kept) -> their
        footers, in order), each kept as get() keeps it."""
        keys, out, todo = [], [], []
        for k, path in enumerate(paths):
            try:
                st = os.stat(path)
            except OSError:
                st = None
            key = None if st is None else self._key(st)
            with self.lock:
                hit = self.map.get(path)
            keys.append((key, st))
            out.append(hit[1] if hit is not None and key is not None and hit[0] == key else None)
            if out[-1] is None:
                todo.append(k)
        if todo:
            now = time.time_ns()
            for k, meta in zip(todo, read_many([paths[k] for k in todo])):
                out[k] = meta
                key, st = keys[k]
                if st is not None and now - max(st.st_mtime_ns, st.st_ctime_ns) >= self._RACY_NS:
                    with self.lock:
                        if len(self.map) >= self._MAX:
                            self.map.pop(next(iter(self.map)))
                        self.map[paths[k]] = (key, meta)
        return out

    def clear(self) -> None:
        with self.lock:
            self.map.clear()


_local_footers = _LocalFooters()
# Emptied at exit, before the native module is torn down: footers still
# held then are reported by nanobind as leaked instances (seen after the
# whole test suite, 34 lines on stderr).
atexit.register(_local_footers.clear)


def _has_column(tops: set, name: str) -> bool:
    """Whether a file with top-level columns `tops` has `name` (a dotted
    ``s.a`` names a field of struct ``s``)."""
    return name in tops or name.split(".", 1)[0] in tops


class Lake:
    """Files of one source, in the order a scan reads them.

    ``names``: the files as the source names them (paths, ``s3://`` URLs);
    ``keys``: as the store opens them (the same locally); ``sizes``: bytes,
    -1 when not known; ``parts``: the hive keys (None: none); ``schema``:
    the dataset's (the first file's columns, then the keys), or None before
    ``ensure_schema``."""

    def __init__(self, kind: str, names: list, keys: list, sizes: list, parts: Partitions | None,
                 storage_options: dict | None, filesystem: Any, schema=None, ref: int | tuple = 0,
                 versions: list | None = None, read_dictionary: Sequence[str] = ()):
        self.kind = kind
        self.names = list(names)
        self.keys = list(keys)
        self.sizes = list(sizes)
        self.parts = parts
        self.storage_options = storage_options
        self.filesystem = filesystem
        self.schema = schema
        # Per file, the store's version from the listing (ETag, modification
        # time; None: not known): scans keep what they read by it.
        self.versions = list(versions) if versions is not None else [None] * len(self.names)
        # Columns read as dictionary<int32, string/binary> (pyarrow's
        # read_dictionary): built natively from the dictionary pages.
        self.read_dictionary = tuple(read_dictionary)
        # The string layout scans default to (None: pyarrow's; "view"; "large").
        self.strings = None
        # Scans asked for batches of fewer rows make batches of this many
        # (0: as asked; pqfast.datafusion's datasets, see there).
        self.min_batch_size = 0
        # The reference file (the lake's first): (name, key, size). It types
        # projections of struct fields ("s.a") and decides which files
        # conform (same column descriptors: read together by the engine).
        self.ref = ref if isinstance(ref, tuple) else ((names[ref], keys[ref], sizes[ref]) if names else None)
        # s3:// only: the URLs the source named and the sidecar indexes its
        # listing passed ({key: (size, ETag)}): filtered scans read the
        # objects a fresh entry covers as object + tail (_sidecar_s3.object_tails).
        # A filesystem lake: {directory listed: its sidecar's size, -1: none}.
        self.source_urls: list | None = None
        self.sidecars: dict = {}
        self._init_caches()

    def _init_caches(self) -> None:
        self._metas: dict = {}
        self._descs: dict = {}  # file -> its leaf descriptors (meta.columns() builds them anew each call)
        self._leaves: dict = {}  # file -> {top-level flat column: leaf} (_rowgroup_stats.flat_leaves)
        self._chunks: dict = {}  # (file, row group, leaf) -> meta.column_chunk's dict (5 us a call)
        self._leaf_stats: dict = {}  # (file, leaf) -> (_rowgroup_stats.leaf_stats, its summarize())
        self._row_counts: dict = {}  # file -> rows per row group
        self._conforms: dict = {}
        self._ref_descs = None
        self._lock = threading.Lock()
        self._store = None
        self._projections: dict = {}
        self._fs_io = None  # FS lakes: the I/O footers and scans read through (files kept open)
        self._fs_tails: dict = {}  # FS lakes: file -> its tail, read with its footer
        # A read asking for stats: its requests counted by round (_requests.Fetcher).
        self.fetch_log = None

    def __getstate__(self):
        d = dict(self.__dict__)
        for k in ("_metas", "_descs", "_leaves", "_chunks", "_leaf_stats", "_row_counts", "_conforms", "_ref_descs", "_lock", "_store", "_projections",
                  "_fs_io", "_fs_tails", "fetch_log"):
            d.pop(k, None)
        return d

    def __setstate__(self, d):
        self.read_dictionary, self.strings, self.source_urls, self.sidecars = (), None, None, {}
        self.min_batch_size = 0
        self.__dict__.update(d)
        self._init_caches()

    # -- making one -------------------------------------------------------------

    @classmethod
    def open(cls, source: Any, partitioning: str | None, filesystem: Any, storage_options: dict | None,
             schema=None, read_dictionary: Sequence[str] = (), listing: tuple | None = None,
             read_footers: bool = False, fetch_log: Fetcher | None = None) -> "Lake":
        """The lake of `source`; ``listing`` (s3:// only): a listing made
        before (``list_s3``'s), used instead of listing now; ``read_footers``
        (s3:// and filesystem=): every footer now, in one round of requests
        (a read of the whole lake needs them all: the first file's alone
        first, for the schema, would be a round of its own). ``fetch_log``:
        where the listing's, the footers' and the scans' requests are
        counted (read_table(stats=True))."""
        _checked_partitioning(partitioning)
        if listing is None and read_footers and filesystem is None and _remote_urls(source):
            listing = cls.list_s3(source, storage_options, fetch_log)
        if listing is not None:
            lake = cls._from_listing(listing, partitioning, None, storage_options, read_footers, fetch_log)
        elif filesystem is not None or _remote_urls(source):
            lake = cls._listed(source, partitioning, filesystem, storage_options, read_footers, fetch_log)
        else:
            lake = cls._local(source, partitioning)
        if not lake.names:
            raise FormatError(f"invalid argument: no Parquet files in {source!r}")
        lake.read_dictionary = tuple(read_dictionary)
        lake.ensure_schema(schema)
        return lake

    @classmethod
    def _local(cls, source: Any, partitioning) -> "Lake":
        if isinstance(source, (str, os.PathLike)) and os.fspath(source).startswith("file://"):
            source = os.fspath(source)[len("file://"):]
        names = expand_paths(source)
        lake = cls(LOCAL, names, names, [-1] * len(names), None, None, None)
        if partitioning is not None and names and isinstance(source, (str, os.PathLike)) \
                and os.path.isdir(os.fspath(source)):
            lake.parts = lake._partitions(discover(os.fspath(source), names))
        return lake

    @staticmethod
    def list_s3(source: Any, storage_options: dict | None, fetch_log: Fetcher | None = None) -> tuple:
        """The listing of s3:// `source`: (items [(url, key, size, version)],
        the prefix whose key=value levels are keys or None, the source's
        URLs, the sidecar indexes the listing passed); its pages counted in
        `fetch_log`."""
        io = ObjectStoreIO(source, storage_options)
        t0 = time.perf_counter()
        try:
            items = io.listing()
        finally:
            io.close()
        if fetch_log is not None and io.list_requests:
            fetch_log.count(LISTING, io.list_requests, 0, t0, time.perf_counter())
        return items, io.directory, list(io.urls), dict(io.sidecars)

    @classmethod
    def _listed(cls, source: Any, partitioning, filesystem, storage_options, read_footers: bool = False,
                fetch_log: Fetcher | None = None) -> "Lake":
        if filesystem is None:
            return cls._from_listing(cls.list_s3(source, storage_options, fetch_log), partitioning, None,
                                     storage_options, fetch_log=fetch_log)
        _refuse_file_objects(source)
        io = FilesystemIO(source, filesystem)
        t0 = time.perf_counter()
        try:
            items = io.listing()
        finally:
            io.close()
        if fetch_log is not None and _lists(source):
            # (The backend does not count its listing's calls: counted as one.)
            fetch_log.count(LISTING, 1, 0, t0, time.perf_counter())
        # (The directories the backend listed, with the sidecar index each holds: _stream_io.)
        return cls._from_listing((items, io.directory, None, dict(io.be.walked)), partitioning, filesystem, None,
                                 read_footers, fetch_log)

    @classmethod
    def _from_listing(cls, listing: tuple, partitioning, filesystem, storage_options,
                      read_footers: bool = False, fetch_log: Fetcher | None = None) -> "Lake":
        items, root, urls, sidecars = listing
        kind = FS if filesystem is not None else S3
        lake = cls(kind, [it[0] for it in items], [it[1] for it in items], [int(it[2]) for it in items], None,
                   storage_options, filesystem, versions=[it[3] for it in items])
        lake.fetch_log = fetch_log
        if kind == S3:
            lake.source_urls, lake.sidecars = urls, sidecars
        else:
            lake.sidecars = sidecars
        parts = discover(root, lake.names) if partitioning is not None and root is not None and items else None
        if read_footers and items and parts is None:
            # (A partitioned lake's footers are read once its keys have chosen
            # the files: a file in a directory the filter rules out is never read.)
            lake.metas(range(len(items)))
        if parts is not None:
            lake.parts = lake._partitions(parts)
        return lake

    def _partitions(self, parts: Partitions | None) -> Partitions | None:
        # Keys the files also hold as columns (polars writes both) are the files' columns.
        return parts.without(_top_names(self.meta(0))) if parts is not None else None

    def ensure_schema(self, schema=None) -> None:
        """The dataset schema: `schema` when given, else the first file's
        columns (as pqfast reads them) then the partition keys."""
        if schema is not None:
            self.schema = schema
            return
        if self.schema is not None:
            return
        with self._schema_file() as f:
            files = f.read(row_groups=[], read_dictionary=self._dictionaries()).schema
        fields = list(files) + [self.parts.field(n) for n in (self.parts.names if self.parts else ())]
        self.schema = pa.schema(fields, metadata=files.metadata)

    def _dictionaries(self) -> list | None:
        return list(self.read_dictionary) if self.read_dictionary else None

    def subset(self, files: Sequence[int]) -> "Lake":
        """A lake of some of these files (the same schema and reference)."""
        parts = None
        if self.parts is not None:
            p = self.parts
            parts = Partitions(p.names, p.types, p.dictionaries, [p.per_file[i] for i in files])
        lake = Lake(self.kind, [self.names[i] for i in files], [self.keys[i] for i in files],
                    [self.sizes[i] for i in files], parts, self.storage_options, self.filesystem, self.schema,
                    self.ref, [self.versions[i] for i in files], self.read_dictionary)
        lake.strings, lake.min_batch_size = self.strings, self.min_batch_size
        lake.source_urls, lake.sidecars = self.source_urls, self.sidecars
        return lake

    # -- files and footers -------------------------------------------------------

    def _opener(self, key: str, size: int, meta=None) -> ParquetFile:
        """File `key` opened (`meta`: its footer, parsed before: not read again)."""
        if self.kind == LOCAL:
            source, fs = key, None
        elif self.kind == FS:
            source, fs = key, self.filesystem
        else:
            if self._store is None:
                self._store = make_store(split_url(self.ref[0])[0], self.storage_options)
            source, fs = key, ObjectStoreFS(self._store, {key: size} if size >= 0 else None)
        if meta is not None:
            return ParquetFile._with_metadata(source, fs, meta)
        return ParquetFile(source, filesystem=fs)

    def open_file(self, i: int) -> ParquetFile:
        """File i, its footer read once per lake (an object's, once per
        process while the listing gives it unchanged: :meth:`_s3_footer`)."""
        return self._opener(self.keys[i], self.sizes[i], self._read_meta(i))

    def _read_meta(self, i: int):
        """File i's footer, read once per lake: the file is opened for it
        alone (a filesystem's open is a HEAD on object storage: planning
        that needs only footers opens each file once, not twice)."""
        m = self._metas.get(i)
        if m is None:
            try:
                m = self._s3_footer(i) if self.kind == S3 else None
                if m is None and self.kind == FS:
                    # Through the lake's I/O: on a pyarrow object store opened
                    # once for its footer and its pages (a HEAD each open); a
                    # path named alone: the open gives its size too; the tail
                    # is fed to the scan from memory.
                    io, t0 = self.fs_io(), time.perf_counter()
                    m, tail = io.footer(self.keys[i], _TAIL)
                    self._count_tail(len(tail), t0, 2 if len(tail) > _TAIL else 1)
                    size = io.size_of(self.keys[i])
                    with self._lock:
                        self._fs_tails[i] = tail
                        if self.sizes[i] < 0:
                            self.sizes[i] = size
                if m is None and self.kind == LOCAL:
                    m = _local_footers.get(self.keys[i], lambda: self._footer_of(i))
                if m is None:
                    m = self._footer_of(i)
            except OSError as e:
                if self.kind == LOCAL:
                    raise
                raise FormatError(f"{self.names[i]}: {self._describe(e)}") from None
            with self._lock:
                self._metas[i] = m
        return m

    def _footer_of(self, i: int):
        with self._opener(self.keys[i], self.sizes[i]) as f:
            return f._meta

    def _describe(self, e: BaseException) -> str:
        """A store's error in one line, by its type, secrets masked."""
        if self.kind == FS:
            return fs_driver.describe_error(e, fs_driver.secrets_of(self.filesystem))
        if self._store is None:
            self._store = make_store(split_url(self.ref[0])[0], self.storage_options)
        return describe_error(e, self._store)

    def tail(self, i: int) -> bytes | None:
        """The last bytes of object i (its footer at least) when this
        process holds them (``scan._tails``; a file on a filesystem: when
        this lake read its footer through ``fs_io``), else None."""
        if self.kind == FS:
            return self._fs_tails.get(i)
        if self.kind != S3 or self.sizes[i] < 0:
            return None
        where = (normalise_options(self.storage_options).get("endpoint", ""), self.names[i])
        return _tails.get(where, int(self.sizes[i]), self.versions[i])

    def _s3_footer(self, i: int):
        """Object i's footer from its tail: the one remote scans keep
        per process (``scan._tails``: by URL, size, ETag and modification
        time, never for an object listed without them), else read in one
        GET (two when the footer is longer than the first read) and kept
        there. A dataset or read_table of a lake read before then asks
        nothing of the store but the listing and the pages."""
        size, version = int(self.sizes[i]), self.versions[i]
        where = (normalise_options(self.storage_options).get("endpoint", ""), self.names[i])
        tail = _tails.get(where, size, version) if size >= 0 else None
        if tail is None:
            obstore = _optional.load("obstore")
            if self._store is None:
                self._store = make_store(split_url(self.ref[0])[0], self.storage_options)
            t0 = time.perf_counter()
            if size < 0:
                # A URL named alone (not listed): one suffix GET gives its size too.
                # Its ETag and modification time as a listing gives them: a
                # sidecar entry is checked by them (no HEAD per object).
                r = obstore.get(self._store, self.keys[i], options={"range": {"suffix": _TAIL}})
                size, tail = int(r.meta["size"]), bytes(r.bytes())
                version = (r.meta.get("e_tag"), str(r.meta.get("last_modified")))
                with self._lock:
                    self.sizes[i], self.versions[i] = size, version
            else:
                n = min(size, _TAIL)
                tail = bytes(obstore.get_range(self._store, self.keys[i], start=size - n, length=n))
            need = self._footer_length(i, tail, size)
            if need > len(tail):  # a footer longer than the first read
                more = obstore.get_range(self._store, self.keys[i], start=size - need, length=need - len(tail))
                self._count_tail(len(tail), t0)
                t0 = time.perf_counter()
                tail = bytes(more) + tail
                self._count_tail(len(more), t0)
            else:
                self._count_tail(len(tail), t0)
            _tails.put(where, size, version, tail)
        need = self._footer_length(i, tail, size)
        try:
            return _pqfast._parse_file_metadata(tail[-need:-8])
        except (FormatError, MemoryError) as e:
            raise FormatError(f"{self.names[i]}: {e}") from None

    def _count_tail(self, nbytes: int, t0: float, requests: int = 1) -> None:
        """A footer's reads in the read's request log, if any."""
        if self.fetch_log is not None:
            self.fetch_log.count(TAILS, requests, nbytes, t0, time.perf_counter())

    def _footer_length(self, i: int, tail: bytes, size: int) -> int:
        """Bytes of footer and trailer at the end of file i, from its tail
        (a hostile length is refused, naming the file)."""
        try:
            return int(_pqfast._row_group_ranges(tail, size, [])[0])
        except (FormatError, MemoryError) as e:
            raise FormatError(f"{self.names[i]}: {e}") from None

    def open_ref(self) -> ParquetFile:
        return self._opener(self.ref[1], self.ref[2])

    def _schema_file(self) -> ParquetFile:
        """The reference file for its schema alone: a remote lake's first file
        of flat columns from its footer, not opened (a read of no row group
        of flat columns reads no byte; on object storage an open is a HEAD);
        nested columns' empty arrays are assembled from the file."""
        if self.kind != LOCAL and self.names and self.ref[1] == self.keys[0]:
            meta = self.meta(0)
            if all(len(d["path"]) == 1 for d in self.descs(0)):
                return ParquetFile._with_metadata(self.keys[0], None, meta)
        return self._open_ref_cached()

    def _open_ref_cached(self) -> ParquetFile:
        """The reference file, its footer kept as file 0's when it is the
        lake's first file (parsed once for the schema and the scan)."""
        if self.names and self.ref[1] == self.keys[0]:
            return self.open_file(0)
        return self.open_ref()

    def fs_io(self) -> FilesystemIO:
        """An FS lake's I/O (fs_driver's backend over the filesystem), made
        once: footers read through it keep their files open for the scans
        that read the pages next (``_stream_io.remote_batches``)."""
        with self._lock:
            if self._fs_io is None:
                self._fs_io = FilesystemIO(list(self.keys), self.filesystem)
                # Sizes the listing gave: an fsspec read then asks for no info first.
                self._fs_io.known_sizes(zip(self.keys, self.sizes))
            return self._fs_io

    def meta(self, i: int):
        """File i's parsed footer (read once)."""
        return self._read_meta(i)

    def metas(self, files: Sequence[int]) -> list:
        """The footers of `files`, read concurrently where not yet read
        (object stores: one round of requests, not one per file)."""
        todo = [i for i in files if i not in self._metas]
        if len(todo) > 1 and self.kind != LOCAL:
            with ThreadPoolExecutor(max_workers=min(32, len(todo))) as pool:
                list(pool.map(self.meta, todo))
        return [self.meta(i) for i in files]

    def read_local_footers(self, threads: int, whole_max: int = 0, keep_max: int = 0) -> list:
        """Every file's footer (a local lake), read at once on `threads`
        threads in C++ and kept as meta() keeps them, and every file's
        conformity to the reference decided from them (conforms()), without
        a Python object per column; returns the files' sizes. A lake of
        10,000 small files planned file by file spent ~2 s in Python here.
        Files of at most `whole_max` bytes are read whole (up to `keep_max`
        bytes in all): their footers carry the bytes to the scan that reads
        them next (``_scan_whole.read_whole``), which so opens them no more."""
        metas, sizes = _pqfast._read_footers_local(list(self.keys), max(1, int(threads)), int(whole_max),
                                                   int(keep_max))
        with self._lock:
            for i, m in enumerate(metas):
                self._metas.setdefault(i, m)
        self._decide_conformity(range(len(metas)))
        return list(sizes)

    def _decide_conformity(self, files) -> None:
        """conforms() of `files`, whose footers are read, decided in C++ at once."""
        with self._open_ref_cached() as f:
            ref = f._meta
        in_ref = self._schema_in_ref()
        files = list(files)
        same = _pqfast._same_leaves(ref, [self._metas[i] for i in files])
        with self._lock:
            for i, ok in zip(files, same):
                self._conforms.setdefault(i, bool(ok) and in_ref)

    def read_footers(self, files: Sequence[int], threads: int) -> None:
        """The footers of local `files` not read yet, read at once on
        `threads` threads in C++ (those the process keeps, not read again),
        and their conformity to the reference decided from them
        (conforms()) without a Python object per column: a scan of 60 large
        files planned file by file spent ~33 ms here before its first batch
        (cold), ~6x the time of this. A footer that does not parse is left to
        the file-by-file read, which names it when the scan comes to it."""
        todo = [i for i in files if i not in self._metas]
        if self.kind != LOCAL or len(todo) < 2:
            return
        n = min(len(todo), int(threads) or os.cpu_count() or 1)
        try:
            metas = _local_footers.get_many([self.keys[i] for i in todo],
                                            lambda paths: _pqfast._read_footers_local(paths, n)[0])
        except (FormatError, OSError):
            return
        with self._lock:
            for i, m in zip(todo, metas):
                self._metas.setdefault(i, m)
        self._decide_conformity(todo)

    def descs(self, i: int) -> list:
        """File i's leaf descriptors."""
        d = self._descs.get(i)
        if d is None:
            d = self.meta(i).columns()
            with self._lock:
                self._descs[i] = d
        return d

    def leaves(self, i: int) -> dict:
        """File i's top-level flat columns and their leaves (flat_leaves: 23 us
        a call, made per file by every scan's statistics verdicts)."""
        d = self._leaves.get(i)
        if d is None:
            d = flat_leaves(self.meta(i))
            with self._lock:
                self._leaves[i] = d
        return d

    def column_chunk(self, i: int, rg: int, leaf: int) -> dict:
        """File i's ``meta.column_chunk(rg, leaf)``, kept: statistics verdicts
        ask the same chunks of every scan with a filter on their column."""
        key = (i, rg, leaf)
        d = self._chunks.get(key)
        if d is None:
            d = self.meta(i).column_chunk(rg, leaf)
            with self._lock:
                self._chunks[key] = d
        return d

    def row_counts(self, i: int) -> list:
        """File i's rows per row group, kept."""
        d = self._row_counts.get(i)
        if d is None:
            d = row_counts(self.meta(i))
            with self._lock:
                self._row_counts[i] = d
        return d

    def leaf_stats(self, i: int, leaf: int) -> tuple:
        """File i's statistics of `leaf` per row group and over all of them
        (_rowgroup_stats.leaf_stats, summarize), kept: a filter on the column
        asks them again whatever its values."""
        key = (i, leaf)
        d = self._leaf_stats.get(key)
        if d is None:
            per_rg = leaf_stats(self.meta(i), leaf, self.descs(i)[leaf], lambda g, j: self.column_chunk(i, g, j))
            d = (per_rg, summarize(per_rg, self.row_counts(i)))
            with self._lock:
                self._leaf_stats[key] = d
        return d

    def ref_descs(self) -> list:
        if self._ref_descs is None:
            if self.names and self.ref[1] == self.keys[0]:
                self._ref_descs = self.descs(0)
            else:
                with self.open_ref() as f:
                    self._ref_descs = f._meta.columns()
        return self._ref_descs

    def conforms(self, i: int) -> bool:
        """Whether file i has the reference file's columns, typed alike (read
        together with it by one engine call)."""
        c = self._conforms.get(i)
        if c is None:
            c = self.descs(i) == self.ref_descs() and self._schema_in_ref()
            self._conforms[i] = c
        return c

    def _schema_in_ref(self) -> bool:
        """Whether the reference file has every file column of the dataset
        schema (not so for a schema= naming others: then each file is read
        for the columns it has)."""
        keys = set(self.parts.names) if self.parts is not None else set()
        tops = {d["path"][0] for d in self.ref_descs()}
        return all(f.name in tops for f in self.schema if f.name not in keys)

    # -- projections ---------------------------------------------------------------

    def projection(self, columns: Sequence[str] | None):
        """(file columns to read or None for all, keys to append, the output
        schema) of a projection."""
        key = None if columns is None else tuple(columns)
        hit = self._projections.get(key)
        if hit is not None:
            return hit
        keys_all = set(self.parts.names) if self.parts is not None else set()
        if columns is None:
            file_cols = [f.name for f in self.schema if f.name not in keys_all]
            keys = [f.name for f in self.schema if f.name in keys_all]
            out = self.schema
        else:
            file_cols = [c for c in columns if c not in keys_all]
            keys = [c for c in columns if c in keys_all]
            fields = []
            dotted = [c for c in file_cols if self.schema.get_field_index(c) < 0]
            typed = {}
            if dotted:
                with self.open_ref() as f:
                    t = f.read(columns=dotted, row_groups=[], read_dictionary=self._dictionaries()).schema
                typed = dict(zip(dotted, t))
            for c in columns:
                if c in typed:
                    fields.append(typed[c])
                else:
                    k = self.schema.get_field_index(c)
                    if k < 0:
                        raise KeyError(f"no column {c!r} in the dataset (columns: "
                                       f"{', '.join(self.schema.names[:12])})")
                    fields.append(self.schema.field(k))
            out = pa.schema(fields, metadata=self.schema.metadata)
        file_schema = pa.schema([f for f in out if f.name not in keys], metadata=out.metadata)
        hit = (file_cols, keys, out, file_schema)
        self._projections[key] = hit
        return hit

def partitioned_lake(source, storage_options=None, filesystem=None):
    """(files, Partitions) of a hive-partitioned local directory, s3://
    prefix or directory on `filesystem` (files as read_table names them, in
    its order), or None when `source` is none of them or has no key=value
    level (pqfast.dask's plan, read_pruned's). Remote: the lake listed once
    and its first file's footer read (keys the files hold as columns too are
    the files' columns)."""
    if filesystem is None and not _remote_urls(source):
        return local_partitioned_lake(source)
    if filesystem is not None:
        _refuse_file_objects(source)
    io = FilesystemIO(source, filesystem) if filesystem is not None else ObjectStoreIO(source, storage_options)
    io.close()
    if io.directory is None:
        return None  # a pattern or a list: no key=value level is a column (nothing listed)
    lake = Lake._listed(source, "hive", filesystem, storage_options)
    return (list(lake.names), lake.parts) if lake.parts is not None else None
