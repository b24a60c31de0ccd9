"""Row filters: the user's ``filters=`` normalized into a DNF of atoms.

``normalize(filters)`` takes pyarrow's DNF form (a list of ``(column, op, value)``
tuples is an AND; a list of such lists is an OR of ANDs, as
``pyarrow.parquet.filters_to_expression`` reads them) or a
``pyarrow.compute.Expression`` and returns ``list[list[Atom]]``: an OR over the
outer list of ANDs over the inner lists. It preserves pyarrow.dataset's
semantics exactly: Kleene logic, and a row is kept only where the filter is
TRUE. ``~`` is pushed down to the atoms with De Morgan (exact in Kleene logic),
so the result is monotone in its atoms: a row is kept iff some conjunction has
every atom TRUE, and an atom's NULL and FALSE need not be told apart.

Expressions are walked through their serialized form (``Expression.__reduce__``
gives an Arrow IPC file whose schema metadata lists the tree in prefix order:
``call NAME`` ... ``end NAME``, ``field_ref NAME``, ``literal I`` and
``options I``, I naming a column of the one-row batch that holds the literal or
the function options as a struct): pyarrow has no public API to inspect an
Expression, and this form is Arrow C++'s own, stable across versions.
"""

from __future__ import annotations

import functools
import math
import operator
import struct
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from ._encode import encode_values, integer_range
from ._errors import reworded
from ._pqfast import FormatError

MAX_CONJUNCTIONS = 1024

OPS = ("eq", "ne", "lt", "le", "gt", "ge", "in", "is_null")
_CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge")

# pyarrow's DNF operators.
_DNF_OPS = {"=": "eq", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
            "in": "in", "not in": "in"}
# Arrow compute function names of comparisons.
_CALL_CMP = {"equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le",
             "greater": "gt", "greater_equal": "ge"}
# ``5 < x`` is ``x > 5``.
_FLIP = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_SYMBOL = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_NULL_MATCHING = {0: "MATCH", 1: "SKIP", 2: "EMIT_NULL", 3: "INCONCLUSIVE"}


class Atom(NamedTuple):
    """One predicate on one column; its value for one row:

    * ``eq ne lt le gt ge`` (``values`` holds one literal): NULL when the row's
      value is null; else the comparison, IEEE for floats (a NaN compares
      false, except ``ne``, true; ``-0.0 == 0.0``). ``negate`` flips a non-null
      result; NULL stays NULL. A literal None makes it NULL for every row.
    * ``in`` (``values`` is the whole set, None kept): never NULL. A null row
      gives ``None in values``; a non-null row gives membership, which is
      pyarrow's ``is_in`` (a hash lookup after casting the set to the column's
      type): for floats it compares the bit patterns, so ``0.0`` and ``-0.0``
      do NOT match each other, and a NaN matches a NaN of the same bits only
      (the Python/numpy NaN is the canonical quiet NaN 0x7ff8...; a ``-nan``
      or a NaN with another payload in the data does not match it).
      ``negate`` flips, a null row's result too: ``not in`` a set without None
      keeps null rows, as pyarrow's ``~is_in`` does.
    * ``is_null`` (``values`` empty): TRUE iff the row is null (NaN is not
      null: pyarrow's nan_is_null=False); ``negate`` makes it is_valid.
    """

    column: str
    op: str
    negate: bool
    values: tuple

    def __repr__(self) -> str:
        if self.op == "is_null":
            return f"{self.column} {'is_valid' if self.negate else 'is_null'}"
        if self.op == "in":
            return f"{self.column} {'not in' if self.negate else 'in'} {list(self.values)!r}"
        s = f"{self.column} {_SYMBOL[self.op]} {self.values[0]!r}"
        return f"~({s})" if self.negate else s


# ---------------------------------------------------------------------------
# Negation normal form: ("and", [...]), ("or", [...]), ("atom", Atom)


def _atom(column: str, op: str, values: tuple, negated: bool):
    """An atom node, with ``~`` folded in: ``~(a == v)`` is ``a != v`` and back
    (exact, NaN included); other comparisons keep ``negate`` (``~(a < 5)`` is not
    ``a >= 5`` when a is NaN)."""
    if negated and op in ("eq", "ne"):
        return ("atom", Atom(column, "ne" if op == "eq" else "eq", False, values))
    return ("atom", Atom(column, op, negated, values))


