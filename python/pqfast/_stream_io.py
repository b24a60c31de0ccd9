"""The Python side of the streaming scanner (``pqfast/scanner.h``): which
dataset scans it runs, its column specs, and what feeds it.

- :func:`native_plan`: the column specs (name, Arrow layout, format) of a
  projection, per run of files read alike (``_stream_plan``: files unlike
  the first, dictionary, extension and cast columns, each batch conformed
  to the dataset's schema), when every column is a flat leaf or a nested
  field read straight into the dataset's type (its leaves' layouts; the
  scanner assembles it); otherwise None and the scan keeps the dataset's
  other routes. A plan with a nested field says so (``NativePlan.nested``);
  under a filter the scanner takes each nested field's rows the engine
  selects on the flat filter columns.
- :func:`local_batches`: local files through ``_LocalScanner`` (pread and
  decoding on its own threads, or on the consumer's; without key columns
  the batches come through its C stream, no Python per batch but the batch);
  a lake of small files in file tasks, planned from its first file's footer.
- :func:`remote_batches`: ``s3://`` objects and ``filesystem=`` paths
  through ``_Scanner``, fed by one asyncio loop on a thread of its own:
  the ranges ``needs()`` asks (footers of several files, coalesced column
  chunks) fetched concurrently and fed as they arrive, while the consumer
  decodes and takes batches.
- :func:`remote_small_files`: a remote lake of small files without a
  filter in file tasks: each object fetched whole in one GET (window after
  window, on a thread of its own) and decoded by ``_LocalScanner`` from
  those bytes.

All finish each batch into the dataset's schema (partition keys appended)
and count what they did in a :class:`StreamInfo` (``Scanner.last_readahead``).
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import threading
import warnings
from typing import Iterator

import pyarrow as pa

from . import _pqfast
from ._lake import FS, LOCAL, S3, Lake
from ._sidecar import local_tails
from ._requests import Fetcher, data_round
from ._sidecar_s3 import filesystem_tails, object_tails
from ._strings import strings_type
from ._stream_plan import plan_runs
from .remote import ObjectStoreIO, normalise_options

FormatError = _pqfast.FormatError

# Readahead (bytes asked for and not consumed) when no memory_limit is given.
DEFAULT_READAHEAD_BYTES = 512 << 20
# Ranges of one row group closer than this are fetched as one: locally a
# pread each either way. On object storage a GET costs about as much as
# ~a MiB of transfer, but the GETs of a row group go out together (64 in
# flight), so merging saves no round: at 1 MiB a projection of 2 of 8
# columns fetched 60% more bytes (the columns between) than the staged scan.
_LOCAL_GAP = 64 << 10
_REMOTE_GAP = 128 << 10
# GETs in flight at once in the remote loop (16: a 50-row-group projection
# took 4 waves of round trips; the staged scan keeps hundreds in flight).
_REMOTE_CONCURRENCY = 64
# A local scan asked for smaller batches reads batches of this many rows and
# cuts them in Python (see _stream_batches).
_CUT_FROM = 131072
# A local lake whose first file is at most this many bytes is read in file
# tasks (LocalScan: each file read whole with its footer in one read,
# decoded by the thread that read it), planned from that file's footer
# alone (small_files_plan); files up to it are read in one read. A lake of
# 10,000 files of 57 KB planned from every footer spent ~2 s in Python, and
# read by row group units handed 10,000 units between threads under the
# scanner's one lock.
SMALL_FILE_BYTES = 1 << 20


class NativePlan:
    """A projection the C++ scanner reads: the schema its batches are
    finished into (``out``, the key columns ``keys`` appended, the others
    ``file_schema``), and ``runs`` (``_stream_plan.Run``): the selected
    files cut where their column plan changes, one scanner each. ``specs``
    and ``convert`` are those of the run a scanner reads (``for_run``)."""

    def __init__(self, specs: list, file_schema: pa.Schema, out: pa.Schema, keys: list, runs: list | None = None,
                 convert=None):
        self.specs = specs
        self.file_schema = file_schema
        self.out = out
        self.keys = keys
        self.runs = runs or []
        self.convert = convert  # batch -> file_schema's arrays; None: the batch's columns are
        # Whether a column is a nested field (read_files_whole takes none).
        self.nested = any(len(s) != 3 for s in specs) or any(len(s) != 3 for r in self.runs for s in r.specs)

    def for_run(self, run) -> "NativePlan":
        return NativePlan(run.specs, self.file_schema, self.out, self.keys, [run], run.convert)


def with_strings(schema: pa.Schema, strings) -> pa.Schema:
    """`schema` with its string and binary columns in the `strings` layout."""
    if strings is None:
        return schema
    return pa.schema([f.with_type(strings_type(f.type, strings)) for f in schema], metadata=schema.metadata)


def native_plan(lake: Lake, selection: list, columns, strings, merge: bool = True) -> NativePlan | None:
    """The scanner's plan of a projection over the selected files (runs of
    files read alike: ``_stream_plan.plan_runs``, ``merge`` as it takes
    it), or None when some column needs another route (a nested column
    retyped after the read)."""
    if not selection or lake.kind not in (LOCAL, S3, FS):
        return None
    file_cols, keys, out, file_schema = lake.projection(columns)
    if any(lake.sizes[i] < 0 for i, _ in selection) and lake.kind != LOCAL:
        return None
    file_schema = with_strings(file_schema, strings)
    runs = plan_runs(lake, selection, file_cols, file_schema, strings, merge)
    if runs is None:
        return None
    plan = NativePlan(runs[0].specs, file_schema, with_strings(out, strings), list(keys), runs, runs[0].convert)
    return plan


def small_files_plan(lake: Lake, selection: list, columns, strings) -> NativePlan | None:
    """The plan of a scan without a filter of several files whose first is
    at most SMALL_FILE_BYTES (local, or remote with its size listed), from
    that file's footer alone (one run; :func:`local_batches` or
    :func:`remote_small_files` with ``stopped`` reads it in file tasks), or
    None: the scan is planned from every footer."""
    if len(selection) < 2 or _first_size(lake, selection[0][0]) > SMALL_FILE_BYTES:
        return None
    plan = native_plan(lake, selection[:1], columns, strings)
    if plan is None or len(plan.runs) != 1:
        return None
    if lake.kind != LOCAL and not plan.specs:
        return None  # (no file column: the footers alone say the rows, no object is fetched whole)
    return plan


def _first_size(lake: Lake, i: int) -> int:
    """File i's size: stat'ed locally, from the listing remotely (unknown:
    larger than any small file)."""
    if lake.kind == LOCAL:
        return os.path.getsize(lake.keys[i])
    if lake.kind in (S3, FS) and lake.sizes[i] >= 0:
        return int(lake.sizes[i])
    return SMALL_FILE_BYTES + 1


class StreamInfo:
    """What a native scan did (``Scanner.last_readahead``): ``started``
    row groups asked for, ``peak_held`` the most bytes its
    memory budget held at once, ``_closed`` once cancelled or done, and the
    scanner's own counts in ``stats``."""

    def __init__(self):
        self.started = 0
        self.peak_held = 0
        self._closed = False
        self.stats: dict = {}
        self._before = 0  # units started by the scanners before this one (head: one per file)
        self._engine_before: dict = {}  # their scan engine's counts
        self.scanners = 1  # scanners the stream ran (one per run of files read alike; head: per file)
        self.sidecar_files = 0  # files fed scanners read as object + a sidecar's tail

    def next_scanner(self) -> None:
        """A further scanner of the same stream begins: counts add up (the
        scan engine's too: a filtered scan of several runs reports them all)."""
        self._before = self.started
        self._closed = False
        self.scanners += 1
        self._engine_before = dict(self.stats.get("engine", {}))

    def update(self, scanner) -> None:
        self.stats = scanner.stats
        before = self._engine_before
        if before:
            engine = dict(self.stats.get("engine", {}))
            for k, v in before.items():
                engine[k] = engine.get(k, 0) + v
            self.stats = dict(self.stats, engine=engine)
        self.started = self._before + self.stats.get("units_started", 0)
        self.peak_held = max(self.peak_held, scanner.budget_peak)


