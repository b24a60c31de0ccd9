"""pqfast.filters: filters normalized into a DNF of atoms, checked against pyarrow.dataset.

The random tables and filters here are shared with test_read_filters.py.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
import struct

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pqfast import FormatError
from test_read import same_column  # floats bit for bit, NaN == NaN
from pqfast.filters import (
    MAX_CONJUNCTIONS,
    Atom,
    encode_atom_values,
    filter_columns,
    normalize,
    reference_filter,
    to_expression,
)

F = pc.field
D = decimal.Decimal
NAN = math.nan


def same_table(got: pa.Table, want: pa.Table, what="") -> None:
    """Equal schema (names and types) and columns; floats bit for bit (NaN equals NaN)."""
    assert got.schema.names == want.schema.names, what
    assert [f.type for f in got.schema] == [f.type for f in want.schema], what
    assert got.num_rows == want.num_rows, f"{what}: {got.num_rows} rows, want {want.num_rows}"
    for name in want.column_names:
        try:
            same_column(got.column(name), want.column(name))
        except AssertionError as e:
            raise AssertionError(f"{what}: column {name!r}: {e}") from None


def A(column, op, *values, negate=False):
    return Atom(column, op, negate, tuple(values))


# ---------------------------------------------------------------------------
# Random tables and filters (shared with test_read_filters.py)

_INT_RANGES = {"int8": (-128, 127), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
               "int64": (-2**63, 2**63 - 1), "uint8": (0, 255), "uint16": (0, 2**16 - 1),
               "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _domain(name: str, rng: random.Random) -> pa.Array:
    """Candidate values of a column type (specials included); columns pick from them."""
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        vals = {lo, hi, max(lo, 0), min(hi, 1)}
        while len(vals) < 14:
            vals.add(rng.randint(max(lo, -20), min(hi, 40)))
        if rng.random() < 0.5:
            vals.add(rng.randint(lo, hi))
        return pa.array(sorted(vals), getattr(pa, name)())
    if name in ("float32", "float64"):
        vals = [0.0, -0.0, NAN, 1.5, -2.25, math.inf, -math.inf, 0.5, 3.0, 1e10, -7.0, 0.1]
        vals += [round(rng.uniform(-10, 10), 2) for _ in range(4)]
        return pa.array(vals, getattr(pa, name)())
    if name == "bool":
        return pa.array([True, False])
    if name in ("string", "large_string", "binary", "fixed_size_binary"):
        words = ["", "a", "ab", "abc", "b", "ba", "zz", "é", "A", "a\x00b", "key-17", "mm"]
        if name == "fixed_size_binary":
            return pa.array(sorted({(w.encode() + b"___")[:3] for w in words}), pa.binary(3))
        if name == "binary":
            return pa.array([w.encode() for w in words] + [b"\xff\xfe"], pa.binary())
        return pa.array(words, getattr(pa, name)())
    if name == "date32":
        return pa.array(sorted({18000 + rng.randint(-40, 40) for _ in range(12)} | {0, -1}), pa.int32()).cast(pa.date32())
    if name.startswith("timestamp"):
        _, unit, tz = name.split(":")
        scale = {"ms": 1, "us": 1000, "ns": 1_000_000}[unit]
        base = 1_600_000_000_000
        vals = sorted({(base + rng.randint(-50, 50) * 1000) * scale + rng.choice([0, 0, 1, 7]) for _ in range(12)} | {0})
        return pa.array(vals, pa.int64()).cast(pa.timestamp(unit, tz or None))
    if name.startswith("decimal"):
        p, s = (9, 2) if name == "decimal_small" else (30, 4)
        q = D(1).scaleb(-s)
        vals = {D(0).quantize(q), D("1.5").quantize(q), D("-1.5").quantize(q)}
        while len(vals) < 12:
            v = D(rng.randint(-10**(p - 1), 10**(p - 1) - 1)).scaleb(-s) if rng.random() < 0.3 \
                else D(rng.randint(-500, 500)).scaleb(-s)
            vals.add(v)
        return pa.array(sorted(vals), pa.decimal128(p, s))
    raise AssertionError(name)


TYPE_NAMES = (list(_INT_RANGES) + ["float32", "float64", "bool", "string", "large_string", "binary",
              "fixed_size_binary", "date32", "timestamp:ms:", "timestamp:us:", "timestamp:ns:",
              "timestamp:ms:UTC", "timestamp:us:Europe/Paris", "timestamp:ns:UTC",
              "decimal_small", "decimal_large"])


def random_column(name: str, rng: random.Random, n: int, null_p: float | None = None):
    dom = _domain(name, rng)
    if null_p is None:
        null_p = rng.choice([0.0, 0.1, 0.3, 0.9])
    k = rng.randint(1, len(dom))
    pool = rng.sample(range(len(dom)), k)  # the column holds a subset of the domain
    idx = [None if rng.random() < null_p else rng.choice(pool) for _ in range(n)]
    col = dom.take(pa.array(idx, pa.int64()))
    return col, dom


def random_table(rng: random.Random, n: int, ncols: int | None = None, type_names=TYPE_NAMES):
    """(table, {column: domain array}) with random column types and nulls."""
    ncols = ncols or rng.randint(2, 6)
    cols, doms = {}, {}
    for i in range(ncols):
        name = rng.choice(type_names)
        col, dom = random_column(name, rng, n)
        cname = f"c{i}_{name.replace(':', '_').replace('/', '_')}"
        cols[cname], doms[cname] = col, dom
    return pa.table(cols), doms


def _needs_typed(t: pa.DataType) -> bool:
    # pyarrow infers no uint64 above 2**63, compares timestamps of different zones with no kernel,
    # infers a pandas Timestamp as microseconds (dropping nanoseconds), and an empty set as null.
    return t == pa.uint64() or (pa.types.is_timestamp(t) and (t.tz is not None or t.unit == "ns"))


def _pick(rng: random.Random, t: pa.DataType, dom: pa.Array):
    r = rng.random()
    if r < 0.06:
        return None
    if pa.types.is_floating(t) and r < 0.14:
        return rng.choice([NAN, -0.0, 0.0, 0.1, 1e300])
    return dom[rng.randrange(len(dom))].as_py()


def _lit(t: pa.DataType, v):
    """The literal as a user would write it for a column of type t."""
    if v is None:
        return None
    if _needs_typed(t):
        return pa.scalar(v, t)
    return v


def _set(t: pa.DataType, values: list):
    if _needs_typed(t) or all(v is None for v in values):
        return pa.array(values, t)
    return values


def random_atom_spec(rng: random.Random, table: pa.Table, doms: dict):
    """(column, op, value) with op in ==, !=, <, <=, >, >=, in, not in, is_null, is_valid."""
    c = rng.choice(table.column_names)
    t, dom = table.schema.field(c).type, doms[c]
    op = rng.choices(["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is_null", "is_valid"],
                     [5, 3, 2, 2, 2, 2, 4, 2, 1, 1])[0]
    if op in ("in", "not in"):
        vals = [_pick(rng, t, dom) for _ in range(rng.choice([0, 1, 1, 2, 3, 5]))]
        if rng.random() < 0.2:
            vals.append(None)
        if _needs_typed(t) and any(v is None for v in vals):
            vals = [v for v in vals if v is not None] or [None]  # keep pa.array(values, t) simple
        return c, op, vals
    if op in ("is_null", "is_valid"):
        return c, op, None
    if op not in ("==", "!=") and t == pa.bool_():
        op = rng.choice(["==", "!="])
    return c, op, _pick(rng, t, dom)


def spec_expression(spec, table: pa.Table, rng: random.Random | None = None):
    c, op, v = spec
    t = table.schema.field(c).type
    f = F(c)
    if op == "is_null":
        return f.is_null()
    if op == "is_valid":
        return f.is_valid()
    if op in ("in", "not in"):
        e = f.isin(_set(t, v))
        return ~e if op == "not in" else e
    lit = _lit(t, v)
    if rng is not None and rng.random() < 0.25 and lit is not None:
        # literal on the left
        s = pc.scalar(lit)
        return {"==": s == f, "!=": s != f, "<": s < f, "<=": s <= f, ">": s > f, ">=": s >= f}[op]
    if lit is None:
        lit = pa.scalar(None)
    return {"==": f == lit, "!=": f != lit, "<": f < lit, "<=": f <= lit, ">": f > lit, ">=": f >= lit}[op]


def random_expression(rng: random.Random, table: pa.Table, doms: dict, depth: int = 3):
    r = rng.random()
    if depth == 0 or r < 0.35:
        return spec_expression(random_atom_spec(rng, table, doms), table, rng)
    if r < 0.5:
        return ~random_expression(rng, table, doms, depth - 1)
    a = random_expression(rng, table, doms, depth - 1)
    b = random_expression(rng, table, doms, depth - 1)
    return (a & b) if r < 0.75 else (a | b)


def random_dnf(rng: random.Random, table: pa.Table, doms: dict):
    """pyarrow's DNF form: a list of tuples, or a list of lists of tuples."""
    def tup():
        while True:
            c, op, v = random_atom_spec(rng, table, doms)
            if op not in ("is_null", "is_valid"):
                break
        t = table.schema.field(c).type
        if op in ("in", "not in"):
            return (c, op, _set(t, v))
        return (c, rng.choice(["=", "=="]) if op == "==" else op, _lit(t, v))
    if rng.random() < 0.4:
        return [tup() for _ in range(rng.randint(1, 3))]
    return [[tup() for _ in range(rng.randint(1, 3))] for _ in range(rng.randint(1, 3))]


