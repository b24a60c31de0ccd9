"""Hive-style partitions: ``lake/year=2024/region=eu/part-0.parquet``.

A directory (local, on a ``filesystem=``, or an ``s3://`` prefix ending in
"/") read by ``read_table`` gives, beside the files' columns, one column per
``key=value`` directory level, as ``pyarrow.parquet.read_table``
(``partitioning="hive"``, its default) gives them, so tables compare equal:

- a level's value is URI-unescaped (``a%2Fb`` is ``a/b``; an invalid escape
  stays as written); ``__HIVE_DEFAULT_PARTITION__`` is null;
- a key's type is int32 when every non-null value of it is a decimal int32
  (leading zeros allowed, no ``+``), else string; a key with no non-null value
  cannot be typed and is an error, as in pyarrow;
- the column is ``dictionary<int32 indices>``: its dictionary is every value
  of the key, in the order the sorted files first show it; a file whose path
  lacks the key gives null indices over an empty dictionary, a null value a
  dictionary of one null (pyarrow's own arrays, reproduced);
- the columns follow the files' columns, keys in order of first appearance;
  a key the files also hold as a column (polars writes both) is not added:
  the files' column is read (pyarrow refuses such a lake).

Filters on partition keys are decided here, per directory, before any file
is opened (from the listing alone: an object on S3 is not fetched): a file
none of whose OR-branches can hold is not read; the atoms
on keys are dropped from the branches that remain (``fold``), and the
engine filters the files' own columns by what is left.
"""

from __future__ import annotations

import re
from typing import Any, Sequence
from urllib.parse import unquote

import numpy as np
import pyarrow as pa

from ._pqfast import FormatError
from .filters import _atom_true

NULL_SEGMENT = "__HIVE_DEFAULT_PARTITION__"

_INT32 = re.compile(r"-?[0-9]+\Z")


def _unescape(raw: str) -> str:
    try:
        return unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return raw


def _keys(relative_dir: str) -> list[tuple[str, str | None]]:
    """The (key, value) pairs of a file's directories below the root."""
    out = []
    for seg in relative_dir.split("/"):
        key, eq, raw = seg.partition("=")
        if not eq or not key:
            continue
        out.append((key, None if raw == NULL_SEGMENT else _unescape(raw)))
    return out


def _is_int32(s: str) -> bool:
    return _INT32.match(s) is not None and -(2**31) <= int(s) < 2**31