def _finisher(lake: Lake, plan: NativePlan, selection: list):
    """finish(plan file index, batch): the batch in the dataset's schema
    (its run's conversion first: ``NativePlan.convert``)."""
    out, keys = plan.out, plan.keys
    conv = plan.convert or (lambda b: b.columns)
    if not len(out):
        # No column: the batch is its row count (from_arrays would lose it).
        return lambda k, b: b.replace_schema_metadata(out.metadata)
    if not keys:
        return lambda k, b: pa.RecordBatch.from_arrays(conv(b), schema=out)
    parts = lake.parts

    def finish(k: int, b: pa.RecordBatch) -> pa.RecordBatch:
        i = selection[k][0]
        cols = dict(zip(plan.file_schema.names, conv(b)))
        for name in keys:
            cols[name] = parts.column_chunk(name, i, b.num_rows)
        return pa.RecordBatch.from_arrays([cols[f.name] for f in out], schema=out)

    return finish


def _footers(lake: Lake, selection: list, file_filters: list | None) -> list:
    """Per file, its parsed footer for the plan; None for a filtered file:
    locally LocalScan prunes it first with the scan engine's footer cache
    (and plans its units from that footer); remotely the engine's runs over
    its units read the footer's bytes (encoding statistics, the pruner's
    lean footer), which the scanner asks once per file (its tail) rather
    than once per unit, and parses once."""
    if file_filters is None:
        return [lake.meta(i) for i, _ in selection]
    return [lake.meta(i) if f is None else None for (i, _), f in zip(selection, file_filters)]