def random_filter(rng: random.Random, table: pa.Table, doms: dict):
    """(filters as the user gives them, the same as a pyarrow Expression)."""
    if rng.random() < 0.3:
        f = random_dnf(rng, table, doms)
        return f, pq.filters_to_expression(f)
    e = random_expression(rng, table, doms)
    return e, e


# ---------------------------------------------------------------------------
# Normalization of each form


def test_dnf_ops():
    assert normalize([("a", "=", 1)]) == [[A("a", "eq", 1)]]
    assert normalize([("a", "==", 1)]) == [[A("a", "eq", 1)]]
    assert normalize([("a", "!=", "x")]) == [[A("a", "ne", "x")]]
    assert normalize([("a", "<", 1.5)]) == [[A("a", "lt", 1.5)]]
    assert normalize([("a", "<=", 1)]) == [[A("a", "le", 1)]]
    assert normalize([("a", ">", 1)]) == [[A("a", "gt", 1)]]
    assert normalize([("a", ">=", 1)]) == [[A("a", "ge", 1)]]
    assert normalize([("a", "in", [1, 2, None])]) == [[A("a", "in", 1, 2, None)]]
    assert normalize([("a", "not in", (1,))]) == [[A("a", "in", 1, negate=True)]]
    assert normalize([("a", "in", pa.array([1, 2], pa.uint64()))]) == [[A("a", "in", 1, 2)]]
    assert normalize([("a", "in", np.array([3, 4]))]) == [[A("a", "in", 3, 4)]]
    assert normalize([("a", "=", None)]) == [[A("a", "eq", None)]]
    assert normalize([("a", "=", pa.scalar(5, pa.uint64()))]) == [[A("a", "eq", 5)]]