def _junction(kind: str, children: list, negated: bool):
    if negated:  # De Morgan
        kind = "or" if kind == "and" else "and"
    return (kind, children)


def _column_name(col: Any, where: str) -> str:
    if isinstance(col, str):
        return col
    raise FormatError(f"invalid argument: filter {where}: column must be a str naming a top-level "
                      f"column, got {col!r} (nested field references are not supported)")


def _in_values(val: Any, where: str) -> tuple:
    if isinstance(val, (pa.Array, pa.ChunkedArray)):
        return tuple(val.to_pylist())
    if isinstance(val, np.ndarray):
        return tuple(val.ravel().tolist())
    if isinstance(val, (str, bytes, bytearray)) or not hasattr(val, "__iter__"):
        raise FormatError(f"invalid argument: filter {where}: 'in' takes a collection of values, "
                          f"got {type(val).__name__}")
    return tuple(val)


def _scalar_value(v: Any) -> Any:
    """A pyarrow Scalar given as a DNF value, as a Python value."""
    if isinstance(v, pa.Scalar):
        return v.as_py()
    return v


def _from_dnf(filters: Any):
    if filters and isinstance(filters[0], str):
        raise FormatError(f"invalid argument: malformed filters: {tuple(filters)!r} is one predicate; give a "
                          f"list of them: [{tuple(filters)!r}]")
    for f in filters:
        if not isinstance(f, (list, tuple)):
            raise FormatError(f"invalid argument: malformed filters: {f!r} is not a (column, op, value) tuple "
                              "or a list of them")
    if len(filters) == 0 or any(len(f) == 0 for f in filters):
        raise FormatError("invalid argument: malformed filters: an empty list (pyarrow's DNF "
                          "needs at least one predicate in each conjunction)")
    first = filters[0]
    if isinstance(first[0], str) or (isinstance(first, tuple) and len(first) == 3 and isinstance(first[1], str)):
        filters = [filters]
    ors = []
    for i, conj in enumerate(filters):
        ands = []
        if isinstance(conj, tuple) and len(conj) == 3 and isinstance(conj[0], str):
            raise FormatError(f"invalid argument: malformed filters: {conj!r} mixes tuples and "
                              "lists at the top level; give a list of tuples (AND) or a list of "
                              "lists of tuples (OR of ANDs)")
        for pred in conj:
            if not isinstance(pred, (tuple, list)) or len(pred) != 3:
                raise FormatError(f"invalid argument: malformed filters: predicate {pred!r} is "
                                  "not a (column, op, value) tuple")
            col, op, val = pred
            where = repr(tuple(pred))
            column = _column_name(col, where)
            if not isinstance(op, str) or op.lower() not in _DNF_OPS:
                raise FormatError(f"invalid argument: filter {where}: {op!r} is not a valid "
                                  "operator; expected one of =, ==, !=, <, <=, >, >=, in, not in")
            op_l = op.lower()
            kind = _DNF_OPS[op_l]
            if kind == "in":
                values = tuple(_scalar_value(v) for v in _in_values(val, where))
                ands.append(_atom(column, "in", values, op_l == "not in"))
            else:
                if isinstance(val, (list, tuple, set, frozenset, dict, np.ndarray)):
                    raise FormatError(f"invalid argument: filter {where}: {op!r} takes one value, "
                                      f"got a {type(val).__name__}")
                ands.append(_atom(column, kind, (_scalar_value(val),), False))
        ors.append(("and", ands))
    return ("or", ors)


# ---------------------------------------------------------------------------
# pyarrow Expressions, through their serialized form


def _fb_u32(b: bytes, o: int) -> int:
    return struct.unpack_from("<I", b, o)[0]


def _fb_field(b: bytes, table: int, i: int) -> int | None:
    """Position of field ``i`` of the flatbuffer table at ``table``, or None."""
    vt = table - struct.unpack_from("<i", b, table)[0]
    if 4 + 2 * i >= struct.unpack_from("<H", b, vt)[0]:
        return None
    off = struct.unpack_from("<H", b, vt + 4 + 2 * i)[0]
    return table + off if off else None


def _fb_deref(b: bytes, pos: int) -> int:
    return pos + _fb_u32(b, pos)