def _settings(memory_limit, ahead: int) -> dict:
    """The scanner's budget settings; ``ahead`` 0: units ahead bounded by
    readahead bytes alone (remote scans)."""
    limit = int(memory_limit or 0)
    readahead = limit // 2 if limit else DEFAULT_READAHEAD_BYTES
    return dict(readahead_bytes=readahead, memory_limit=limit, max_units_ahead=max(0, int(ahead)))


def local_batches(lake: Lake, selection: list, plan: NativePlan, batch_size: int, threads, memory_limit,
                  ahead: int, info: StreamInfo, file_filters: list | None = None,
                  stopped: list | None = None) -> Iterator[pa.RecordBatch]:
    """The selected local files' batches, read and decoded on the scanner's
    threads (none when ``ahead`` is 1: each batch read when asked, as
    ``head`` wants), in order; a consumer that stops cancels the rest.
    ``file_filters``: per file its encoded DNF (None: every row), run by the
    scan engine inside the scanner.

    ``stopped`` (a list): the plan is the first file's alone, and the files
    are read in file tasks (LocalScan: each read whole with its footer,
    decoded by one thread) without any other footer read first; the scan
    ends before the first file whose leaf columns differ from the first
    file's, whose index in `selection` is then appended to ``stopped``."""
    files = [(lake.keys[i], 0, None if rgs is None else [int(g) for g in rgs]) for i, rgs in selection]
    n_threads = -1 if ahead == 1 or (threads is not None and threads < 0) else int(threads or 0)
    streamed = not plan.keys and len(plan.out) and plan.convert is None
    read_size = max(batch_size, _CUT_FROM) if streamed else batch_size
    if stopped is None:
        footers, tasks = _footers(lake, selection, file_filters), {}
    else:
        footers = [lake.meta(selection[0][0])] + [None] * (len(selection) - 1)
        tasks = dict(file_tasks=True, stop_at_unlike=True, whole_file_bytes=SMALL_FILE_BYTES,
                     absent_columns=sorted(plan.runs[0].missing))

    def scanner(sidecar):
        return _pqfast._LocalScanner(files, plan.specs, None, batch_size=read_size, threads=n_threads,
                                     coalesce_gap=_LOCAL_GAP, footers=footers,
                                     file_filters=file_filters, sidecar=sidecar[0] if sidecar else None,
                                     tails=sidecar[1] if sidecar else None, **tasks, **_settings(memory_limit, ahead))

    sidecar = _local_sidecar(lake, selection, file_filters)
    try:
        sc = scanner(sidecar)
    except FormatError as e:
        if sidecar is None:
            raise
        # A tail that does not parse (the files are pruned here): the files alone.
        warnings.warn(f"pqfast: sidecar ignored: {sidecar[0]}: {e}", stacklevel=4)
        sc = scanner(None)
    if streamed:
        yield from _stream_batches(sc, plan.out, info, batch_size)
    else:
        yield from _finished_batches(sc, _finisher(lake, plan, selection), info)
    if stopped is not None and sc.stopped_at is not None:
        stopped.append(sc.stopped_at)