def test_dnf_nesting():
    assert normalize([("a", "=", 1), ("b", "<", 2)]) == [[A("a", "eq", 1), A("b", "lt", 2)]]
    assert normalize([[("a", "=", 1), ("b", "<", 2)], [("c", "in", ["x"])]]) == \
        [[A("a", "eq", 1), A("b", "lt", 2)], [A("c", "in", "x")]]
    assert normalize([[("a", "=", 1)]]) == [[A("a", "eq", 1)]]
    assert normalize(((("a", "=", 1),),)) == [[A("a", "eq", 1)]]
    with pytest.raises(FormatError, match="mixes"):
        normalize([[("a", "=", 1)], ("b", "=", 2)])


@pytest.mark.parametrize("bad, words", [
    ([], "malformed"),
    ([[]], "malformed"),
    ([("a", "~", 1)], "'~' is not a valid operator"),
    ([("a", "like", "x")], "'like' is not a valid operator"),
    ([("a", "=")], "not a (column, op, value)"),
    ([("a", "in", 5)], "collection"),
    ([("a", "in", "abc")], "collection"),
    ([("a", "=", [1, 2])], "takes one value"),
    ([(("a", "b"), "=", 1)], "nested field"),
    (5, "got int"),
    ("a = 1", "got str"),
    (("a", "=", 1), "is one predicate; give a list of them: [('a', '=', 1)]"),
    (["a", "in", [1, 2]], "is one predicate"),
    ([1, 2], "1 is not a (column, op, value) tuple or a list of them"),
])
def test_dnf_errors(bad, words):
    with pytest.raises(FormatError, match=None) as ei:
        normalize(bad)
    assert words in str(ei.value), str(ei.value)


