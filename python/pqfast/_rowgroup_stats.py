"""What a row group's footer statistics say about a filter: every row
matches ("all"), none does ("none"), or the rows must be read ("some").

``Dataset.count_rows(filter=)`` counts "all" row groups from the footer and
reads only the "some" ones; ``get_fragments(filter=)`` leaves "none" row
groups out. Verdicts are conservative: anything the statistics do not
settle exactly (floats, whose NaNs the bounds leave out; legacy bounds;
bounds of another Python type than the filter's values) is "some". The
semantics are those of :class:`pqfast.filters.Atom` (pyarrow's): a
comparison is NULL on a null row (the row is dropped), ``in`` is never
NULL, ``negate`` flips a non-null result.
"""

from __future__ import annotations

from typing import Any

from ._encode import _decode_stat

ALL, NONE, SOME = "all", "none", "some"
_FLIP = {ALL: NONE, NONE: ALL, SOME: SOME}
_ORDERED = {"INT32", "INT64", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY", "BOOLEAN"}


def _same_kind(v: Any, bound: Any) -> bool:
    if isinstance(v, bool) or isinstance(bound, bool):
        return isinstance(v, bool) and isinstance(bound, bool)
    return type(v) is type(bound) or (isinstance(v, int) and isinstance(bound, int))


def _compare(op: str, v: Any, lo: Any, hi: Any) -> str:
    """The verdict of ``x <op> v`` over non-null x within [lo, hi]."""
    if op == "eq":
        return NONE if v < lo or v > hi else (ALL if lo == hi == v else SOME)
    if op == "ne":
        return NONE if lo == hi == v else (ALL if v < lo or v > hi else SOME)
    if op == "lt":
        return ALL if hi < v else (NONE if lo >= v else SOME)
    if op == "le":
        return ALL if hi <= v else (NONE if lo > v else SOME)
    if op == "gt":
        return ALL if lo > v else (NONE if hi <= v else SOME)
    if op == "ge":
        return ALL if lo >= v else (NONE if hi < v else SOME)
    return SOME


def _with_nulls(non_null: str, nulls_match: bool, null_count, rows: int) -> str:
    """A verdict over the non-null rows and what null rows do, as one."""
    if null_count is None:
        return non_null if non_null == (ALL if nulls_match else NONE) else SOME
    if null_count >= rows:
        return ALL if nulls_match else NONE
    if null_count == 0:
        return non_null
    return non_null if non_null == (ALL if nulls_match else NONE) else SOME


_BOUNDS_MEMO = "_pqfast_bounds"  # a statistics dict's decoded (min, max), kept in it


def _bounds(st: dict, desc: dict) -> tuple | None:
    """(min, max) of a chunk's statistics as Python values; None where absent,
    legacy (sort order unknown) or of a type without a usable order."""
    if not (desc["physical_type"] in _ORDERED and st.get("min") is not None and st.get("max") is not None
            and not (st.get("min_is_legacy") or st.get("max_is_legacy"))):
        return None
    # Decoded once per statistics dict (a kept chunk's: Lake.column_chunk).
    memo = st.get(_BOUNDS_MEMO)
    if memo is not None:
        return memo[0]
    lo, hi = _decode_stat(st["min"], desc), _decode_stat(st["max"], desc)
    out = None if lo is None or hi is None else (lo, hi)
    st[_BOUNDS_MEMO] = (out,)
    return out


def chunk_bounds(chunk: dict, desc: dict) -> tuple | None:
    """(min, max) of one column chunk (``meta.column_chunk``) when its
    statistics give both and say it holds no null; else None."""
    st = chunk.get("statistics") if chunk.get("has_meta_data", True) else None
    if st is None or st.get("null_count") != 0:
        return None
    return _bounds(st, desc)


def atom_verdict(atom, chunk: dict, desc: dict, rows: int) -> str:
    """One atom over one column chunk (``meta.column_chunk``) of `rows` rows."""
    st = chunk.get("statistics") if chunk.get("has_meta_data", True) else None
    if st is None:
        return SOME
    bounds = None if atom.op == "is_null" else _bounds(st, desc)
    return _verdict(atom, bounds, st.get("null_count"), rows)


def leaf_stats(meta, leaf: int, desc: dict, chunk) -> list:
    """Per row group of a file (``meta``), what its statistics say of one
    column, as _verdict takes it: (bounds, null count); None where the row
    group has no statistics. ``chunk(rg, leaf)``: ``meta.column_chunk``."""
    out = []
    for g in range(meta.num_row_groups):
        c = chunk(g, leaf)
        st = c.get("statistics") if c.get("has_meta_data", True) else None
        out.append(None if st is None else (_bounds(st, desc), st.get("null_count")))
    return out


def summarize(per_rg: list, rows: list) -> tuple | None:
    """What every row group says of one column at once (leaf_stats' list,
    `rows` per row group): (bounds, null count, rows), bounds the smallest
    min and the largest max (None unless every row group gives both and they
    compare), the null counts summed (None unless every row group gives
    one), the rows summed; None when a row group has no statistics. Its
    bounds hold every row group's, so an atom it rules out (NONE) is ruled
    out in each."""
    lo = hi = None
    ordered, nulls = True, 0
    for e in per_rg:
        if e is None:
            return None
        b, n = e
        nulls = None if nulls is None or n is None else nulls + n
        if not ordered:
            continue
        if b is None:
            ordered = False
            continue
        try:
            lo = b[0] if lo is None or b[0] < lo else lo
            hi = b[1] if hi is None or b[1] > hi else hi
        except TypeError:
            ordered = False
    return ((lo, hi) if ordered and lo is not None else None), nulls, sum(rows)


def row_counts(meta) -> list:
    """The rows of each row group of a file."""
    return [meta.row_group(g)["num_rows"] for g in range(meta.num_row_groups)]


def leaf_summary(meta, leaf: int, desc: dict, chunk) -> tuple | None:
    """summarize() of one column of a file from its footer."""
    return summarize(leaf_stats(meta, leaf, desc, chunk), row_counts(meta))


def row_group_verdicts(dnf, leaf_of: dict, stats, rows: list, groups) -> list:
    """[(row group, verdict)] for `groups`, each row_group_verdict's, from
    kept statistics: ``stats(leaf)``: leaf_stats' list, `rows` per row
    group (row_counts). No footer object is asked per row group and atom."""
    def verdict(g):
        def atom(a):
            j = leaf_of.get(a.column)
            e = None if j is None else stats(j)[g]
            return SOME if e is None else _verdict(a, None if a.op == "is_null" else e[0], e[1], rows[g])

        return NONE if rows[g] == 0 else _dnf_verdict(dnf, atom)

    return [(g, verdict(g)) for g in groups]


def file_ruled_out(dnf, leaf_of: dict, summary) -> bool:
    """Whether the file-wide statistics (``summary(leaf)``: leaf_summary)
    prove that no row of a file makes the DNF true: every conjunction holds
    an atom NONE over them. A file so ruled out needs no verdict per row
    group (a lake of 100 files, 5 row groups each: 100 verdicts instead of
    500 per atom)."""
    def atom(a):
        j = leaf_of.get(a.column)
        s = None if j is None else summary(j)
        return SOME if s is None else _verdict(a, None if a.op == "is_null" else s[0], s[1], s[2])

    return _dnf_verdict(dnf, atom) == NONE


def _dnf_verdict(dnf, atom) -> str:
    """A DNF's verdict from its atoms' (``atom(a)``): a conjunction is NONE
    when one atom is, ALL when every atom is; the DNF ALL when one
    conjunction is, NONE when every one is."""
    out = NONE
    for conj in dnf:
        verdict = ALL
        for a in conj:
            v = atom(a)
            if v == NONE:
                verdict = NONE
                break
            if v == SOME:
                verdict = SOME
        if verdict == ALL:
            return ALL
        if verdict == SOME:
            out = SOME
    return out


def _verdict(atom, bounds: tuple | None, nulls, rows: int) -> str:
    """One atom over values within `bounds` ((min, max), None: unknown) of
    which `nulls` are null (None: unknown), `rows` in all."""
    if atom.op == "is_null":
        v = _with_nulls(NONE, True, nulls, rows)
        return _FLIP[v] if atom.negate else v
    ordered = bounds is not None
    lo, hi = bounds if ordered else (None, None)
    try:
        if atom.op == "in":
            vals = [x for x in atom.values if x is not None]
            nulls_match = (None in atom.values) != atom.negate
            if not ordered or not all(_same_kind(x, lo) for x in vals):
                non_null = SOME
            elif all(x < lo or x > hi for x in vals):
                non_null = NONE
            elif lo == hi and lo in vals:
                non_null = ALL
            else:
                non_null = SOME
            if atom.negate:
                non_null = _FLIP[non_null]
            return _with_nulls(non_null, nulls_match, nulls, rows)
        v = atom.values[0] if atom.values else None
        if v is None:
            return NONE  # a NULL literal: NULL on every row
        non_null = _compare(atom.op, v, lo, hi) if ordered and _same_kind(v, lo) else SOME
        if atom.negate:
            non_null = _FLIP[non_null]
        return _with_nulls(non_null, False, nulls, rows)
    except TypeError:  # bounds that do not compare with the value (naive vs aware times...)
        return SOME


def row_group_verdict(dnf, meta, rg: int, leaf_of: dict, descs: list | None = None, chunk=None) -> str:
    """A DNF (list of conjunctions of atoms) over row group `rg` of a file
    (`meta`); ``leaf_of``: {top-level flat column: leaf index} of the file
    (an atom on another column is "some"); ``descs``: ``meta.columns()``
    and ``chunk(rg, leaf)``: ``meta.column_chunk`` when the caller keeps
    them (the footer builds them anew each call)."""
    rows = meta.row_group(rg)["num_rows"]
    if rows == 0:
        return NONE
    if descs is None:
        descs = meta.columns()
    if chunk is None:
        chunk = meta.column_chunk

    def atom(a):
        j = leaf_of.get(a.column)
        return SOME if j is None else atom_verdict(a, chunk(rg, j), descs[j], rows)

    return _dnf_verdict(dnf, atom)


def flat_leaves(meta) -> dict:
    """{top-level column: leaf index} of the file's flat (non-nested) columns."""
    out = {}
    for j, d in enumerate(meta.columns()):
        if len(d["path"]) == 1 and d["max_repetition_level"] == 0:
            out[d["path"][0]] = j
    return out