def _finished_batches(sc, finish, info: StreamInfo) -> Iterator[pa.RecordBatch]:
    """A local scan's batches one by one, each finished into the dataset's schema."""
    try:
        while True:
            got = sc.next_with_file()
            if got is None:
                return
            k, b = got
            info.update(sc)
            if b.num_rows:
                yield finish(k, b)
    finally:
        sc.cancel()
        info.update(sc)
        info._closed = True


def _local_sidecar(lake: Lake, selection: list, file_filters: list | None):
    """The sidecar index beside the selected local files
    (``_sidecar.local_tails``: path, per file its tail, files with one) for
    a filtered scan, the unfiltered files given none (a sidecar adds Bloom
    filters and page indexes, which only a filter uses); None without one."""
    if file_filters is None or all(f is None for f in file_filters):
        return None
    found = local_tails([lake.keys[i] for i, _ in selection])
    if found is None:
        return None
    where, tails, used = found
    tails = [t if f is not None else (-1, 0, 0) for t, f in zip(tails, file_filters)]
    return where, tails, used


def _stream_batches(sc, out: pa.Schema, info: StreamInfo, batch_size: int) -> Iterator[pa.RecordBatch]:
    """A local scan's batches through its C stream, in `out` (the scan's
    types; the dataset's names, nullability and metadata): no Python object
    is made per batch but the batch itself, and the read and decode run
    without the GIL. The scanner's batches (at least ``_CUT_FROM`` rows) are
    cut to ``batch_size`` here, holding the GIL: an engine pulling 8,192-row
    batches of many fragments on its own threads (DataFusion) gives the GIL
    up and takes it back once per scanner batch, not once per small batch
    (each a hand-off between its threads). ``info`` is brought up to date
    when the stream ends or is closed."""
    reader = pa.RecordBatchReader._import_from_c_capsule(sc.__arrow_c_stream__(out.__arrow_c_schema__()))
    try:
        while True:
            try:
                b = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowException, OSError, MemoryError):
                # The stream gives errno codes (pyarrow raises OSError for EIO,
                # ArrowMemoryError for ENOMEM); a failed scan keeps its error:
                # raised again here, typed (FormatError, MemoryLimitError, ...).
                sc.next_with_file()
                raise
            n = b.num_rows
            if n <= batch_size:
                if n:
                    yield b
                continue
            for at in range(0, n, batch_size):
                yield b.slice(at, batch_size)
    finally:
        sc.cancel()
        info.update(sc)
        info._closed = True


class _Feeder:
    """The asyncio loop (on a thread of its own) that fetches what a
    ``_Scanner`` needs and feeds it; the consumer waits on ``progress``."""

    def __init__(self, scanner, io, keys: list, tails: dict | None = None, fetcher=None, sidecar: str | None = None):
        self.scanner = scanner
        self.io = io
        # The store's ranged reads, counted by round (_requests).
        self.fetcher = fetcher if fetcher is not None else Fetcher(io)
        # The sidecar index's key: the scanner asks the tails of the files
        # it covers from it (needs()' `at`).
        self.sidecar = sidecar
        # The deepest round whose read came back (see _requests: a range
        # asked now is in the round after it).
        self.depth = 0
        self.keys = keys
        # Per plan file, (offset, bytes) of its tail held already (read for
        # planning, kept per process): ranges within it are fed from memory.
        self.tails = tails or {}
        self.progress = threading.Condition()
        self.fed = 0  # feeds so far (the consumer waits for it to change)
        self.error: BaseException | None = None
        self.stopped = False
        self.done = False
        self._loop = None
        self._wake = None
        self.thread = threading.Thread(target=self._run, name="pqfast-stream-io", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        try:
            self.io.run(self._main)
        except BaseException as e:  # noqa: BLE001 - raised in the consumer
            self.error = e
        finally:
            with self.progress:
                self.done = True
                self.progress.notify_all()

    def poke(self) -> None:
        """The consumer took a batch: the scanner may ask for more."""
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or self.done:
            return
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:
            # The loop ended meanwhile (a failed feed ends it): nothing to wake,
            # and the scan's own error is the one the consumer raises.
            pass

    def stop(self) -> None:
        self.stopped = True
        self.poke()

    async def _fetch(self, file: int, offset: int, length: int, at, depth: int) -> None:
        held = self.tails.get(file) if at is None else None
        if held is not None and offset >= held[0] and offset + length <= held[0] + len(held[1]):
            start = offset - held[0]
            data = held[1][start:start + length]
        else:
            key, where = (self.keys[file], offset) if at is None else (self.sidecar, at)
            data = await self.fetcher.get(data_round(depth), key, where, length)
            self.depth = max(self.depth, depth)
        if self.stopped:
            return
        self.scanner.feed(file, offset, data)
        with self.progress:
            self.fed += 1
            self.progress.notify_all()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        sem = asyncio.Semaphore(_REMOTE_CONCURRENCY)
        pending: set = set()

        async def one(r, depth):
            async with sem:
                await self._fetch(*r, depth)

        wake = None
        try:
            while not self.stopped:
                # Cleared before needs() is asked: a unit run after it (a
                # filtered unit's engine asking its next ranges) sets it again.
                self._wake.clear()
                for r in self.scanner.needs():
                    pending.add(asyncio.ensure_future(one(r, self.depth + 1)))
                if wake is None or wake.done():
                    wake = asyncio.ensure_future(self._wake.wait())
                # Woken by a read's answer, or by the consumer or a helper
                # having run a unit (new ranges to ask): not by the next
                # answer alone, which kept a unit's next round waiting up to
                # a round trip behind the reads in flight.
                done, _ = await asyncio.wait(pending | {wake}, timeout=None if pending else 0.05,
                                             return_when=asyncio.FIRST_COMPLETED)
                for t in done:
                    if t is not wake:
                        pending.discard(t)
                        t.result()  # (a failed GET ends the loop; the consumer raises it)
        finally:
            if wake is not None:
                wake.cancel()
                pending.add(wake)
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)