CMP = [("eq", F("a") == 5), ("ne", F("a") != 5), ("lt", F("a") < 5), ("le", F("a") <= 5),
       ("gt", F("a") > 5), ("ge", F("a") >= 5)]


@pytest.mark.parametrize("op, e", CMP)
def test_expression_comparisons(op, e):
    assert normalize(e) == [[A("a", op, 5)]]


@pytest.mark.parametrize("e, op", [
    (pc.scalar(5) == F("a"), "eq"), (pc.scalar(5) != F("a"), "ne"), (pc.scalar(5) < F("a"), "gt"),
    (pc.scalar(5) <= F("a"), "ge"), (pc.scalar(5) > F("a"), "lt"), (pc.scalar(5) >= F("a"), "le"),
    (5 < F("a"), "gt"), (5 >= F("a"), "le"),
])
def test_expression_flipped(e, op):
    assert normalize(e) == [[A("a", op, 5)]]


def test_expression_negations():
    assert normalize(~(F("a") == 5)) == [[A("a", "ne", 5)]]
    assert normalize(~(F("a") != 5)) == [[A("a", "eq", 5)]]
    assert normalize(~(F("a") == NAN))[0][0].op == "ne"
    for op, e in CMP[2:]:
        assert normalize(~e) == [[A("a", op, 5, negate=True)]]
        assert normalize(~~e) == [[A("a", op, 5)]]
    assert normalize(~F("a").isin([1, None])) == [[A("a", "in", 1, None, negate=True)]]
    assert normalize(F("a").is_null()) == [[A("a", "is_null")]]
    assert normalize(F("a").is_valid()) == [[A("a", "is_null", negate=True)]]
    assert normalize(~F("a").is_null()) == [[A("a", "is_null", negate=True)]]
    assert normalize(~F("a").is_valid()) == [[A("a", "is_null")]]
    assert normalize(F("flag")) == [[A("flag", "eq", True)]]
    assert normalize(~F("flag")) == [[A("flag", "ne", True)]]


def test_de_morgan_and_distribution():
    a, b, c, d = F("a") < 1, F("b") == 2, F("c").isin(["x"]), F("d").is_null()
    na, nb = A("a", "lt", 1, negate=True), A("b", "ne", 2)
    assert normalize(~(a & b)) == [[na], [nb]]
    assert normalize(~(a | b)) == [[na, nb]]
    assert normalize(~(~a | ~b)) == [[A("a", "lt", 1), A("b", "eq", 2)]]
    got = normalize((a | b) & (c | d))
    A_, B_, C_, D_ = A("a", "lt", 1), A("b", "eq", 2), A("c", "in", "x"), A("d", "is_null")
    assert got == [[A_, C_], [A_, D_], [B_, C_], [B_, D_]]
    assert normalize(~((a | b) & ~(c & d))) == [
        [na, nb], [C_, D_]]
    assert normalize(a & a) == [[A_]]  # repeated atoms in a conjunction kept once
    assert filter_columns(normalize((d | b) & (a | d))) == ["d", "a", "b"]


def test_conjunction_limit():
    def ors(k):
        e = None
        for i in range(k):
            t = (F(f"x{i}") == 1) | (F(f"y{i}") == 2)
            e = t if e is None else e & t
        return e
    assert len(normalize(ors(10))) == MAX_CONJUNCTIONS == 1024
    with pytest.raises(FormatError, match="2048 conjunctions"):
        normalize(ors(11))
    with pytest.raises(FormatError, match="conjunctions"):
        normalize(~ors(3) & ors(10))