def _fb_string(b: bytes, pos: int | None) -> str:
    if pos is None:
        return ""
    s = _fb_deref(b, pos)
    return b[s + 4 : s + 4 + _fb_u32(b, s)].decode("utf-8")


def _schema_metadata_pairs(schema) -> list[tuple[str, str]]:
    """The schema's custom metadata in order, repeated keys kept (pyarrow's
    ``Schema.metadata`` is a dict, which loses both). Read from the IPC
    Message flatbuffer: Message.header (field 2) is the Schema, whose
    custom_metadata (field 2) is a vector of KeyValue {key, value}."""
    msg = schema.serialize().to_pybytes()
    if _fb_u32(msg, 0) == 0xFFFFFFFF:
        start, length = 8, struct.unpack_from("<i", msg, 4)[0]
    else:  # pre-0.15 framing
        start, length = 4, struct.unpack_from("<i", msg, 0)[0]
    fb = msg[start : start + length]
    root = _fb_deref(fb, 0)
    header = _fb_field(fb, root, 2)
    if header is None:
        return []
    sch = _fb_deref(fb, header)
    md = _fb_field(fb, sch, 2)
    if md is None:
        return []
    vec = _fb_deref(fb, md)
    out = []
    for k in range(_fb_u32(fb, vec)):
        kv = _fb_deref(fb, vec + 4 + 4 * k)
        out.append((_fb_string(fb, _fb_field(fb, kv, 0)), _fb_string(fb, _fb_field(fb, kv, 1))))
    return out


class _ExprReader:
    def __init__(self, expr):
        self.text = str(expr)
        try:
            buf = expr.__reduce__()[1][0]
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid) as e:
            raise FormatError(f"invalid argument: filter expression {self.text}: not supported "
                              f"({e})") from None
        reader = ipc.open_file(buf)
        self.batch = reader.get_batch(0) if reader.num_record_batches else None
        self.items = _schema_metadata_pairs(reader.schema)
        self.pos = 0

    def _fail(self, what: str):
        raise FormatError(f"invalid argument: filter expression {self.text}: {what} is not "
                          "supported (pqfast takes comparisons of a column with a literal, "
                          "is_in, is_null, is_valid, combined with &, | and ~)")

    def column(self, index: str):
        return self.batch.column(int(index))[0]

    def next(self):
        """The next node: ("field", name) | ("literal", Scalar) | ("call", name, args, options)."""
        kind, value = self.items[self.pos]
        self.pos += 1
        if kind == "field_ref":
            return ("field", value)
        if kind == "literal":
            return ("literal", self.column(value))
        if kind == "nested_field_ref":
            self._fail("a nested field reference")
        if kind != "call":
            raise FormatError(f"invalid argument: filter expression {self.text}: unexpected "
                              f"serialized item {kind}={value!r}")
        args, options = [], None
        while True:
            k, v = self.items[self.pos]
            if k == "end":
                self.pos += 1
                return ("call", value, args, options)
            if k == "options":
                self.pos += 1
                options = self.column(v)
                continue
            args.append(self.next())

    def node_text(self, node) -> str:
        if node[0] == "field":
            return f"field {node[1]!r}"
        if node[0] == "literal":
            return f"literal {node[1]}"
        return f"{node[1]}(...)"


def _from_expression(expr):
    r = _ExprReader(expr)
    root = r.next()
    return _nnf_call(r, root, False)


def _literal_value(r: _ExprReader, scalar) -> Any:
    try:
        return scalar.as_py()
    except Exception as e:  # e.g. a nanosecond timestamp without pandas
        raise FormatError(f"invalid argument: filter expression {r.text}: literal {scalar!r} "
                          f"has no Python value ({e})") from None


def _null_unless_valid(args) -> bool:
    """Whether if_else's arguments are (is_valid(field), a condition, a null literal)."""
    if len(args) != 3:
        return False
    cond, _, other = args
    return (cond[0] == "call" and cond[1] == "is_valid" and len(cond[2]) == 1 and cond[2][0][0] == "field"
            and other[0] == "literal" and not other[1].is_valid
            and str(other[1].type) in ("bool", "null"))