def _held_tails(lake: Lake, selection: list, file_filters: list | None) -> dict:
    """{plan file: (offset, tail bytes)} of the filtered files whose tails
    planning read (``Lake.tail``): the scan engine's runs read the footer's
    bytes, which the scanner would otherwise ask the store for again."""
    if file_filters is None:
        return {}
    out = {}
    for k, ((i, _), f) in enumerate(zip(selection, file_filters)):
        tail = lake.tail(i) if f is not None else None
        if tail is not None:
            out[k] = (int(lake.sizes[i]) - len(tail), tail)
    return out


def _versions(lake: Lake, selection: list) -> list | None:
    """Per selected object its version as the scanner keeps what pruning
    learns under it (ETag and modification time; None: the listing gave
    none, nothing is kept)."""
    if lake.kind != S3:
        return None
    out = []
    for i, _ in selection:
        v = lake.versions[i]
        out.append("\x1f".join(str(x) for x in v) if v is not None and v[0] else None)
    return out


def _sidecar_dir(lake: Lake, keys: list) -> str:
    """Where a filesystem lake's sidecar is: the directory its listing
    walked when the files lie below it (hive keys in subdirectories), else
    their common one."""
    common = posixpath.commonpath([posixpath.dirname(k) for k in keys])
    for d in lake.sidecars:
        if common == d or common.startswith(d + "/"):
            return d
    return common


def _sidecar_tails(lake: Lake, selection: list, io, fetcher: Fetcher, file_filters: list):
    """The sidecar index's tails for the filtered files of a fed scan
    (``_sidecar_s3.RemoteTails``: s3:// objects a fresh entry covers, or
    files on a filesystem), the unfiltered files given none (a sidecar adds
    Bloom filters and page indexes, which only a filter uses); None without
    one. Finding it costs nothing on S3 when the listing showed it, one HEAD
    for a list of URLs; one look-up on a filesystem."""
    picked = [k for k, f in enumerate(file_filters) if f is not None]
    if lake.kind == S3:
        if lake.source_urls is None:
            return None
        items = [(lake.names[i], lake.keys[i], int(lake.sizes[i]), lake.versions[i])
                 for i, _ in (selection[k] for k in picked)]
        endpoint = normalise_options(lake.storage_options).get("endpoint", "")
        find = lambda: object_tails(fetcher, io.store, items, lake.source_urls, lake.sidecars,  # noqa: E731
                                    endpoint)
    else:
        items = [(lake.names[i], lake.keys[i], int(lake.sizes[i]), lake.tail(i))
                 for i, _ in (selection[k] for k in picked)]
        where = _sidecar_dir(lake, [lake.keys[i] for i, _ in selection])
        find = lambda: filesystem_tails(fetcher, io, where, items, lake.sidecars.get(where))  # noqa: E731
    got: list = []

    async def look():
        got.append(await find())

    io.run(look)
    side = got[0]
    if side is None:
        return None
    tails = [(-1, 0, 0)] * len(selection)
    for k, t in zip(picked, side.tails):
        tails[k] = t
    return side._replace(tails=tails)