def test_expression_literals_typed():
    cases = [
        (pa.scalar(3, pa.int8()), 3),
        (pa.scalar(2**64 - 1, pa.uint64()), 2**64 - 1),
        (pa.scalar(0.1, pa.float32()), float(np.float32(0.1))),
        (pa.scalar(-0.0), -0.0),
        ("x", "x"), (b"\x00y", b"\x00y"),
        (pa.scalar(b"abc", pa.binary(3)), b"abc"),
        (pa.scalar("x", pa.large_string()), "x"),
        (dt.date(2020, 1, 2), dt.date(2020, 1, 2)),
        (dt.datetime(2020, 1, 2, 3, 4, 5, 6), dt.datetime(2020, 1, 2, 3, 4, 5, 6)),
        (D("1.23"), D("1.23")),
        (pa.scalar(D("12345678901234567890.1234"), pa.decimal128(30, 4)), D("12345678901234567890.1234")),
        (True, True),
    ]
    for lit, want in cases:
        got = normalize(F("a") == lit)[0][0].values[0]
        assert got == want and type(got) is type(want), (lit, got)
    nan = normalize(F("a") == NAN)[0][0].values[0]
    assert math.isnan(nan)
    z = normalize(F("a").isin([-0.0, NAN, None]))[0][0].values
    assert math.copysign(1, z[0]) == -1 and math.isnan(z[1]) and z[2] is None
    tz = normalize(F("a") >= pa.scalar(dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc),
                                       pa.timestamp("ms", "UTC")))[0][0].values[0]
    assert tz == dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc) and tz.tzinfo is not None
    assert normalize(F("a") == pa.scalar(None, pa.int32())) == [[A("a", "eq", None)]]


@pytest.mark.parametrize("e, words", [
    (F("a") + 1 > 2, "add"),
    (F("a") * F("b") == 2, "multiply"),
    (F("a") == F("b"), "comparing two columns ('a' == 'b')"),
    (F("a") < F("b"), "comparing two columns"),
    (F("a", "b") == 1, "nested field reference"),
    (F(("a", "b")).isin([1]), "nested field reference"),
    (F(0) == 1, "not supported"),
    (F("a").is_nan(), "'is_nan'"),
    (pc.scalar(1), "bare literal"),
    (pc.scalar(1) == pc.scalar(1), "literal 1"),
    (F("a").cast(pa.int8()) == 1, "cast"),
    (F("a").is_null(nan_is_null=True), "nan_is_null=True"),
    (pc.Expression._call("utf8_length", [F("a")]) > 1, "utf8_length"),
    (pc.Expression._call("is_in", [F("a") + 1], pc.SetLookupOptions(pa.array([1]))), "add"),
    (~pc.Expression._call("and", [F("a") == 1, F("b") == 1]), "non-Kleene 'and'"),
])
def test_expression_errors(e, words):
    with pytest.raises(FormatError) as ei:
        normalize(e)
    assert words in str(ei.value), str(ei.value)


def test_non_kleene_and_or_positive():
    e = pc.Expression._call("or", [F("a") == 1, pc.Expression._call("and", [F("b") == 1, F("c") == 2])])
    assert normalize(e) == [[A("a", "eq", 1)], [A("b", "eq", 1), A("c", "eq", 2)]]


def test_null_matching_behaviors():
    t = pa.table({"a": pa.array([1, 2, None, 3], pa.int64())})
    # pyarrow 26 makes only MATCH (skip_nulls=False) and SKIP (True) from Python
    for skip in (False, True):
        for vs in ([1, None], [1], [None], []):
            for neg in (False, True):
                e = pc.Expression._call("is_in", [F("a")], pc.SetLookupOptions(pa.array(vs, pa.int64()),
                                                                               skip_nulls=skip))
                if neg:
                    e = ~e
                want = ds.dataset(t).to_table(filter=e)
                got = reference_filter(t, normalize(e))
                same_table(got, want)