def _true_only_if_valid(a: Atom) -> bool:
    """Whether atom ``a`` is never TRUE on a null row (see Atom)."""
    if a.op in _CMP_OPS:
        return True
    return a.op == "in" and not a.negate and not any(v is None for v in a.values)


def _nnf_call(r: _ExprReader, node, negated: bool):
    if node[0] == "field":  # a boolean column as the condition: TRUE where it is true
        return _atom(node[1], "eq", (True,), negated)
    if node[0] == "literal" and str(node[1].type) == "bool":
        # A constant condition: TRUE is an AND of nothing, FALSE an OR of
        # nothing; NULL selects no row, negated or not, and in an AND or an
        # OR (Kleene) acts as FALSE does once negations are at the leaves.
        value = node[1].as_py()
        return ("and", []) if value is not None and value != negated else ("or", [])
    if node[0] != "call":
        r._fail(f"a bare {r.node_text(node)} as a condition")
    _, name, args, options = node
    if name == "invert":
        return _nnf_call(r, args[0], not negated)
    if name in ("and_kleene", "or_kleene", "and", "or"):
        if name in ("and", "or") and negated:
            # Non-Kleene and/or: NULL if either side is NULL, so ~and(a, b) is
            # not ~a | ~b where one side is NULL and the other FALSE.
            r._fail(f"~ over the non-Kleene '{name}' (use & and |)")
        kind = "and" if name.startswith("and") else "or"
        return _junction(kind, [_nnf_call(r, a, negated) for a in args], negated)
    if name in _CALL_CMP:
        op = _CALL_CMP[name]
        if len(args) != 2:
            r._fail(f"{name} with {len(args)} arguments")
        a, b = args
        if a[0] == "field" and b[0] == "literal":
            col, lit = a[1], b[1]
        elif a[0] == "literal" and b[0] == "field":
            col, lit, op = b[1], a[1], _FLIP[op]
        elif a[0] == "field" and b[0] == "field":
            r._fail(f"comparing two columns ({a[1]!r} {_SYMBOL[op]} {b[1]!r})")
        else:
            r._fail(f"'{name}' of {r.node_text(a)} and {r.node_text(b)}")
        return _atom(col, op, (_literal_value(r, lit),), negated)
    if name == "if_else" and _null_unless_valid(args):
        # if_else(is_valid(x), T, NULL), DuckDB's form of ``x IN (...)``: TRUE
        # where x is valid and T is TRUE; negated, where x is valid and T is
        # FALSE; NULL (never kept) where x is null.
        column = args[0][2][0][1]
        inner = _nnf_call(r, args[1], negated)
        if inner[0] == "atom" and inner[1].column == column and _true_only_if_valid(inner[1]):
            return inner  # (is_valid would only add a column test to the scan)
        return ("and", [_atom(column, "is_null", (), True), inner])
    if name in ("is_null", "is_valid"):
        if len(args) != 1 or args[0][0] != "field":
            r._fail(f"'{name}' of {r.node_text(args[0]) if args else 'nothing'}")
        if name == "is_null" and options is not None and options.get("nan_is_null") is not None \
                and options["nan_is_null"].as_py():
            r._fail("is_null(nan_is_null=True)")
        return _atom(args[0][1], "is_null", (), negated != (name == "is_valid"))
    if name == "is_in":
        if len(args) != 1 or args[0][0] != "field":
            r._fail(f"'is_in' of {r.node_text(args[0]) if args else 'nothing'}")
        col = args[0][1]
        vs = options["value_set"] if options is not None else None
        if vs is None or not vs.is_valid:
            r._fail("is_in without a value set")
        values = tuple(_literal_value(r, v) for v in vs.values)
        nmb = "MATCH"
        if options.get("null_matching_behavior") is not None:
            nmb = _NULL_MATCHING.get(options["null_matching_behavior"].as_py(), "?")
        elif options.get("skip_nulls") is not None and options["skip_nulls"].as_py():
            nmb = "SKIP"
        if nmb == "MATCH":
            return _atom(col, "in", values, negated)
        has_null = any(v is None for v in values)
        plain = tuple(v for v in values if v is not None)
        if nmb == "SKIP":  # nulls in the set are ignored: a null row is FALSE
            return _atom(col, "in", plain, negated)
        if nmb in ("EMIT_NULL", "INCONCLUSIVE"):
            # A null row is NULL (never TRUE either way); INCONCLUSIVE also makes a
            # non-member NULL when the set holds a null.
            if not negated:
                return _atom(col, "in", plain, False)
            if nmb == "INCONCLUSIVE" and has_null:  # never TRUE: a contradiction
                return ("and", [_atom(col, "is_null", (), False), _atom(col, "is_null", (), True)])
            return ("and", [_atom(col, "in", plain, True), _atom(col, "is_null", (), True)])
        r._fail(f"is_in with null_matching_behavior={nmb}")
    r._fail(f"the function '{name}'")


