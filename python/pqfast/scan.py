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


def _assemble(plans, meta, pieces, nested_chunks=None):
    """The table of the engine's pieces: flat plans' arrays from the pieces (in
    plan order among the flat ones), nested plans' from `nested_chunks`
    ({id(plan): [array per piece]})."""
    import pyarrow as pa

    from .reader import _Plan, _schema_metadata

    arrays, fields = [], []
    j = 0
    for p in plans:
        if isinstance(p, _Plan):
            chunks = [pa.Array._import_from_c_capsule(*piece[3][j]) for piece in pieces]
            j += 1
        else:
            chunks = nested_chunks[id(p)]
        arr = p.finish(chunks)
        arrays.append(arr)
        fields.append(p.field(arr))
    if plans:
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_schema_metadata(meta)))
    num = sum(piece[2] for piece in pieces)
    return pa.table({"_": pa.nulls(num)}).drop_columns(["_"])


def _nested_rows(open_file, nested, pieces, memory_limit):
    """The nested columns' values for the rows the engine selected: each
    matching row group's nested chunks read whole (levels make a record's
    pages unknown without them), then filtered by the piece's selection.
    open_file(file index) -> ParquetFile. {id(plan): [array per piece]}."""
    import numpy as np

    out = {id(p): [] for p in nested}
    names = list(dict.fromkeys(p.name for p in nested))
    opened = {}
    try:
        for piece in pieces:
            fi, rg, sel = piece[0], piece[1], piece[4]
            f = opened.get(fi)
            if f is None:
                f = opened[fi] = open_file(fi)
            t = f.read(columns=names, row_groups=[rg], memory_limit=memory_limit)
            mask = np.unpackbits(np.frombuffer(sel, np.uint8), bitorder="little")[:t.num_rows].astype(bool)
            t = t.filter(mask)
            for p in nested:
                col = t.column(p.name)
                out[id(p)].extend(col.chunks if col.num_chunks else [col.combine_chunks()])
        if not pieces:
            # No row matched: empty arrays of the columns' types.
            f = opened[0] = open_file(0)
            if f.num_row_groups:
                t = f.read(columns=names, row_groups=[0], memory_limit=memory_limit).slice(0, 0)
                for p in nested:
                    out[id(p)].append(t.column(p.name).combine_chunks())
    finally:
        for f in opened.values():
            f.close()
    return out