class Partitions:
    """The partition keys of a list of files (see the module docstring)."""

    def __init__(self, names: list[str], types: dict, dictionaries: dict, per_file: list[dict]):
        self.names = names
        self.types = types                # name -> pa.int32() | pa.string()
        self.dictionaries = dictionaries  # name -> pa.Array of the values, first-seen order
        self.per_file = per_file          # per file: name -> value (absent key: missing)

    def without(self, columns) -> "Partitions | None":
        """These partitions less the keys the files hold as columns (polars
        writes them into the files too): the files' values are read, not
        the directory's, and no directory is chosen by them. None when no
        key is left. (pyarrow refuses such a lake: "Unable to merge".)"""
        drop = [n for n in self.names if n in columns]
        if not drop:
            return self
        names = [n for n in self.names if n not in drop]
        if not names:
            return None
        return Partitions(names, {n: self.types[n] for n in names}, {n: self.dictionaries[n] for n in names},
                          [{k: v for k, v in vals.items() if k in names} for vals in self.per_file])

    # -- columns -------------------------------------------------------------

    def split(self, columns):
        """(the files' columns to read, the keys to append) for a projection
        (None: every column of the files, then every key)."""
        if columns is None:
            return None, self.names
        return [c for c in columns if c not in self.types], [c for c in columns if c in self.types]

    def column_chunk(self, name: str, file: int, rows: int):
        """The partition column `name` for `rows` rows of file number `file`."""
        typ = self.types[name]
        vals = self.per_file[file]
        if name not in vals:
            return pa.DictionaryArray.from_arrays(pa.nulls(rows, pa.int32()), pa.array([], typ))
        v = vals[name]
        if v is None:
            return pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), pa.nulls(1, typ))
        index = self._index[name][v]
        return pa.DictionaryArray.from_arrays(pa.array(np.full(rows, index, np.int32)), self.dictionaries[name])

    def field(self, name: str):
        return pa.field(name, pa.dictionary(pa.int32(), self.types[name]))

    def with_columns(self, table, names: Sequence[str], files: Sequence[int], rows: Sequence[int]):
        """`table` (the rows of `files`, `rows[i]` from files[i], in order)
        with the partition columns `names` appended."""
        for name in names:
            chunks = [self.column_chunk(name, f, n) for f, n in zip(files, rows) if n]
            col = pa.chunked_array(chunks, pa.dictionary(pa.int32(), self.types[name]))
            table = table.append_column(self.field(name), col)
        return table

    # -- filters ---------------------------------------------------------------

    def fold(self, dnf) -> list:
        """Per file: None (no row can match: not read), True (every row
        matches as far as the keys go and no other atom is left: no filter),
        or the DNF left for the file's own columns (a list of conjunctions).
        Atoms on keys are evaluated once per distinct set of key values, by
        pyarrow.compute, with pyarrow's semantics."""
        keyed = {a for conj in dnf for a in conj if a.column in self.types}
        distinct: dict = {}
        file_group = []
        for vals in self.per_file:
            k = tuple(vals.get(n, None) for n in self.names)
            file_group.append(distinct.setdefault(k, len(distinct)))
        rows = list(distinct)
        table = pa.table({n: pa.array([r[i] for r in rows], self.types[n]) for i, n in enumerate(self.names)})
        truth = {a: np.asarray(_atom_true(table, a), bool) for a in keyed}
        per_group = []
        for g in range(len(rows)):
            left = []
            whole = False
            for conj in dnf:
                if any(not truth[a][g] for a in conj if a in truth):
                    continue
                rest = [a for a in conj if a not in truth]
                if not rest:
                    whole = True
                    break
                left.append(rest)
            per_group.append(True if whole else (left or None))
        return [per_group[g] for g in file_group]

    @property
    def _index(self) -> dict:
        cache = self.__dict__.get("_index_cache")
        if cache is None:
            cache = {n: {v: i for i, v in enumerate(d.to_pylist())} for n, d in self.dictionaries.items()}
            self.__dict__["_index_cache"] = cache
        return cache


def _below(base: str, path: str) -> str:
    """`path` relative to `base` (a directory, "/"-ended); "" when not under it."""
    return path[len(base):] if path.startswith(base) else ""


def has_keys(root: str, paths: Sequence[str]) -> bool:
    """Whether a directory level below `root` of some path has an "=" (a
    ``key=value`` level, or maybe one)."""
    base = root.rstrip("/") + "/"
    # The common lake has no "=" in its paths: one substring test (a lookup lists its lake on every call).
    return "=" in "\0".join(paths) and any("=" in _below(base, p).rpartition("/")[0] for p in paths)


def discover(root: str, paths: Sequence[str]) -> Partitions | None:
    """The hive partitions of `paths` (files under directory or prefix
    `root`, sorted), or None when no file sits below a ``key=value`` level."""
    if not has_keys(root, paths):
        return None
    base = root.rstrip("/") + "/"
    names: list[str] = []
    raw_values: dict[str, list[str]] = {}
    per_file: list[dict[str, Any]] = []
    for p in paths:
        d = _below(base, p).rpartition("/")[0]
        vals: dict[str, Any] = {}
        for key, v in _keys(d):
            if key in vals:
                continue
            vals[key] = v
            if key not in raw_values:
                names.append(key)
                raw_values[key] = []
            if v is not None:
                raw_values[key].append(v)
        per_file.append(vals)
    if not names:
        return None
    types, dictionaries = {}, {}
    for n in names:
        vs = list(dict.fromkeys(raw_values[n]))
        if not vs:
            raise FormatError(f"invalid argument: {root}: partition key {n!r} is {NULL_SEGMENT} in every "
                              f"directory: its type cannot be inferred (pyarrow refuses it too); pass "
                              f"partitioning=None to read the files without it")
        if all(_is_int32(v) for v in vs):
            types[n] = pa.int32()
            ints = list(dict.fromkeys(int(v) for v in vs))
            dictionaries[n] = pa.array(ints, pa.int32())
            for vals in per_file:
                if vals.get(n) is not None:
                    vals[n] = int(vals[n])
        else:
            types[n] = pa.string()
            dictionaries[n] = pa.array(vs, pa.string())
    return Partitions(names, types, dictionaries, per_file)