# ---------------------------------------------------------------------------
# DNF


def _dnf(node) -> list[list[Atom]]:
    kind = node[0]
    if kind == "atom":
        return [[node[1]]]
    parts = [_dnf(c) for c in node[1]]
    if kind == "or":
        out = [conj for p in parts for conj in p]
        if len(out) > MAX_CONJUNCTIONS:
            _too_big(len(out))
        return out
    out = [[]]
    for p in parts:  # AND distributed over OR
        if len(out) * len(p) > MAX_CONJUNCTIONS:
            _too_big(len(out) * len(p))
        out = [a + b for a in out for b in p]
    return out


def _too_big(n: int):
    raise FormatError(f"invalid argument: the filter expands to {n} conjunctions in disjunctive "
                      f"normal form; at most {MAX_CONJUNCTIONS} are supported")


def _dedupe(conj: list[Atom]) -> list[Atom]:
    seen, out = set(), []
    for a in conj:
        k = _atom_key(a)
        if k not in seen:
            seen.add(k)
            out.append(a)
    return out


def _value_key(v: Any):
    if isinstance(v, float):  # NaN != NaN and -0.0 == 0.0: key by bits
        return ("f", struct.pack("<d", v))
    try:
        hash(v)
    except TypeError:
        return ("r", repr(v))
    return (type(v).__name__, v)


def _atom_key(a: Atom):
    return (a.column, a.op, a.negate, tuple(_value_key(v) for v in a.values))


class Dnf(list):
    """A filter already in normal form (``list[list[Atom]]``, what
    :func:`normalize` returns), passed on as a filter: ``normalize`` takes it
    as it is (what is left of a filter once partition keys are decided)."""


def constant_filter(filters: Any) -> Any:
    """A pyarrow boolean or null Scalar as the constant Expression it
    means (DataFusion hands a dataset the Scalar its planner folded a
    condition to, ``WHERE i = 3 AND i = 4`` -> false, not an Expression);
    anything else as it is."""
    if isinstance(filters, pa.Scalar) and (pa.types.is_boolean(filters.type) or pa.types.is_null(filters.type)):
        return pc.scalar(pa.scalar(filters.as_py(), pa.bool_()))
    return filters


def normalize(filters: Any) -> list[list[Atom]]:
    """The filter as a DNF: OR over the outer list, AND over each inner list.

    ``filters`` is pyarrow's DNF form or a ``pyarrow.compute.Expression`` (see the
    module docstring), a boolean ``pyarrow.Scalar`` (a constant condition), or a
    :class:`Dnf`; anything else raises ``pqfast.FormatError``.
    """
    if isinstance(filters, Dnf):
        return [list(c) for c in filters]
    if filters is None:
        raise FormatError("invalid argument: filters is None")
    filters = constant_filter(filters)
    if isinstance(filters, pc.Expression):
        tree = _from_expression(filters)
    elif isinstance(filters, (list, tuple)):
        tree = _from_dnf(list(filters))
    else:
        raise FormatError(f"invalid argument: filters must be a list of (column, op, value) tuples, "
                          f"a list of such lists, or a pyarrow.compute.Expression; got "
                          f"{type(filters).__name__}")
    return [_dedupe(c) for c in _dnf(tree)]


def filter_columns(dnf: list[list[Atom]]) -> list[str]:
    """The distinct columns the DNF reads, in first-use order."""
    return list(dict.fromkeys(a.column for conj in dnf for a in conj))


# ---------------------------------------------------------------------------
# Back to pyarrow, and the reference evaluator (the tests' oracle)