def _nested_rows_by_filter(open_file, nested, pieces, filters, memory_limit):
    """_nested_rows for engines that do not hand back their row selection
    (object storage): each matching row group is read with the filter's
    columns and filtered by the same filter in pyarrow's semantics, which the
    engine's rows follow. {id(plan): [array per piece]}."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    out = {id(p): [] for p in nested}
    names = list(dict.fromkeys(p.name for p in nested))
    from .filters import normalize

    expr, filter_cols = None, []
    if filters is not None:
        expr = filters if isinstance(filters, pc.Expression) else pq.filters_to_expression(filters)
        filter_cols = list(dict.fromkeys(a.column for conj in normalize(filters) for a in conj))
    opened = {}
    try:
        for piece in pieces:
            fi, rg = piece[0], piece[1]
            f = opened.get(fi)
            if f is None:
                f = opened[fi] = open_file(fi)
            t = f.read(columns=list(dict.fromkeys(names + filter_cols)), row_groups=[rg], memory_limit=memory_limit)
            if expr is not None:
                t = t.filter(expr)
            for p in nested:
                col = t.column(p.name)
                out[id(p)].extend(col.chunks if col.num_chunks else [col.combine_chunks()])
        if not pieces:
            f = opened[0] = open_file(0)
            if f.num_row_groups:
                t = f.read(columns=names, row_groups=[0], memory_limit=memory_limit).slice(0, 0)
                for p in nested:
                    out[id(p)].append(t.column(p.name).combine_chunks())
    finally:
        for f in opened.values():
            f.close()
    return out


_TAIL = 64 * 1024  # first read of each object's tail


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


def _scan_remote(source: Any, columns, filters, storage_options, threads, stats, flags, memory_limit=None):
    """read_table(filters=) on s3:// URLs: at most five request rounds for a
    lookup: the listing; the remote pruner's tails and Bloom blocks (many files
    in flight); then the tails and kept row groups of the files to read, in
    one round; the engine runs over those bytes (a read outside them is one
    more ranged GET)."""
    import asyncio

    import obstore

    from . import remote
    from .filters import normalize
    from .reader import _plans

    t0 = time.perf_counter()
    store, items = remote.resolve(source, storage_options)  # [(url, key, size)]
    if not items:
        raise FormatError(f"invalid argument: no objects match {source!r}")
    dnf_atoms = normalize(filters) if filters is not None else None
    keep: dict[int, set[int]] | None = None
    firsts = _first_bloom_atoms(dnf_atoms) if dnf_atoms else None
    rounds = 1
    if firsts is not None:
        keep = {}
        index = {u: i for i, (u, _, _) in enumerate(items)}
        sizes = {u: size for u, _, size in items if size >= 0}
        done = set()
        for a in firsts:
            key = (a.column, repr(a.values))
            if key in done:
                continue
            done.add(key)
            t = remote.prune_remote([u for u, _, _ in items], a.column, list(a.values),
                                    storage_options=storage_options, sizes=sizes or None)
            for path, rg, verdict in zip(t["path"].to_pylist(), t["row_group"].to_pylist(),
                                         t["verdict"].to_pylist()):
                if verdict != "absent":
                    keep.setdefault(index[path], set()).add(int(rg))
        rounds += 2
    targets = sorted(set(range(len(items))) if keep is None else set(keep) | {0})

    async def fetch_tails(ids):
        async def one(i):
            url, key, size = items[i]
            if size < 0:
                # Size unknown (an explicit URL): a suffix GET brings the tail and the size.
                r = await obstore.get_async(store, key, options={"range": {"suffix": _TAIL}})
                items[i] = (url, key, int(r.meta["size"]))
                return bytes(await r.bytes_async())
            n = min(size, _TAIL)
            return bytes(await obstore.get_range_async(store, key, start=size - n, length=n))
        return await asyncio.gather(*(one(i) for i in ids))

    items = list(items)
    tails = dict(zip(targets, remote.run(fetch_tails(targets))))
    rounds += 1
    # Footers larger than the first tail read: read again, whole.
    big = []
    ranges_of = {}
    for i in targets:
        need, rg_ranges = _pqfast._row_group_ranges(tails[i], items[i][2], sorted(keep.get(i, ())) if keep else [])
        if need > len(tails[i]):
            big.append((i, need))
        ranges_of[i] = rg_ranges
    if big:
        async def refetch():
            async def one(i, need):
                _, key, size = items[i]
                return bytes(await obstore.get_range_async(store, key, start=size - need, length=need))
            return await asyncio.gather(*(one(i, n) for i, n in big))
        for (i, _), tail in zip(big, remote.run(refetch())):
            tails[i] = tail
            ranges_of[i] = _pqfast._row_group_ranges(tail, items[i][2], sorted(keep.get(i, ())) if keep else [])[1]
        rounds += 1
    first = tails[targets[0]]
    meta = _pqfast._parse_file_metadata(first[-_pqfast._row_group_ranges(first, items[targets[0]][2], [])[0]:-8])
    plans = _plans(meta, items[targets[0]][0], columns)
    descs = _descs_with_units(meta)
    dnf = _encode_filter(dnf_atoms, descs, items[targets[0]][0]) if dnf_atoms is not None else None
    read_ids = targets if keep is None else sorted(keep)
    # The kept row groups' bytes, all files in one round.
    data = {}
    if keep:
        async def fetch_groups():
            async def one(i):
                _, key, _ = items[i]
                rr = ranges_of[i]
                if not rr:
                    return []
                got = await obstore.get_ranges_async(store, key, starts=[o for o, _ in rr], lengths=[n for _, n in rr])
                return [(o, bytes(b)) for (o, _), b in zip(rr, got)]
            return await asyncio.gather(*(one(i) for i in read_ids))
        data = dict(zip(read_ids, remote.run(fetch_groups())))
        rounds += 1

    def fallback(key):
        return lambda off, n: bytes(obstore.get_range(store, key, start=int(off), length=int(n)))

    files = []
    for i in read_ids:
        url, key, size = items[i]
        rr = [(size - len(tails[i]), tails[i])] + data.get(i, [])
        files.append((url, size, rr, sorted(keep[i]) if keep is not None else [], fallback(key)))
    specs = [(p.name, p.layout, p.format) for p in plans]
    n_threads = int(threads) if threads else 64
    pieces, st = _pqfast._scan_ranges(files, specs, dnf, n_threads, *flags, _memory_limit(memory_limit))
    table = _assemble(plans, meta, pieces)
    if stats:
        st = dict(st)
        st["files"] = len(items)
        st["rounds"] = rounds + (1 if st.get("fallback_reads") else 0)
        st["seconds"] = time.perf_counter() - t0
        return table, st
    return table


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
    from .reader import _Plan

    specs = [(p.name, p.layout, p.format) for p in plans if isinstance(p, _Plan)]
    nested = [p for p in plans if not isinstance(p, _Plan)]
    sel = None
    if use_bloom and dnf:
        # A sidecar index beside the files (pqfast.index(..., sidecar=...)):
        # the row groups its filters rule out are not scanned.
        from ._sidecar import scan_row_groups

        sel = scan_row_groups(paths, dnf)
    kept, groups = (sel[0], sel[1]) if sel is not None else (paths, None)
    pieces, st = _pqfast._scan_local(kept, specs, dnf, int(n_threads), use_statistics, use_bloom, use_dictionary,
                                     use_page_index, _memory_limit(memory_limit), groups, bool(nested))
    nested_chunks = None
    if nested:
        from .parquet import ParquetFile

        nested_chunks = _nested_rows(lambda i: ParquetFile(kept[i]), nested, pieces, memory_limit)
    if sel is not None:
        st = dict(st)
        st["files"] = len(paths)
        st["row_groups_pruned_by_sidecar"] = sel[2]
    table = _assemble(plans, meta, pieces, nested_chunks)
    if stats:
        st = dict(st)
        st["seconds"] = time.perf_counter() - t0
        return table, st
    return table