def _over_sidecar(side, footers: list, tails: dict, versions: list | None) -> None:
    """The plan's footers, held tails and versions of the files read as
    object + tail, changed in place: their footer is the tail's (the
    scanner reads it from the sidecar), and what pruning learns of them is
    kept under the object's version and the sidecar's (its ETag and the
    tail's place; none when either has none)."""
    for k, (size, off, n) in enumerate(side.tails):
        if size < 0:
            continue
        footers[k] = None
        tails.pop(k, None)
        if versions is not None:
            v = versions[k]
            versions[k] = "\x1f".join((v, "sidecar", side.version, str(off), str(n))) if v and side.version else None


def _decode_ahead(sc, feeder: _Feeder) -> None:
    """A helper thread of a remote scan: runs units whose bytes are in
    (decodes, filtered units' engine runs; GIL released) beside the
    consumer, and tells the I/O loop and the consumer when one ran."""
    while not feeder.stopped and not feeder.done:
        if sc.run_task():
            feeder.poke()
            with feeder.progress:
                feeder.fed += 1
                feeder.progress.notify_all()
            continue
        with feeder.progress:
            seen = feeder.fed
            while feeder.fed == seen and not feeder.stopped and not feeder.done:
                feeder.progress.wait(0.05)


def _helpers(threads, ahead: int) -> int:
    """Decoding threads beside the consumer: ``threads`` - 1 (0: one per
    core, at most 8 in all); by default 1 (two decoders, as the staged
    scan's two threads); none for ``head`` (no readahead)."""
    if ahead == 1:
        return 0
    if threads is None:
        return 1
    n = int(threads) if threads > 0 else min(8, os.cpu_count() or 1)
    return max(0, n - 1)


def remote_batches(lake: Lake, selection: list, plan: NativePlan, batch_size: int, memory_limit, ahead: int,
                   info: StreamInfo, file_filters: list | None = None, threads=None) -> Iterator[pa.RecordBatch]:
    """The selected objects' (or filesystem paths') batches, in order: one
    I/O loop fetches what the scanner asks; this thread and ``_helpers``
    more decode. ``file_filters`` as :func:`local_batches` takes them."""
    sizes = [int(lake.sizes[i]) for i, _ in selection]
    footers = _footers(lake, selection, file_filters)
    tails = _held_tails(lake, selection, file_filters)
    versions = _versions(lake, selection)
    if lake.kind == S3:
        io = ObjectStoreIO([lake.names[i] for i, _ in selection], lake.storage_options)
    else:
        # The lake's: the files its footers were read from are open already.
        io = lake.fs_io()
    # Requests counted by round: in the read's own log when it asked for stats.
    fetcher = Fetcher(io) if lake.fetch_log is None else lake.fetch_log.over(io)
    side = None
    if file_filters is not None and any(f is not None for f in file_filters):
        side = _sidecar_tails(lake, selection, io, fetcher, file_filters)
    if side is not None:
        _over_sidecar(side, footers, tails, versions)
    files = [(lake.names[i], n, None if rgs is None else [int(g) for g in rgs]) for (i, rgs), n in zip(selection, sizes)]
    # The footers the lake read already (planning needs them) are not fetched again.
    sc = _pqfast._Scanner(files, plan.specs, None, batch_size=batch_size, coalesce_gap=_REMOTE_GAP,
                          footers=footers, file_filters=file_filters, versions=versions,
                          sidecar_size=side.size if side else None, tails=side.tails if side else None,
                          **_settings(memory_limit, ahead))
    info.sidecar_files += side.used if side else 0
    feeder = _Feeder(sc, io, [lake.keys[i] for i, _ in selection], tails, fetcher, side.key if side else None)
    finish = _finisher(lake, plan, selection)
    feeder.start()
    helpers = [threading.Thread(target=_decode_ahead, args=(sc, feeder), name="pqfast-stream-decode", daemon=True)
               for _ in range(_helpers(threads, ahead))]
    for t in helpers:
        t.start()
    try:
        while True:
            with feeder.progress:
                seen = feeder.fed
            got = sc.next_with_file()
            if got is None:
                return
            if got is False:
                # Units ahead whose bytes are in run here while the head's are
                # fetched: a filtered unit's engine says which ranges it reads
                # next, so units ahead take their rounds of requests together
                # (one at a time, 50 row groups took ~15x the staged scan's
                # time on a 20 ms store); a plain unit is decoded ahead.
                while sc.run_task():
                    pass
                # New ranges may be asked: the loop looks at needs() now, not
                # at its next 50 ms tick.
                feeder.poke()
                with feeder.progress:
                    while feeder.fed == seen and not feeder.done:
                        feeder.progress.wait(0.05)
                        if feeder.fed == seen:
                            feeder.poke()
                if feeder.error is not None:
                    raise feeder.error
                if feeder.done and feeder.fed == seen:
                    raise FormatError(f"invalid argument: {io.source!r}: the stream's I/O loop ended early")
                continue
            k, b = got
            info.update(sc)
            feeder.poke()
            if b.num_rows:
                yield finish(k, b)
    finally:
        feeder.stop()
        sc.cancel()
        with feeder.progress:
            feeder.progress.notify_all()
        for t in helpers:
            t.join()
        feeder.thread.join()
        if lake.kind == S3:
            io.close()  # (an FS lake's I/O is the lake's, kept for its next scans)
        info.update(sc)
        info._closed = True