def _pa_scalar(v: Any):
    """v as pyarrow would infer it, except where inference loses it: ints above
    int64 (uint64) and pandas Timestamps with nanoseconds (inferred as us)."""
    if isinstance(v, int) and not isinstance(v, bool) and v > 2**63 - 1:
        return pa.scalar(v, pa.uint64())
    if getattr(v, "nanosecond", 0) and hasattr(v, "value"):
        tz = getattr(v, "tz", None)
        return pa.scalar(v.value, pa.timestamp("ns", str(tz) if tz is not None else None))
    return pa.scalar(v)


def _pa_array(values: list):
    if any(isinstance(v, int) and not isinstance(v, bool) and v > 2**63 - 1 for v in values):
        return pa.array(values, pa.uint64())
    if any(getattr(v, "nanosecond", 0) and hasattr(v, "value") for v in values):
        tz = next((getattr(v, "tz", None) for v in values if v is not None), None)
        return pa.array([None if v is None else getattr(v, "value", None) for v in values],
                        pa.timestamp("ns", str(tz) if tz is not None else None))
    return pa.array(values)


def _typed_for(schema, column: str):
    """The column's type where pyarrow's literal inference would change the
    answer or fail: uint64 (an int64 literal casts the column), timestamps
    (zones, nanoseconds); else None."""
    if schema is None or column not in schema.names:
        return None
    t = schema.field(column).type
    return t if t == pa.uint64() or pa.types.is_timestamp(t) else None


def _atom_expression(a: Atom, schema=None):
    f = pc.field(a.column)
    typed = _typed_for(schema, a.column)
    if a.op == "is_null":
        return f.is_valid() if a.negate else f.is_null()
    if a.op == "in":
        if not a.values:  # no member: always FALSE (negated: always TRUE)
            e = f.is_null() & f.is_valid()
        elif all(v is None for v in a.values):
            e = f.is_null()
        else:
            e = f.isin(pa.array(list(a.values), typed) if typed is not None else _pa_array(list(a.values)))
    else:
        v = a.values[0]
        lit = pa.scalar(None) if v is None else pa.scalar(v, typed) if typed is not None else _pa_scalar(v)
        e = {"eq": f.__eq__, "ne": f.__ne__, "lt": f.__lt__, "le": f.__le__,
             "gt": f.__gt__, "ge": f.__ge__}[a.op](lit)
    return ~e if a.negate else e


def to_expression(dnf: list[list[Atom]], schema=None):
    """An equivalent ``pyarrow.compute.Expression`` (an empty DNF keeps no row).

    With the table's ``schema``, literals of uint64 and timestamp columns are
    typed like the column (pyarrow's inference would fail or drop nanoseconds)."""
    if not dnf:
        return pc.scalar(False)
    ors = []
    for conj in dnf:
        if not conj:
            ors.append(pc.scalar(True))
        else:
            ors.append(functools.reduce(operator.and_, [_atom_expression(a, schema) for a in conj]))
    return functools.reduce(operator.or_, ors)


def _atom_true(table, a: Atom):
    """A boolean numpy mask: where the atom is TRUE (Atom's semantics)."""
    col = table.column(a.column)
    n = len(col)
    nulls = pc.is_null(col).to_numpy(zero_copy_only=False).astype(bool) if n else np.zeros(0, bool)
    if a.op == "is_null":
        return ~nulls if a.negate else nulls
    if a.op == "in":
        plain = [v for v in a.values if v is not None]
        has_null = len(plain) != len(a.values)
        if plain:
            try:  # as pyarrow binds it: the inferred set, cast to the column's type by is_in
                member = pc.is_in(col, value_set=_pa_array(plain), skip_nulls=True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError):
                member = pc.is_in(col, value_set=pa.array(plain, col.type), skip_nulls=True)
            member = member.to_numpy(zero_copy_only=False).astype(bool) if n else np.zeros(0, bool)
        else:
            member = np.zeros(n, bool)
        member = np.where(nulls, has_null, member)
        return ~member if a.negate else member
    v = a.values[0]
    if v is None:
        return np.zeros(n, bool)
    fn = {"eq": pc.equal, "ne": pc.not_equal, "lt": pc.less, "le": pc.less_equal,
          "gt": pc.greater, "ge": pc.greater_equal}[a.op]
    try:  # as pyarrow binds it: the literal's inferred type; typed like the column if that fails
        res = fn(col, _pa_scalar(v))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError):
        res = fn(col, pa.scalar(v, col.type))
    res = pc.fill_null(res, False).to_numpy(zero_copy_only=False).astype(bool) if n else np.zeros(0, bool)
    if a.negate:
        res = ~res & ~nulls
    return res