def test_filter_columns():
    assert filter_columns([]) == []
    assert filter_columns(normalize([[("b", "=", 1), ("a", "=", 1)], [("c", "<", 1), ("b", ">", 0)]])) == ["b", "a", "c"]


def test_to_expression_roundtrip():
    e = (F("a") < 5) | ~F("b").isin([1, None]) & F("c").is_valid()
    dnf = normalize(e)
    assert normalize(to_expression(dnf)) == dnf
    # the special sets
    t = pa.table({"a": pa.array([1, None, 2])})
    for vals, want in (([], []), ([None], [None])):
        for neg in (False, True):
            x = to_expression([[Atom("a", "in", neg, tuple(vals))]])
            got = ds.dataset(t).to_table(filter=x)["a"].to_pylist()
            exp = [v for v in t["a"].to_pylist() if (v in vals) != neg]
            assert got == exp


# ---------------------------------------------------------------------------
# pyarrow's semantics, pinned (the engine implements these)


def test_semantics_pinned():
    neg_nan = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]
    t = pa.table({"f": pa.array([0.0, -0.0, NAN, None, 1.0, neg_nan]),
                  "g": pa.array([0.0, -0.0, NAN, None], pa.float32()).take([0, 1, 2, 3, 0, 2])})

    ti = ds.dataset(t.append_column("i", pa.array(range(6))))

    def rows(e):
        return ti.to_table(filter=e)["i"].to_pylist()

    # comparisons are IEEE: -0.0 == 0.0, NaN equals nothing, != NaN is true for non-null rows
    assert rows(F("f") == 0.0) == [0, 1]
    assert rows(F("f") == -0.0) == [0, 1]
    assert rows(F("f") == NAN) == []
    assert rows(F("f") != NAN) == [0, 1, 2, 4, 5]
    assert rows(~(F("f") < 1.0)) == [2, 4, 5]  # NaN rows: NOT (NaN < 1) is TRUE; not "f >= 1"
    assert rows(F("f") >= 1.0) == [4]
    # is_in compares bit patterns: 0.0 and -0.0 differ, NaN matches the same NaN only
    assert rows(F("f").isin([0.0])) == [0]
    assert rows(F("f").isin([-0.0])) == [1]
    assert rows(F("f").isin([NAN])) == [2]
    assert rows(F("f").isin([None])) == [3]
    assert rows(~F("f").isin([1.0])) == [0, 1, 2, 3, 5]
    assert rows(~F("f").isin([1.0, None])) == [0, 1, 2, 5]
    assert rows(F("g").isin([-0.0])) == [1]
    assert rows(F("g").isin([0.1])) == []
    # is_null does not take NaN for null
    assert rows(F("f").is_null()) == [3]
    for e in (F("f") == 0.0, F("f") != NAN, ~(F("f") < 1.0), F("f").isin([0.0]), F("f").isin([-0.0]),
              F("f").isin([NAN]), ~F("f").isin([1.0, None]), F("g").isin([-0.0]), F("f").is_null()):
        same_table(reference_filter(t, normalize(e)), ds.dataset(t).to_table(filter=e), str(e))


def test_float32_column_compares_in_double():
    t = pa.table({"g": pa.array([0.1, 0.5, None, NAN], pa.float32())})
    for e in (F("g") == 0.1, F("g") < 0.1, F("g") <= 0.1, F("g") > 0.1, F("g") >= 0.1, F("g") != 0.1,
              F("g").isin([0.1]), F("g") == pa.scalar(0.1, pa.float32()), F("g") < 1e300, F("g") > -1e300):
        same_table(reference_filter(t, normalize(e)), ds.dataset(t).to_table(filter=e), str(e))


# ---------------------------------------------------------------------------
# The reference evaluator against pyarrow.dataset, random tables and filters


def _check(table, f, expr):
    want = ds.dataset(table).to_table(filter=expr)
    dnf = normalize(f)
    got = reference_filter(table, dnf)
    same_table(got, want, f"filter {f}\nDNF {dnf}")
    back = ds.dataset(table).to_table(filter=to_expression(dnf, table.schema))
    same_table(back, want, f"to_expression of {dnf}")