# Remote file tasks (remote_small_files): files fetched per window, at most
# this many (and a quarter of the readahead bytes); the next windows
# (REMOTE_WINDOWS_AHEAD) are fetched while one is decoded. A window is as
# many files as GETs are in flight: 1,000 objects of 150 KB behind a 10 ms
# proxy took 1.2-1.8 s in windows of 64, 1.7-3.3 s in windows of 128 or 512
# (decoding waits for a whole window to arrive).
REMOTE_WINDOW_FILES = _REMOTE_CONCURRENCY
REMOTE_WINDOWS_AHEAD = 2


def _windows(lake: Lake, selection: list, budget: int) -> list:
    """`selection` cut into consecutive windows of at most
    REMOTE_WINDOW_FILES files and `budget` bytes (a file larger alone: a
    window of its own)."""
    out, cur, nbytes = [], [], 0
    for item in selection:
        n = max(0, int(lake.sizes[item[0]]))
        if cur and (len(cur) >= REMOTE_WINDOW_FILES or nbytes + n > budget):
            out.append(cur)
            cur, nbytes = [], 0
        cur.append(item)
        nbytes += n
    if cur:
        out.append(cur)
    return out


def _summed(totals: dict, stats: dict) -> dict:
    """Scanner counts of several scans as one: numbers added, peaks the largest."""
    out = dict(totals)
    for k, v in stats.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            out.setdefault(k, v)
        elif k.startswith("peak"):
            out[k] = max(out.get(k, 0), v)
        else:
            out[k] = out.get(k, 0) + v
    return out