def reference_mask(table, dnf: list[list[Atom]]) -> np.ndarray:
    """Where the DNF is TRUE on ``table`` (a pyarrow Table), as a numpy bool mask."""
    mask = np.zeros(table.num_rows, bool)
    for conj in dnf:
        m = np.ones(table.num_rows, bool)
        for a in conj:
            m &= _atom_true(table, a)
        mask |= m
    return mask


def reference_filter(table, dnf: list[list[Atom]]):
    """The rows of ``table`` where the DNF is TRUE, in order: the test oracle."""
    return table.filter(pa.array(reference_mask(table, dnf), pa.bool_()))


# ---------------------------------------------------------------------------
# Typing an atom's values for the engine


def _float_literal(name: str, pt: str, op: str, v: Any):
    """A FLOAT/DOUBLE column's literal, exact under pyarrow's rules.

    An integer literal is cast to the column's type by pyarrow, which refuses
    one it cannot hold exactly: so do we. A float literal is a double: pyarrow
    compares a float32 column with it in double precision (``f32 == 0.1``
    matches nothing, as float32(0.1) != 0.1), while ``is_in`` casts the set to
    float32 (round to nearest). For a comparison with a double that float32
    cannot hold we give the float32 that makes the float32 comparison
    exact: ``x < v`` iff ``x < hi``, ``x <= v`` iff ``x <= lo``, ``x > v`` iff
    ``x > lo``, ``x >= v`` iff ``x >= hi`` (lo < v < hi the neighbouring
    float32 values, infinities included), and NaN for ``==``/``!=`` (never
    equal, always unequal, as v is). A NaN row compares false either way."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise FormatError(f"invalid argument: column {name!r} is {pt} and takes numbers; "
                          f"got {v!r} ({type(v).__name__})")
    if isinstance(v, (int, np.integer)):
        v = int(v)
        f = float(np.float32(v)) if pt == "FLOAT" and abs(v) < 2**128 else float(v) if abs(v) < 2**1024 else math.inf
        if f != v:
            raise FormatError(f"invalid argument: the integer {v} is not exactly a {pt} value "
                              f"(column {name!r}); pyarrow refuses it too")
        return f
    v = float(v)
    if pt == "DOUBLE" or math.isnan(v) or op == "in":
        return v
    with np.errstate(over="ignore"):
        f = np.float32(v)
    if float(f) == v:
        return v
    if float(f) < v:
        lo, hi = f, np.nextafter(f, np.float32(math.inf))
    else:
        lo, hi = np.nextafter(f, np.float32(-math.inf)), f
    if op in ("eq", "ne"):
        return math.nan
    return float(hi if op in ("lt", "ge") else lo)


# A comparison whose literal is above (below) every value of the column: its
# result on every non-null row.
_ABOVE_ALL = {"eq": False, "ne": True, "lt": True, "le": True, "gt": False, "ge": False}
_BELOW_ALL = {"eq": False, "ne": True, "lt": False, "le": False, "gt": True, "ge": True}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _integral_in(v: Any, lo: int, hi: int) -> bool:
    return v == v and not math.isinf(v) and v == math.floor(v) and lo <= v <= hi


def numbers_on_integers(desc: dict, atom: Atom) -> Atom | bool:
    """``atom`` on a plain integer column with its literals made integers
    of the column, comparing as numbers as pyarrow does where the literal
    is a float or an integer past the column's width: ``i > 2.5`` is
    ``i > 2``, ``i <= 2.5`` is ``i <= 2``, ``i in [3.0, 2.5]`` is ``i in
    [3]``. True or False where the comparison is that on every non-null row
    (``i == 2.5``, ``i < 1e30``, ``i > 2**40`` on INT32; NaN: false but
    ``!=``), ``negate`` applied. Any other atom as given (compared exactly,
    where pyarrow would round an INT64 past 2**53 to a double)."""
    rng = integer_range(desc)
    if rng is None or atom.op == "is_null":
        return atom
    lo, hi = rng
    values = [v for v in atom.values if v is not None]
    if not values or not all(_is_number(v) for v in values) \
            or all(isinstance(v, (int, np.integer)) and lo <= v <= hi for v in values):
        return atom
    if atom.op == "in":
        return atom._replace(values=tuple(v if v is None else int(v) for v in atom.values
                                          if v is None or _integral_in(v, lo, hi)))
    v, op = atom.values[0], atom.op
    if v != v:
        result = op == "ne"  # NaN
    elif v > hi:
        result = _ABOVE_ALL[op]
    elif v < lo:
        result = _BELOW_ALL[op]
    elif v != math.floor(v):  # between two integers f < v < f + 1
        if op in ("eq", "ne"):
            result = op == "ne"
        else:
            return atom._replace(op="gt" if op in ("gt", "ge") else "le", values=(math.floor(v),))
    else:
        return atom._replace(values=(int(v),))
    return result != atom.negate


def encode_atom_values(desc: dict, atom: Atom) -> tuple[np.ndarray, np.ndarray | None, int, bool]:
    """(data uint8, offsets int64 or None, type_length, has_null) of the atom's
    literal(s) for the column described by ``desc``: PLAIN bytes as
    ``pqfast.parquet.encode_values`` types them, None dropped (``has_null``
    says one was there), a BOOLEAN column one byte 0/1 per value, floats as
    given (NaN and -0.0 kept bit for bit)."""
    name = desc.get("dotted_path", atom.column)
    has_null = any(v is None for v in atom.values)
    values = [v for v in atom.values if v is not None]
    pt = desc["physical_type"]
    if pt == "BOOLEAN":
        out = []
        for v in values:
            if isinstance(v, (bool, np.bool_)):
                out.append(1 if v else 0)
            elif isinstance(v, (int, np.integer)) and int(v) in (0, 1):
                out.append(int(v))
            else:
                raise FormatError(f"invalid argument: column {name!r} is BOOLEAN and takes bool "
                                  f"values (or 0/1); got {v!r} ({type(v).__name__})")
        return np.array(out, dtype=np.uint8), None, 0, has_null
    if pt in ("FLOAT", "DOUBLE"):
        out = [_float_literal(name, pt, atom.op, v) for v in values]
        with np.errstate(over="ignore"):  # (`in` rounds to float32 as pyarrow casts the set: 1e300 is inf)
            arr = np.array(out, dtype="<f4" if pt == "FLOAT" else "<f8")
        return arr.view(np.uint8), None, 0, has_null
    try:
        _, tl, data, offsets = encode_values(desc, values)
    except FormatError as e:
        if getattr(e, "column", None) is None:  # (a message that does not name the column yet)
            raise reworded(e, f"{e} (column {name!r})") from None
        raise
    except (TypeError, ValueError, OverflowError) as e:
        raise FormatError(f"invalid argument: column {name!r}: cannot type the filter values "
                          f"{values!r}: {e}") from None
    data = np.ascontiguousarray(np.asarray(data).view(np.uint8).ravel())
    if offsets is not None:
        offsets = np.ascontiguousarray(np.asarray(offsets, dtype=np.int64))
    return data, offsets, int(tl or 0), has_null


def lookup_key(filters) -> tuple[str, list] | None:
    """(column, values) when every conjunction of ``filters`` holds an ``=``
    or ``in`` atom on one column: a row can match only if that column holds
    one of the values, so Bloom filters and statistics (pqfast.prune) can
    rule files out before any fragment is made. None otherwise."""
    if filters is None:
        return None
    try:
        dnf = normalize(filters)
    except FormatError:  # a filter pqfast applies after reading (pyarrow.compute): no pruning here
        return None
    if not dnf:
        return None
    common = None
    for conj in dnf:
        cols = {a.column for a in conj if a.op in ("eq", "in") and not a.negate}
        common = cols if common is None else common & cols
    if not common:
        return None
    col = sorted(common)[0]
    values = []
    for conj in dnf:
        for a in conj:
            if a.column == col and a.op in ("eq", "in") and not a.negate:
                if any(v is None for v in a.values):
                    return None  # "in" a set holding None matches null rows: no value to probe for
                values.extend(a.values)
    return col, list(dict.fromkeys(values))