def test_random_against_dataset():
    rng = random.Random(17)
    cases = 0
    for _ in range(60):
        table, doms = random_table(rng, rng.choice([0, 1, 7, 60, 200]))
        for _ in range(6):
            f, expr = random_filter(rng, table, doms)
            _check(table, f, expr)
            cases += 1
    assert cases == 360


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_random_each_type(name):
    rng = random.Random(hash(name) & 0xFFFF)
    for _ in range(3):
        table, doms = random_table(rng, 80, 2, type_names=[name])
        for _ in range(12):
            f, expr = random_filter(rng, table, doms)
            _check(table, f, expr)


# ---------------------------------------------------------------------------
# encode_atom_values


@pytest.fixture(scope="module")
def descs(tmp_path_factory):
    import pqfast

    t = pa.table({
        "b": pa.array([True], pa.bool_()),
        "i32": pa.array([1], pa.int32()),
        "u8": pa.array([1], pa.uint8()),
        "i64": pa.array([1], pa.int64()),
        "f": pa.array([1.0], pa.float32()),
        "d": pa.array([1.0], pa.float64()),
        "s": pa.array(["x"]),
        "fsb": pa.array([b"abc"], pa.binary(3)),
        "dec": pa.array([D("1.23")], pa.decimal128(9, 2)),
        "decl": pa.array([D("1.2300")], pa.decimal128(30, 4)),
        "date": pa.array([dt.date(2020, 1, 1)]),
        "ts": pa.array([dt.datetime(2020, 1, 1)], pa.timestamp("ms")),
    })
    p = tmp_path_factory.mktemp("desc") / "d.parquet"
    pq.write_table(t, p)
    with pqfast.ParquetFile(str(p)) as f:
        return {c["dotted_path"]: c for c in f.columns}


def test_encode_atom_values(descs):
    data, off, tl, hn = encode_atom_values(descs["b"], A("b", "in", True, False, None, 1, 0))
    assert data.tolist() == [1, 0, 1, 0] and off is None and tl == 0 and hn
    data, off, tl, hn = encode_atom_values(descs["i32"], A("i32", "in", 1, None, -2))
    assert data.view("<i4").tolist() == [1, -2] and hn and off is None
    data, _, _, hn = encode_atom_values(descs["i64"], A("i64", "eq", 7))
    assert data.view("<i8").tolist() == [7] and not hn
    data, _, _, hn = encode_atom_values(descs["i64"], A("i64", "eq", None))
    assert data.size == 0 and hn
    data, _, _, _ = encode_atom_values(descs["d"], A("d", "in", -0.0, NAN, 1))
    assert data.view("<u8").tolist() == [0x8000000000000000, 0x7FF8000000000000, 0x3FF0000000000000]
    data, _, _, _ = encode_atom_values(descs["f"], A("f", "in", -0.0, NAN, 0.1))
    assert data.view("<u4").tolist()[:2] == [0x80000000, 0x7FC00000]
    assert data.view("<f4")[2] == np.float32(0.1)
    data, off, tl, _ = encode_atom_values(descs["s"], A("s", "in", "ab", b"c", None))
    assert bytes(data) == b"abc" and off.tolist() == [0, 2, 3] and off.dtype == np.int64
    data, off, tl, _ = encode_atom_values(descs["fsb"], A("fsb", "eq", b"xyz"))
    assert bytes(data) == b"xyz" and tl == 3 and off is None
    data, _, tl, _ = encode_atom_values(descs["dec"], A("dec", "eq", D("1.25")))
    assert tl == 4 and bytes(data) == (125).to_bytes(4, "big")  # pyarrow writes FIXED_LEN_BYTE_ARRAY
    data, _, tl, _ = encode_atom_values(descs["decl"], A("decl", "eq", D("-1.0000")))
    assert tl == 13 and int.from_bytes(bytes(data), "big", signed=True) == -10000
    data, _, _, _ = encode_atom_values(descs["date"], A("date", "eq", dt.date(1970, 1, 3)))
    assert data.view("<i4").tolist() == [2]
    data, _, _, _ = encode_atom_values(descs["ts"], A("ts", "eq", dt.datetime(1970, 1, 1, 0, 0, 1)))
    assert data.view("<i8").tolist() == [1000]
    data, off, _, hn = encode_atom_values(descs["s"], A("s", "in"))
    assert data.size == 0 and off.tolist() == [0] and not hn