class _WindowFetcher:
    """Fetches windows of whole objects (one GET each, from offset 0: the
    listing gave the size; _REMOTE_CONCURRENCY in flight) on a thread of its
    own, at most REMOTE_WINDOWS_AHEAD windows ahead of the consumer's."""

    def __init__(self, lake: Lake, io, fetcher: Fetcher, windows: list):
        self.lake, self.io, self.fetcher, self.windows = lake, io, fetcher, windows
        self.done: dict = {}  # window -> [bytes] or the exception
        self.cv = threading.Condition()
        self.wanted = 0  # the consumer's window: fetch up to wanted + 1
        self.stopped = False
        self.thread = threading.Thread(target=self._run, name="pqfast-small-files-io", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for w, window in enumerate(self.windows):
            with self.cv:
                while not self.stopped and w > self.wanted + REMOTE_WINDOWS_AHEAD:
                    self.cv.wait()
                if self.stopped:
                    return
            try:
                got: list = [None] * len(window)

                async def fetch_all():
                    sem = asyncio.Semaphore(_REMOTE_CONCURRENCY)

                    async def one(k, i):
                        async with sem:
                            got[k] = await self.fetcher.get(data_round(w + 1), self.lake.keys[i], 0,
                                                            int(self.lake.sizes[i]))

                    await asyncio.gather(*(one(k, i) for k, (i, _) in enumerate(window)))

                self.io.run(fetch_all)
                value = got
            except BaseException as e:  # noqa: BLE001 - raised in the consumer
                value = e
            with self.cv:
                self.done[w] = value
                self.cv.notify_all()
                if isinstance(value, BaseException):
                    return

    def take(self, w: int) -> list:
        with self.cv:
            self.wanted = w
            self.cv.notify_all()
            while w not in self.done:
                self.cv.wait()
            value = self.done.pop(w)
        if isinstance(value, BaseException):
            raise value
        return value

    def stop(self) -> None:
        with self.cv:
            self.stopped = True
            self.cv.notify_all()
        self.thread.join()


def remote_small_files(lake: Lake, selection: list, plan: NativePlan, batch_size: int, threads, memory_limit,
                       ahead: int, info: StreamInfo, stopped: list) -> Iterator[pa.RecordBatch]:
    """The selected objects (or ``filesystem=`` paths) of a lake of small
    files without a filter, in file tasks: each object fetched whole in one
    GET (its size from the listing; many in flight, window after window,
    the next fetched while one is decoded), its footer parsed from those
    bytes, and decoded by ``_LocalScanner`` file tasks from them (opening
    nothing). The plan is the first file's; the scan ends before the first
    file whose leaf columns differ from it (its index in `selection`
    appended to ``stopped``, as :func:`local_batches` does). A window's
    bytes are at most a quarter of the readahead, 1 + REMOTE_WINDOWS_AHEAD
    windows held at most."""
    readahead = _settings(memory_limit, ahead)["readahead_bytes"]
    windows = _windows(lake, selection, max(1, readahead // 4))
    if lake.kind == S3:
        io = ObjectStoreIO([lake.names[i] for i, _ in selection], lake.storage_options)
    else:
        io = lake.fs_io()
    fetcher = Fetcher(io) if lake.fetch_log is None else lake.fetch_log.over(io)
    n_threads = -1 if ahead == 1 or (threads is not None and threads < 0) else int(threads or 0)
    streamed = not plan.keys and len(plan.out) and plan.convert is None
    read_size = max(batch_size, _CUT_FROM) if streamed else batch_size
    ref = lake.meta(selection[0][0])
    absent = sorted(plan.runs[0].missing)
    pulls = _WindowFetcher(lake, io, fetcher, windows)
    at = 0  # the window's first file, in `selection`
    totals: dict = {}  # the windows' scanner counts, summed (info.stats: the run's)
    try:
        for w, window in enumerate(windows):
            data = pulls.take(w)
            footers, bad = [], None
            for b, (i, _) in zip(data, window):
                try:
                    footers.append(_pqfast._whole_file_footer(b, lake.names[i]))
                except Exception as e:  # (typed by the extension, raised as it came)
                    # The files before the bad one are scanned first: their
                    # batches are yielded before its error, as a local stream's.
                    bad = e
                    break
            del data
            if bad is not None:
                if not footers:
                    raise bad
                window = window[:len(footers)]
            if w > 0 and not _pqfast._same_leaves(ref, footers[:1])[0]:
                # (a window's first file is its scan's reference: one unlike the
                # plan's first starts the next run here)
                stopped.append(at)
                return
            files = [(lake.names[i], int(lake.sizes[i]), None) for i, _ in window]
            sc = _pqfast._LocalScanner(files, plan.specs, None, batch_size=read_size, threads=n_threads,
                                       coalesce_gap=_LOCAL_GAP, footers=footers, file_tasks=True,
                                       stop_at_unlike=True, whole_file_bytes=SMALL_FILE_BYTES,
                                       absent_columns=absent, **_settings(memory_limit, ahead))
            del footers
            info._before = info.started
            try:
                if streamed:
                    yield from _stream_batches(sc, plan.out, info, batch_size)
                else:
                    yield from _finished_batches(sc, _finisher(lake, plan, window), info)
            finally:
                totals = _summed(totals, info.stats)
                info.stats = dict(totals)
            if sc.stopped_at is not None:
                stopped.append(at + sc.stopped_at)
                return
            if bad is not None:
                raise bad
            at += len(window)
    finally:
        pulls.stop()
        if lake.kind == S3:
            io.close()
