"""``read_table(..., filters=...)``: the rows of a lake that a filter keeps, read
by the native scan engine (``src/scan/``, see ``pqfast/scan.h``).

Python builds the call: the files (a path, a directory, a glob or a list),
the projected columns typed from the first file's schema (as
``pyarrow.dataset`` does), and the filter normalized to an OR of ANDs of
atoms (``pqfast.filters``) whose values are typed by each column. C++ does the
rest with the GIL released: row groups pruned by min/max and Bloom filters,
chunks by their dictionaries, pages by the ColumnIndex, the filter columns
decoded and evaluated on what is left, and the projected columns read for
the selected rows only. The pieces come back through the Arrow C Data
Interface and are assembled here into one ``pyarrow.Table``.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

from . import _pqfast
from ._pqfast import FormatError

_LT_DECIMAL = 5  # parquet.thrift LogicalType union id


def _local_paths(source: Any) -> list[str]:
    from .parquet import expand_paths

    if hasattr(source, "read") or hasattr(source, "read_at"):
        raise FormatError("invalid argument: filters= takes paths, directories, globs or lists of them, "
                          "not file objects")
    return expand_paths(source)


def _descs_with_units(meta) -> dict:
    """Leaf descriptors by dotted path; an Arrow duration's carries its unit
    (filters then take timedelta values, as read_table returns them)."""
    from .reader import duration_units

    units = duration_units(meta)
    descs = {}
    for d in meta.columns():
        if d["physical_type"] == "INT64" and len(d["path"]) == 1 and d["path"][0] in units:
            d = dict(d, duration_unit=units[d["path"][0]])
        descs[d["dotted_path"]] = d
    return descs


def _encode_filter(dnf, descs: dict, path: str):
    """The DNF as the binding takes it: per atom (column, op, negate, physical
    type, type_length, data, offsets, set_has_null). A conjunct holding a
    comparison with a null literal is never TRUE and is dropped."""
    from .filters import encode_atom_values
    from .parquet import _scale

    out = []
    for conj in dnf:
        atoms = []
        dead = False
        for a in conj:
            desc = descs.get(a.column)
            if desc is None:
                names = ", ".join(list(descs)[:12])
                raise KeyError(f"{path}: filter on column {a.column!r}: no such column (columns: {names})")
            if a.op not in ("in", "is_null") and (not a.values or a.values[0] is None):
                dead = True
                break
            if a.op == "is_null":
                atoms.append((a.column, a.op, bool(a.negate), desc["physical_type"], 0, b"", None, False, -1))
                continue
            data, offsets, tl, has_null = encode_atom_values(desc, a)
            lt = desc["logical_type"]
            scale = -1
            if lt["kind"] == _LT_DECIMAL or desc.get("converted_type") == "DECIMAL":
                scale = int(_scale(desc))
            atoms.append((a.column, a.op, bool(a.negate), desc["physical_type"], int(tl), data, offsets,
                          bool(has_null), scale))
        if not dead:
            out.append(atoms)
    return out


def _assemble(plans, meta, pieces):
    import pyarrow as pa

    from .reader import _schema_metadata

    arrays, fields = [], []
    for j, p in enumerate(plans):
        chunks = [pa.Array._import_from_c_capsule(*piece[3][j]) for piece in pieces]
        arr = p.finish(chunks)
        arrays.append(arr)
        fields.append(p.field(arr))
    if plans:
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_schema_metadata(meta)))
    num = sum(piece[2] for piece in pieces)
    return pa.table({"_": pa.nulls(num)}).drop_columns(["_"])


_TAIL = 64 * 1024  # first read of each object's tail
# Ranges a staged scan needs that lie closer than this are fetched in one
# GET: on object storage a request costs about what ~64 KiB over the wire
# does (SeaweedFS behind the +20 ms proxy: ~0.35 ms against ~4 ms per MiB).
_GAP = 64 * 1024
_IN_FLIGHT = 256  # ranged GETs in flight at once
_MAX_RUNS = 16    # engine runs of a staged scan (a lookup takes 3)


def _first_bloom_atoms(dnf):
    """Per AND, its first `=`/`in` atom without None (what the remote pruner
    can prove absent), or None when some AND has none."""
    firsts = []
    for conj in dnf:
        a = next((a for a in conj if a.op in ("eq", "in") and not a.negate and a.values
                  and all(v is not None for v in a.values)), None)
        if a is None:
            return None
        firsts.append(a)
    return firsts


class _Fetcher:
    """Ranged GETs of one store, many in flight, counted by round: a round is
    a set of requests issued together, whose latencies overlap."""

    def __init__(self, store):
        import asyncio

        self.store = store
        self.gate = asyncio.Semaphore(_IN_FLIGHT)
        self.rounds: list[dict] = []

    def round(self, what: str) -> dict:
        r = {"what": what, "requests": 0, "bytes": 0, "ms": 0.0}
        self.rounds.append(r)
        return r

    async def get(self, rnd: dict, key: str, offset: int, length: int) -> bytes:
        import obstore

        async with self.gate:
            rnd["requests"] += 1
            data = await obstore.get_range_async(self.store, key, start=int(offset), length=int(length))
        rnd["bytes"] += len(data)
        return data

    async def suffix(self, rnd: dict, key: str, n: int):
        """(object size, its last n bytes or fewer)."""
        import obstore

        async with self.gate:
            rnd["requests"] += 1
            r = await obstore.get_async(self.store, key, options={"range": {"suffix": int(n)}})
            data = await r.bytes_async()
        rnd["bytes"] += len(data)
        return int(r.meta["size"]), data

    async def timed(self, rnd: dict, coro):
        t = time.perf_counter()
        try:
            return await coro
        finally:
            rnd["ms"] += (time.perf_counter() - t) * 1e3


def _scan_remote(source: Any, columns, filters, storage_options, threads, stats, flags, memory_limit=None):
    """read_table(filters=) on s3:// URLs, a staged scan: the listing; every
    file's tail (footer and, as pyarrow writes it, the page index); the
    Bloom filter blocks of the first `=`/`in` atom of each AND (header and
    blocks in one GET per filter, files in flight together); then the native
    engine runs over the bytes fetched so far, each run recording the ranges
    it lacks (ErrorCode::kNotFetched) and the next round fetching them for
    every file at once: the filter columns' dictionaries and candidate pages,
    then the projected columns' pages holding selected rows. A lookup is five
    request rounds."""
    import asyncio

    from . import remote
    from .filters import normalize
    from .reader import _plans

    t0 = time.perf_counter()
    use_statistics, _, use_dictionary, use_page_index = flags
    limit = _memory_limit(memory_limit)
    t_list = time.perf_counter()
    store, items = remote.resolve(source, storage_options)  # [(url, key, size)]
    listing_ms = (time.perf_counter() - t_list) * 1e3
    if not items:
        raise FormatError(f"invalid argument: no objects match {source!r}")
    items = list(items)
    dnf_atoms = normalize(filters) if filters is not None else None
    firsts = _first_bloom_atoms(dnf_atoms) if dnf_atoms else None
    n_threads = int(threads) if threads else 64

    async def tails_round(f: _Fetcher):
        rnd = f.round("tails")

        async def one(i):
            url, key, size = items[i]
            try:
                if size < 0:  # an explicit URL: a suffix GET gives the size too
                    size, data = await f.suffix(rnd, key, _TAIL)
                    items[i] = (url, key, size)
                else:
                    n = min(size, _TAIL)
                    data = await f.get(rnd, key, size - n, n)
                need, _ = _pqfast._row_group_ranges(data, size, [])
                if need > len(data):  # a footer longer than the tail: read it whole
                    more = await f.get(rnd, key, size - need, need - len(data))
                    data = bytes(more) + bytes(data)
                return bytes(data)
            except FormatError:
                raise
            except Exception as e:  # noqa: BLE001 - worded with the file
                raise FormatError(f"{url}: {remote.describe_error(e, store)}") from None

        return await f.timed(rnd, asyncio.gather(*(one(i) for i in range(len(items)))))

    async def bloom_round(f: _Fetcher, tails, queries):
        """Per file the row groups some query keeps (None: all), the page
        indexes of those outside the tail fetched in the same go."""
        rnd = f.round("bloom blocks")

        async def one(i):
            url, key, size = items[i]
            tail = tails[i]
            kept: set | None = set()
            counts = None
            for q in queries:
                p = q.file(url, size, len(tail))
                p.feed(size - len(tail), tail)
                while not p.done:
                    needs = p.needs
                    try:
                        got = await asyncio.gather(*(f.get(rnd, key, o, n) for o, n in needs))
                    except Exception as e:  # noqa: BLE001 - worded with the file
                        raise FormatError(f"{url}: {remote.describe_error(e, store)}") from None
                    for (o, _), d in zip(needs, got):
                        p.feed(o, d)
                        if p.done:
                            break
                k = p.kept
                if k is None:  # the pruner could not decide (another type...): the engine does
                    kept, counts = None, None
                    break
                kept.update(k)
                if counts is None:
                    counts = p.counts
            extra = []
            if kept is None or kept:
                rgs = sorted(kept) if kept is not None else None
                extra = await page_indexes(rnd, i, tail, rgs)
            if counts is not None and len(queries) > 1:
                counts = (counts[0], 0, counts[0] - len(kept))  # ORs: ruled out by every query
            return kept, extra, counts

        return await f.timed(rnd, asyncio.gather(*(one(i) for i in range(len(items)))))

    async def page_indexes(rnd, i, tail, rgs):
        """The page indexes of these row groups (None: all) that the tail does not hold."""
        url, key, size = items[i]
        if not use_page_index:
            return []
        if rgs is None:
            meta = _pqfast._parse_file_metadata(tail[-_pqfast._row_group_ranges(tail, size, [])[0]:-8])
            rgs = list(range(meta.num_row_groups))
        _, spans = _pqfast._row_group_ranges(tail, size, rgs, True)
        lo_tail = size - len(tail)
        want = [(o, min(o + n, lo_tail) - o) for o, n in spans if o < lo_tail]
        want = _merge(want, _GAP)
        try:
            got = await asyncio.gather(*(f_get(rnd, key, o, n) for o, n in want))
        except Exception as e:  # noqa: BLE001
            raise FormatError(f"{url}: {remote.describe_error(e, store)}") from None
        return list(zip([o for o, _ in want], got))

    fetcher: list = []

    def f_get(rnd, key, o, n):
        return fetcher[0].get(rnd, key, o, n)

    async def prune_part():
        f = _Fetcher(store)
        fetcher.append(f)
        tails = await tails_round(f)
        first = tails[0]
        meta = _pqfast._parse_file_metadata(first[-_pqfast._row_group_ranges(first, items[0][2], [])[0]:-8])
        descs = _descs_with_units(meta)
        kept = [None] * len(items)
        extras = [[] for _ in items]
        pruned = [None] * len(items)
        if firsts is not None:
            from .parquet import _as_list_or_array, encode_values

            queries, seen = [], set()
            for a in firsts:
                k = (a.column, repr(a.values))
                if k in seen:
                    continue
                seen.add(k)
                desc = descs.get(a.column)
                if desc is None:
                    raise KeyError(f"{items[0][0]}: filter on column {a.column!r}: no such column "
                                   f"(columns: {', '.join(list(descs)[:12])})")
                pt, tl, data, offsets = encode_values(desc, _as_list_or_array(list(a.values)))
                # Block reads, each filter's header and blocks in one GET (no coalescing).
                queries.append(_pqfast._prune_query(a.column, pt, tl, data, offsets, False, use_statistics, True,
                                                    0, True))
            res = await bloom_round(f, tails, queries)
            kept = [k for k, _, _ in res]
            extras = [e for _, e, _ in res]
            pruned = [c for _, _, c in res]
        elif use_page_index:
            rnd = f.round("page indexes")
            extras = await f.timed(rnd, asyncio.gather(*(page_indexes(rnd, i, tails[i], None)
                                                         for i in range(len(items)))))
        return f, tails, meta, kept, extras, pruned

    t_prune = time.perf_counter()
    with remote._NoCyclicGC():
        f, tails, meta, kept, extras, pruned = remote.run(prune_part())
    prune_ms = (time.perf_counter() - t_prune) * 1e3
    engine_ms = 0.0
    plans = _plans(meta, items[0][0], columns)
    descs = _descs_with_units(meta)
    dnf = _encode_filter(dnf_atoms, descs, items[0][0]) if dnf_atoms is not None else None
    read_ids = [i for i in range(len(items)) if kept[i] is None or kept[i]]
    specs = [(p.name, p.layout, p.format) for p in plans]
    files = {}
    for i in read_ids:
        url, key, size = items[i]
        ff = _pqfast._FetchedFile(url, size)
        ff.add(size - len(tails[i]), tails[i])
        for o, d in extras[i]:
            ff.add(o, d)
        files[i] = ff
    groups = {i: (sorted(kept[i]) if kept[i] is not None else []) for i in read_ids}
    pieces: list = []
    # The stats of the files the engine reads, plus what the remote pruner ruled out.
    st: dict = dict(_pqfast._scan_fetched([], [], [], specs, dnf)[1])
    for c in pruned:
        if c is not None:
            st["row_groups"] += c[1] + c[2]
            st["row_groups_pruned_by_statistics"] += c[1]
            st["row_groups_pruned_by_bloom"] += c[2]
    waiting = list(read_ids)
    runs = 0
    held = sum(len(t) for t in tails)
    while waiting:
        runs += 1
        t_run = time.perf_counter()
        got, run_stats, pending = _pqfast._scan_fetched([files[i] for i in waiting], waiting,
                                                        [groups[i] for i in waiting], specs, dnf, n_threads,
                                                        use_statistics, use_dictionary, use_page_index, limit)
        engine_ms += (time.perf_counter() - t_run) * 1e3
        pieces.extend(got)
        for k, v in run_stats.items():
            st[k] = st.get(k, 0) + v
        waiting = [waiting[j] for j in pending]
        if not waiting:
            break
        needs = {i: files[i].take_needs(_GAP) for i in waiting}
        total = sum(n for rr in needs.values() for _, n in rr)
        if total == 0 or runs >= _MAX_RUNS:
            raise FormatError(f"{items[waiting[0]][0]}: the scan keeps asking for bytes it was given "
                              f"({runs} runs)")
        held += total
        if limit and held > limit:
            from ._pqfast import MemoryLimitError

            raise MemoryLimitError(f"memory limit: the scan of {len(read_ids)} objects would hold "
                                   f"{held} fetched bytes, past the limit of {limit}")

        async def fetch_round(needs=needs, n=runs):
            rnd = f.round(f"engine run {n}")

            async def one(i, o, ln):
                url, key, _ = items[i]
                try:
                    return i, o, await f.get(rnd, key, o, ln)
                except Exception as e:  # noqa: BLE001
                    raise FormatError(f"{url}: {remote.describe_error(e, store)}") from None

            return await f.timed(rnd, asyncio.gather(*(one(i, o, ln) for i, rr in needs.items() for o, ln in rr)))

        with remote._NoCyclicGC():
            for i, o, d in remote.run(fetch_round()):
                files[i].add(o, d)
    pieces.sort(key=lambda p: (p[0], p[1]))
    table = _assemble(plans, meta, pieces)
    if stats:
        st["files"] = len(items)
        st["files_pruned_remotely"] = len(items) - len(read_ids)
        rounds = [{"what": "listing", "requests": 1 + len(items) // 1000, "bytes": 0, "ms": round(listing_ms, 1)}]
        rounds += [dict(r, ms=round(r["ms"], 1)) for r in f.rounds if r["requests"]]
        st["rounds"] = len(rounds)
        st["round_detail"] = rounds
        st["requests"] = sum(r["requests"] for r in rounds)
        st["bytes_fetched"] = sum(r["bytes"] for r in rounds)
        st["engine_runs"] = runs
        st["engine_ms"] = round(engine_ms, 1)
        st["prune_ms"] = round(prune_ms, 1)
        st["seconds"] = time.perf_counter() - t0
        return table, st
    return table


def _merge(ranges, gap):
    out = []
    for o, n in sorted(ranges):
        if n <= 0:
            continue
        if out and o <= out[-1][0] + out[-1][1] + gap:
            out[-1] = (out[-1][0], max(out[-1][1], o + n - out[-1][0]))
        else:
            out.append((o, n))
    return out


def _memory_limit(limit) -> int:
    """memory_limit= as the bindings take it: bytes, 0 for the default."""
    if limit is None:
        return 0
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise FormatError(f"invalid argument: memory_limit must be a positive number of bytes, not {limit!r}")
    return int(limit)


def scan_table(source: Any, columns: Sequence[str] | None = None, filters: Any = None, *,
               threads: int | None = None, use_threads: bool = True, stats: bool = False,
               use_statistics: bool = True, use_bloom: bool = True, use_dictionary: bool = True,
               use_page_index: bool = True, storage_options: dict | None = None,
               memory_limit: int | None = None):
    """The rows of ``source`` that ``filters`` keeps, as a ``pyarrow.Table`` (see
    :func:`pqfast.read_table`). With ``stats=True``: ``(table, dict)`` where the
    dict says what was read (files, row groups, pages, bytes, seconds)."""
    from .filters import normalize
    from .parquet import ParquetFile, _remote_urls
    from .reader import _plans

    if _remote_urls(source):
        # Row groups were pruned remotely already: no Bloom filter read again.
        return _scan_remote(source, columns, filters, storage_options, threads, stats,
                            (use_statistics, False, use_dictionary, use_page_index), memory_limit)
    t0 = time.perf_counter()
    paths = _local_paths(source)
    if not paths:
        raise FormatError(f"invalid argument: no Parquet files in {os.fspath(source) if isinstance(source, (str, os.PathLike)) else source!r}")
    with ParquetFile(paths[0]) as first:
        meta = first._meta
        plans = _plans(meta, paths[0], columns)
        descs = _descs_with_units(meta)
    dnf = None
    if filters is not None:
        dnf = _encode_filter(normalize(filters), descs, paths[0])
    n_threads = threads if threads is not None else (0 if use_threads else 1)
    specs = [(p.name, p.layout, p.format) for p in plans]
    sel = None
    if use_bloom and dnf:
        # A sidecar index beside the files (pqfast.index(..., sidecar=...)):
        # the row groups its filters rule out are not scanned.
        from ._sidecar import scan_row_groups

        sel = scan_row_groups(paths, dnf)
    kept, groups = (sel[0], sel[1]) if sel is not None else (paths, None)
    pieces, st = _pqfast._scan_local(kept, specs, dnf, int(n_threads), use_statistics, use_bloom, use_dictionary,
                                     use_page_index, _memory_limit(memory_limit), groups)
    if sel is not None:
        st = dict(st)
        st["files"] = len(paths)
        st["row_groups_pruned_by_sidecar"] = sel[2]
    table = _assemble(plans, meta, pieces)
    if stats:
        st = dict(st)
        st["seconds"] = time.perf_counter() - t0
        return table, st
    return table
