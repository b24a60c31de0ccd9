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
    from .parquet import _remote_urls, expand_paths

    if _remote_urls(source):
        raise FormatError("invalid argument: filters= on s3:// URLs is not supported yet; "
                          "use pqfast.read_pruned or pqfast.dask.read_pruned for object storage")
    if hasattr(source, "read") or hasattr(source, "read_at"):
        raise FormatError("invalid argument: filters= takes paths, directories, globs or lists of them, "
                          "not file objects")
    return expand_paths(source)


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


def scan_table(source: Any, columns: Sequence[str] | None = None, filters: Any = None, *,
               threads: int | None = None, use_threads: bool = True, stats: bool = False,
               use_statistics: bool = True, use_bloom: bool = True, use_dictionary: bool = True,
               use_page_index: bool = True):
    """The rows of ``source`` that ``filters`` keeps, as a ``pyarrow.Table`` (see
    :func:`pqfast.read_table`). With ``stats=True``: ``(table, dict)`` where the
    dict says what was read (files, row groups, pages, bytes, seconds)."""
    import pyarrow as pa

    from .filters import normalize
    from .parquet import ParquetFile
    from .reader import _plans, _schema_metadata

    t0 = time.perf_counter()
    paths = _local_paths(source)
    if not paths:
        raise FormatError(f"invalid argument: no Parquet files in {os.fspath(source) if isinstance(source, (str, os.PathLike)) else source!r}")
    with ParquetFile(paths[0]) as first:
        meta = first._meta
        plans = _plans(meta, paths[0], columns)
        descs = {d["dotted_path"]: d for d in meta.columns()}
    dnf = None
    if filters is not None:
        dnf = _encode_filter(normalize(filters), descs, paths[0])
    n_threads = threads if threads is not None else (0 if use_threads else 1)
    specs = [(p.name, p.layout, p.format) for p in plans]
    pieces, st = _pqfast._scan_local(paths, specs, dnf, int(n_threads), use_statistics, use_bloom,
                                     use_dictionary, use_page_index)
    arrays, fields = [], []
    for j, p in enumerate(plans):
        chunks = [pa.Array._import_from_c_capsule(*piece[3][j]) for piece in pieces]
        arr = p.finish(chunks)
        arrays.append(arr)
        fields.append(p.field(arr))
    if plans:
        table = pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_schema_metadata(meta)))
    else:
        num = sum(piece[2] for piece in pieces)
        table = pa.table({"_": pa.nulls(num)}).drop_columns(["_"])
    if stats:
        st = dict(st)
        st["seconds"] = time.perf_counter() - t0
        return table, st
    return table