def test_encode_float32_comparisons_exact(descs):
    """A double that float32 cannot hold becomes the float32 that keeps the comparison exact."""
    f32 = np.float32(0.1)
    up, down = np.nextafter(f32, np.float32(1)), np.nextafter(f32, np.float32(0))
    assert float(f32) > 0.1
    want = {"lt": f32, "le": down, "gt": down, "ge": f32}
    for op, w in want.items():
        data, *_ = encode_atom_values(descs["f"], A("f", op, 0.1))
        assert data.view("<f4")[0] == w, op
    for op in ("eq", "ne"):
        data, *_ = encode_atom_values(descs["f"], A("f", op, 0.1))
        assert math.isnan(data.view("<f4")[0])
    data, *_ = encode_atom_values(descs["f"], A("f", "lt", 1e300))
    assert data.view("<f4")[0] == np.inf
    data, *_ = encode_atom_values(descs["f"], A("f", "le", 1e300))
    assert data.view("<f4")[0] == np.finfo(np.float32).max
    data, *_ = encode_atom_values(descs["f"], A("f", "eq", 0.5))
    assert data.view("<f4")[0] == 0.5
    # exhaustive check of the rewrite against double comparisons on neighbours
    xs = np.array([f32, up, down, 0.0, -np.inf, np.inf, np.nan], np.float32)
    for v in (0.1, -0.1, 1e-45, 3.4e38, 3.5e38, 1e300, -1e300, 1 / 3):
        for op, fn in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                       ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
            data, *_ = encode_atom_values(descs["f"], A("f", op, v))
            w = data.view("<f4")[0]
            assert (fn(xs.astype(np.float64), v) == fn(xs, w)).all(), (v, op, w)
    with pytest.raises(FormatError, match="16777217"):
        encode_atom_values(descs["f"], A("f", "eq", 16777217))


@pytest.mark.parametrize("col, atom, words", [
    ("b", A("b", "eq", 2), "'b' is BOOLEAN"),
    ("b", A("b", "eq", "x"), "'b' is BOOLEAN"),
    ("i32", A("i32", "eq", "x"), "'i32'"),
    ("u8", A("u8", "eq", 300), "'u8'"),
    ("i32", A("i32", "eq", 1.5), "'i32'"),
    ("d", A("d", "eq", "x"), "'d'"),
    ("fsb", A("fsb", "eq", b"ab"), "'fsb'"),
    ("ts", A("ts", "eq", dt.datetime(1970, 1, 1, 0, 0, 0, 1)), "'ts'"),
])
def test_encode_atom_values_errors(descs, col, atom, words):
    with pytest.raises(FormatError) as ei:
        encode_atom_values(descs[col], atom)
    assert words in str(ei.value), str(ei.value)


def test_if_else_null_unless_valid():
    """DuckDB pushes ``x IN (...)`` as if_else(is_valid(x), is_in(x, ...), NULL):
    taken as an atom pair, exact under ~, & and | (checked against pyarrow)."""
    t = pa.table({"x": ["3", None, "5", "4", None], "y": [1, None, 3, None, 5]})
    x = pc.field("x")
    e = pc.if_else(x.is_valid(), pc.is_in(x, value_set=pa.array(["3", "4"])), pa.scalar(None, pa.bool_()))
    for expr in [e, ~e, e | pc.field("y").is_null(), ~e & (pc.field("y") > 2), ~(e | (pc.field("y") == 3))]:
        assert reference_filter(t, normalize(expr)).equals(t.filter(expr)), str(expr)
    assert normalize(e) == [[Atom("x", "in", False, ("3", "4"))]]  # its is_valid implied
    # Another if_else is still refused.
    with pytest.raises(FormatError):
        normalize(pc.if_else(x.is_valid(), pc.field("y") > 1, pa.scalar(True)))
