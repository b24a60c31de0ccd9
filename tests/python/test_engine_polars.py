"""pqfast.polars.scan_parquet: the predicate translator checked against
polars itself on random tables and predicates (what is pushed keeps exactly
polars' rows, or a superset when polars filters again), and ~30 queries over
the lookup lakes and a hive lake equal to pl.scan_parquet on the same files,
with the same schema; a 1-id lookup reads what read_table(filters=) reads."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

import pqfast  # noqa: E402
import pqfast.polars as pqpl  # noqa: E402

import engine_lakes  # noqa: E402


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_lakes.build(tmp_path_factory.mktemp("engines"))


# -- the translator against polars ------------------------------------------------------------------------------


def _random_frame(rng, n=300) -> pl.DataFrame:
    def masked(values, p=0.15):
        return [None if rng.random() < p else v for v in values]

    floats = rng.choice([0.0, -0.0, 1.5, -2.0, float("nan"), float("inf"), 3.25, 7.0], n).tolist()
    return pl.DataFrame({
        "i": pl.Series(masked(rng.integers(-5, 6, n).tolist()), dtype=pl.Int64),
        "u": pl.Series(masked(rng.integers(0, 4, n).tolist()), dtype=pl.UInt8),
        "f": pl.Series(masked(floats), dtype=pl.Float64),
        "s": pl.Series(masked([f"s{x}" for x in rng.integers(0, 5, n)]), dtype=pl.String),
        "b": pl.Series(masked([bool(x) for x in rng.integers(0, 2, n)]), dtype=pl.Boolean),
        "d": pl.Series(masked([datetime.date(2024, 1, 1 + int(x)) for x in rng.integers(0, 5, n)]), dtype=pl.Date),
        "t": pl.Series(masked([datetime.datetime(2024, 1, 1, int(x)) for x in rng.integers(0, 5, n)]),
                       dtype=pl.Datetime("us")),
        "c": pl.Series(masked([f"c{x}" for x in rng.integers(0, 3, n)]), dtype=pl.Categorical),
    })


def _atom(rng) -> pl.Expr:
    col = rng.choice(["i", "u", "f", "s", "b", "d", "t", "c"])
    c = pl.col(col)
    lit = {"i": lambda: int(rng.integers(-6, 7)), "u": lambda: int(rng.integers(0, 5)),
           "f": lambda: float(rng.choice([0.0, -0.0, 1.5, -2.0, float("nan"), 3.25, 9.0])),
           "s": lambda: f"s{rng.integers(0, 6)}", "b": lambda: bool(rng.integers(0, 2)),
           "d": lambda: datetime.date(2024, 1, 1 + int(rng.integers(0, 6))),
           "t": lambda: datetime.datetime(2024, 1, 1, int(rng.integers(0, 6))),
           "c": lambda: f"c{rng.integers(0, 4)}"}[col]
    k = int(rng.integers(0, 9))
    if k == 0:
        return c.is_null()
    if k == 1:
        return c.is_not_null()
    if k == 2:
        vals = [lit() for _ in range(int(rng.integers(0, 4)))] + ([None] if rng.random() < 0.3 else [])
        values = pl.Series(vals, dtype=_random_frame(rng, 1).schema[col]).implode()
        return c.is_in(values, nulls_equal=bool(rng.random() < 0.5))
    if k == 3 and col not in ("b", "c"):
        return c.is_between(pl.lit(lit()), pl.lit(lit()), closed=rng.choice(["both", "left", "right", "none"]))
    if k == 4 and col in ("i", "f"):
        return (c + 1) > lit()  # not translatable: polars filters
    if col == "b" and k == 5:
        return c
    if col == "s" and k == 5:
        return c.str.starts_with(str(rng.choice(["", "s", "s1", "s9", "t"])))
    op = rng.choice(["==", "!=", "<", "<=", ">", ">="])
    v = lit()
    if rng.random() < 0.2:  # the literal on the left
        return {"==": pl.lit(v) == c, "!=": pl.lit(v) != c, "<": pl.lit(v) < c, "<=": pl.lit(v) <= c,
                ">": pl.lit(v) > c, ">=": pl.lit(v) >= c}[op]
    return {"==": c == v, "!=": c != v, "<": c < v, "<=": c <= v, ">": c > v, ">=": c >= v}[op]


def _predicate(rng, depth=0) -> pl.Expr:
    k = int(rng.integers(0, 5)) if depth < 3 else 0
    if k <= 1:
        return _atom(rng)
    if k == 2:
        return ~_predicate(rng, depth + 1)
    a, b = _predicate(rng, depth + 1), _predicate(rng, depth + 1)
    return a & b if k == 3 else a | b


def _captured_predicates(df: pl.DataFrame, exprs):
    """The predicates polars hands an IO source for ``exprs`` (after its optimizer)."""
    from polars.io.plugins import register_io_source

    seen = []

    def source(with_columns, predicate, n_rows, batch_size):
        seen.append(predicate)
        yield df.filter(predicate) if predicate is not None else df

    lf = register_io_source(source, schema=df.schema)
    out = []
    for e in exprs:
        seen.clear()
        lf.filter(e).collect()
        out.append(seen[0] if seen else None)
    return out


def test_translation_keeps_polars_rows_on_random_predicates():
    rng = np.random.default_rng(2031)
    pushed = exact = 0
    for round_ in range(4):
        df = _random_frame(rng).with_row_index("row")
        table = df.to_arrow()
        schema = table.schema
        exprs = [_predicate(rng) for _ in range(60)]
        for expr, pred in zip(exprs, _captured_predicates(df, exprs)):
            want = set(df.filter(expr)["row"].to_list())
            t = pqpl.translate(pred, schema)
            if t.expression is None:
                assert not t.exact or pred is None
                continue
            pushed += 1
            got = set(table.filter(t.expression).column("row").to_pylist())
            if t.exact:
                exact += 1
                assert got == want, f"{expr} -> {t.expression}: {sorted(got ^ want)[:10]}"
            else:
                assert want <= got, f"{expr} -> {t.expression} drops rows {sorted(want - got)[:10]}"
    # The generator makes mostly translatable predicates: most must be pushed, many exactly.
    assert pushed >= 120 and exact >= 60, (pushed, exact)


@pytest.mark.parametrize("expr, exact", [
    (pl.col("f") > 1.0, True),                      # NaN > 1 in polars: pushed as NOT (f <= 1)
    (pl.col("f") >= -2.0, True),
    (pl.col("s").str.starts_with("s1"), None),      # polars' to apply
    (pl.col("s").str.ends_with("1"), None),
    (pl.col("f") < 1.0, True),
    (pl.col("f").is_in([1.5]), None),               # float is_in: polars' total order, not pushed
    ((pl.col("i") == 1) & (pl.col("i") + 1 == 3), False),  # the conjunct polars must apply
    ((pl.col("i") == 1) | (pl.col("i") + 1 == 3), None),   # an OR needs both sides
    (~((pl.col("i") == 1) & (pl.col("i") + 1 == 3)), None),  # a negated superset is no superset
    (pl.col("c") < "c1", None),                     # a categorical's order is polars'
    (pl.col("c") == "c1", True),
    (pl.col("s").is_in(["s1", None]), True),
    (pl.col("b"), True),
])
def test_translation_cases(expr, exact):
    df = _random_frame(np.random.default_rng(5))
    (pred,) = _captured_predicates(df, [expr])
    t = pqpl.translate(pred, df.to_arrow().schema)
    if exact is None:
        assert t.expression is None and not t.exact
    else:
        assert t.expression is not None and t.exact == exact


def test_unknown_nodes_are_not_pushed():
    schema = pa.schema([("i", pa.int64()), ("s", pa.string())])
    for e in [pl.col("i").cast(pl.Int32) == 1, pl.col("s").str.contains("a"), pl.col("i") == pl.col("i"),
              pl.col("nope") == 1, pl.col("i").is_in([1]).over("s")]:
        t = pqpl.translate(e, schema)
        assert t.expression is None and not t.exact


# -- the lakes against pl.scan_parquet ------------------------------------------------------------------------


def _ours(d):
    return pqpl.scan_parquet(str(d))


def _polars(d, name):
    glob = str(d) if name == "hive" else str(d / "*.parquet")
    return pl.scan_parquet(glob, hive_partitioning=(name == "hive"))


def _sql(where, cols):
    return f"SELECT {', '.join(cols) if cols else '*'} FROM self" + (f" WHERE {where}" if where else "")


def _check(ours: pl.LazyFrame, theirs: pl.LazyFrame, what: str, ordered=False):
    a, b = ours.collect(), theirs.collect()
    assert a.schema == b.schema, f"{what}: {a.schema} != {b.schema}"
    engine_lakes.assert_same(a.to_arrow(), b.to_arrow(), ordered, what)


@pytest.mark.parametrize("lake", ["bloom", "polars", "sorted", "hive"])
def test_schema_is_pl_scan_parquets(lakes, lake):
    if lake not in lakes:
        pytest.skip("no polars-written lake")
    assert _ours(lakes[lake]).collect_schema() == _polars(lakes[lake], lake).collect_schema()


@pytest.mark.parametrize("lake", ["bloom", "polars", "sorted"])
def test_lookup_lake_queries_equal_polars(lakes, lake):
    if lake not in lakes:
        pytest.skip("no polars-written lake")
    d = lakes[lake]
    ours, theirs = _ours(d), _polars(d, lake)
    for name, where, cols in engine_lakes.lookup_queries(lakes["bloom"]):
        q = _sql(where, cols)
        _check(ours.sql(q), theirs.sql(q), f"{lake}: {name}: {q}")


def test_hive_lake_queries_equal_polars(lakes):
    d = lakes["hive"]
    ours, theirs = _ours(d), _polars(d, "hive")
    for name, where, cols in engine_lakes.hive_queries():
        q = _sql(where, cols)
        _check(ours.sql(q), theirs.sql(q), f"hive: {name}: {q}")


def test_expressions_aggregates_join_limit_order(lakes):
    d = lakes["bloom"]
    ours, theirs = _ours(d), _polars(d, "bloom")
    v = engine_lakes.lookup_ids(d)
    cases = {
        "is_in": lambda lf: lf.filter(pl.col("id").is_in(v["ten"])).select("id", "key"),
        "is_between": lambda lf: lf.filter(pl.col("id").is_between(v["lo"], v["hi"], closed="left")).select("id"),
        "negated or": lambda lf: lf.filter(~((pl.col("quantity") < 500) | pl.col("flag"))).select("id", "quantity"),
        "string function": lambda lf: lf.filter(pl.col("key").str.ends_with("7") & (pl.col("quantity") < 3))
        .select("id", "key"),
        "group by": lambda lf: lf.group_by("category").agg(pl.len(), pl.col("amount").sum().round(6),
                                                           pl.col("quantity").max()),
        "count": lambda lf: lf.select(pl.len()),
        "filtered count": lambda lf: lf.filter(pl.col("quantity") < 100).select(pl.len()),
        "self join": lambda lf: lf.filter(pl.col("id").is_in(v["ten"])).select("id", "quantity").join(
            lf.filter(pl.col("quantity") < 50).select("quantity", "category"), on="quantity"),
    }
    for name, f in cases.items():
        _check(f(ours), f(theirs), name)
    ordered = {
        "head": lambda lf: lf.head(7),
        "limit after filter": lambda lf: lf.filter(pl.col("quantity") == 3).select("id").limit(4),
        "order by": lambda lf: lf.filter(pl.col("quantity") < 5).sort("id", descending=True).select("id", "ts"),
        "top k": lambda lf: lf.sort("amount").head(5).select("id", "amount"),
        "slice": lambda lf: lf.slice(2990, 20).select("id"),
    }
    for name, f in ordered.items():
        _check(f(ours), f(theirs), name, ordered=True)


def test_nulls_and_keys_through_expressions(lakes):
    d = lakes["hive"]
    ours, theirs = _ours(d), _polars(d, "hive")
    cases = {
        "not is_null": lambda lf: lf.filter(~pl.col("score").is_null() & (pl.col("score") < 10)),
        "is_in with null": lambda lf: lf.filter(pl.col("label").is_in(["l001", "l010", None], nulls_equal=True)),
        "negated is_in": lambda lf: lf.filter(~pl.col("label").is_in(["l001", "l010"])),
        "key int range": lambda lf: lf.filter(pl.col("year").is_between(2021, 2022)).select("id", "year"),
        "key string in": lambda lf: lf.filter(pl.col("region").is_in(["east", "west"])).select("id", "region"),
        "float compare (polars filters)": lambda lf: lf.filter(pl.col("weight") > 0.9).select("id", "weight"),
    }
    for name, f in cases.items():
        _check(f(ours), f(theirs), name)


def test_nan_and_prefix_filters_evaluated_by_pqfast_equal_polars(tmp_path):
    """Float comparisons over NaN, -0.0 and nulls (``>``/``>=`` pushed as
    the negation of ``<=``/``<``) and string ranges and prefixes give
    polars' rows when pqfast's scan evaluates them, on every page layout:
    plain and dictionary, one and several row groups."""
    import pyarrow.parquet as pq

    floats = [1.0, float("nan"), None, -0.0, 0.0, 2.5, float("-inf"), float("inf"), -1.0, float("nan")] * 30
    words = ["a", "ab", "b", "", None, "a\uffff", "\ud7ff", "\ud7ffx", "\ue000", "\U0010ffff", "aa", "é"] * 25
    table = pa.table({"f": pa.array(floats, pa.float64()), "s": pa.array(words[:len(floats)], pa.string()),
                      "row": pa.array(range(len(floats)), pa.int64())})
    for dictionary in (True, False):
        path = tmp_path / f"f{dictionary}.parquet"
        pq.write_table(table, path, use_dictionary=dictionary, row_group_size=70, data_page_size=256)
        cases = [pl.col("f") > 0.0, pl.col("f") >= -0.0, pl.col("f") > -1.0, ~(pl.col("f") > 1.0),
                 (pl.col("f") >= 2.5) | pl.col("f").is_null(), pl.col("f") < 1.0, pl.col("f") != 0.0,
                 pl.col("s").str.starts_with("a"), pl.col("s").str.starts_with("\ud7ff"),
                 ~pl.col("s").str.starts_with("a"), pl.col("s").str.starts_with("é"),
                 pl.col("s").str.starts_with("\U0010ffff"), pl.col("s").is_between(pl.lit("a"), pl.lit("b")),
                 (pl.col("s") >= "\ud7ff") & (pl.col("s") < "\ue000"), pl.col("s") > "a\uffff",
                 pl.col("s") != "ab"]
        for e in cases:
            got = pqpl.scan_parquet(str(path)).filter(e).select("row").collect()["row"].sort().to_list()
            want = pl.scan_parquet(str(path)).filter(e).select("row").collect()["row"].sort().to_list()
            assert got == want, (dictionary, str(e))


def test_batches_and_n_rows_are_pushed(lakes):
    d = lakes["bloom"]
    df = pqpl.scan_parquet(str(d)).head(5).collect()
    assert df.height == 5
    # A small batch size reaches pqfast's scanner: polars' streaming engine asks for batches.
    got = pqpl.scan_parquet(str(d)).select("id").collect(engine="streaming")
    assert got.height == engine_lakes.FILES * engine_lakes.ROWS


def test_pl_scan_parquet_arguments(lakes):
    """pl.scan_parquet's own arguments mean the same through pqfast: n_rows,
    a row index (counted before any filter), hive_partitioning; hints for
    polars' reader are taken; what pqfast does not do is refused, clearly."""
    d, h = lakes["bloom"], lakes["hive"]
    glob = str(d / "*.parquet")
    v = engine_lakes.lookup_ids(d)
    for kw in ({"n_rows": 17}, {"row_index_name": "r"}, {"row_index_name": "r", "row_index_offset": 1000},
               {"n_rows": 9, "row_index_name": "r"}, {"parallel": "row_groups", "use_statistics": False,
                                                      "low_memory": True, "cache": False}):
        ours, theirs = pqpl.scan_parquet(glob, **kw), pl.scan_parquet(glob, **kw)
        _check(ours, theirs, f"{kw}", ordered=True)
        if "row_index_name" in kw:
            f = pl.col("id").is_in(v["ten"])
            _check(ours.filter(f), theirs.filter(f), f"{kw} filtered", ordered=True)
    for hive in (False, True, None):
        ours, theirs = pqpl.scan_parquet(str(h), hive_partitioning=hive), pl.scan_parquet(str(h), hive_partitioning=hive)
        assert ours.collect_schema() == theirs.collect_schema(), hive
        _check(ours.filter(pl.col("score") < 10), theirs.filter(pl.col("score") < 10), f"hive_partitioning={hive}")
    # A polars schema is checked as polars checks it: the files' own passes, any difference is an error.
    want = pl.scan_parquet(glob).collect_schema()
    _check(pqpl.scan_parquet(glob, schema=dict(want)).filter(pl.col("id").is_in(v["ten"])),
           pl.scan_parquet(glob, schema=dict(want)).filter(pl.col("id").is_in(v["ten"])), "schema=")
    wrong = dict(want, id=pl.Int32)
    with pytest.raises(pl.exceptions.SchemaError):
        pl.scan_parquet(glob, schema=wrong).collect()
    for bad, match in ((wrong, "'id' is Int64 in the files; the schema says Int32"),
                       ({k: t for k, t in want.items() if k != "key"}, "extra column in the files .* 'key'"),
                       (dict(want, zz=pl.Int64), "'zz' of the schema is not in the files")):
        with pytest.raises(pqfast.FormatError, match=match):
            pqpl.scan_parquet(glob, schema=bad)
    for kw, match in (({"include_file_paths": "path"}, "include_file_paths"), ({"glob": False}, "glob=False")):
        with pytest.raises(pqfast.FormatError, match=match) as e:
            pqpl.scan_parquet(glob, **kw)
        assert e.value.code == "unsupported"


def test_one_id_reads_what_read_table_reads(lakes):
    d = lakes["bloom"]
    v = engine_lakes.lookup_ids(d)
    ds = pqfast.dataset(str(d))
    got = pqpl.scan_parquet(ds).filter(pl.col("id") == v["one"]).collect()
    want, want_stats = pqfast.read_table(str(d), filters=[("id", "==", v["one"])], stats=True)
    assert got.height == want.num_rows == 1
    stats = ds.scan_stats
    for k in ("pages_read", "bytes_read", "row_groups_read"):
        assert stats[k] == want_stats[k], (k, stats, want_stats)


# -- polars' own reading of the Parquet schema ------------------------------------------------------------------

# Files in tests/data where polars types a column otherwise than pyarrow, and
# what differs: scan_parquet through pqfast gives polars' schema and values.
_SCHEMA_CASES = [
    ("writers/chdb-zstd.parquet", "ClickHouse Enum8/Enum16 (BYTE_ARRAY ENUM): String, not Binary"),
    ("writers/datafusion-lz4-raw.parquet", "INT64 seconds (ARROW:schema timestamp[s]): Datetime(ms), not Int64"),
    ("parquet-testing/data/nested_structs.rust.parquet", "legacy TIMESTAMP_MICROS in a struct: no zone"),
    ("compat/null_nested.parquet", "null-typed leaves in a list and a struct: Int32, not Null"),
    ("parquet-testing/data/null_list.parquet", "the same with an ARROW:schema: Null, as it says"),
    ("writers/nested/fastparquet-nested-json.parquet", "JSON without an Arrow schema: Binary"),
]


@pytest.mark.parametrize("name, what", _SCHEMA_CASES)
def test_schema_and_values_are_polars_own(name, what):
    from polars.testing import assert_frame_equal

    from conftest import REPO

    path = str(REPO / "tests" / "data" / name)
    want = pl.scan_parquet(path)
    got = pqpl.scan_parquet(path)
    assert got.collect_schema() == want.collect_schema(), what
    assert_frame_equal(got.collect(), want.collect(), check_exact=True)


def test_seconds_and_enums_filter_as_polars_does():
    """Predicates on the retyped columns (a Datetime literal on INT64 seconds,
    a string on an ENUM) are not pushed as pyarrow types them: polars filters,
    with its own answer."""
    from conftest import REPO

    w = REPO / "tests" / "data" / "writers"
    f = str(w / "datafusion-lz4-raw.parquet")
    cut = datetime.datetime(1995, 1, 1)
    got = pqpl.scan_parquet(f).filter(pl.col("ts_s") > cut).select("ts_s").collect()
    want = pl.scan_parquet(f).filter(pl.col("ts_s") > cut).select("ts_s").collect()
    assert got.height == want.height > 0 and got.equals(want)
    f = str(w / "chdb-zstd.parquet")
    value = pl.read_parquet(f, columns=["e8"])["e8"].drop_nulls()[0]
    got = pqpl.scan_parquet(f).filter(pl.col("e8") == value).collect()
    want = pl.scan_parquet(f).filter(pl.col("e8") == value).collect()
    assert got.height == want.height > 0 and got.equals(want)


def test_null_typed_columns_without_an_arrow_schema(tmp_path):
    """pyarrow's null columns written without ARROW:schema (LogicalType
    UNKNOWN on INT32): polars reads Int32 at every level; so does pqfast's scan for it."""
    import pyarrow.parquet as pq
    from polars.testing import assert_frame_equal

    t = pa.table({"n": pa.nulls(4), "l": pa.array([[None], None, [], [None, None]], pa.list_(pa.null())),
                  "s": pa.array([{"a": None}, None, {"a": None}, {"a": None}], pa.struct([("a", pa.null())])),
                  "i": pa.array([1, None, 3, 4], pa.int64())})
    pq.write_table(t, tmp_path / "n.parquet", store_schema=False)
    want = pl.scan_parquet(tmp_path / "n.parquet")
    got = pqpl.scan_parquet(str(tmp_path / "n.parquet"))
    assert got.collect_schema() == want.collect_schema() == pl.Schema(
        {"n": pl.Int32, "l": pl.List(pl.Int32), "s": pl.Struct({"a": pl.Int32}), "i": pl.Int64})
    assert_frame_equal(got.collect(), want.collect())


def test_schema_equals_polars_on_every_test_file():
    """Every Parquet file under tests/data whose schema polars reads: the
    same schema through pqfast.polars.scan_parquet (files pqfast refuses as
    corrupt are left out)."""
    from conftest import REPO

    checked = 0
    for path in sorted((REPO / "tests" / "data").rglob("*.parquet")):
        try:
            want = pl.scan_parquet(str(path)).collect_schema()
        except BaseException:  # noqa: BLE001 - polars refuses it (some panic): nothing to match
            continue
        try:
            got = pqpl.scan_parquet(str(path)).collect_schema()
        except pqfast.FormatError:
            continue
        assert got == want, path
        checked += 1
    assert checked >= 100, checked


def test_batches_reach_polars_gathered_into_frames():
    """Batches are handed over gathered into frames of at least the batch
    size and a number of bytes (or a multiple of the batch size), a large
    batch alone, in order, none dropped or split."""
    import pyarrow as pa

    from pqfast.polars import _grouped

    sizes = [5, 5, 20, 0, 3, 3, 3]
    start = [sum(sizes[:i]) for i in range(len(sizes))]
    batches = [pa.record_batch({"v": pa.array(range(s, s + n), pa.int64())}) for s, n in zip(start, sizes)]
    for nbytes, most, alone, want in ((0, 16, 1 << 20, [10, 20, 9]), (1 << 20, 2, 1 << 20, [30, 9]),
                                      (1 << 20, 16, 1 << 20, [39]),
                                      (200, 16, 1 << 20, [30, 9])):  # 200 bytes: 25 int64 values
        got = list(_grouped(iter(batches), 10, nbytes=nbytes, most=most, alone=alone))
        assert [g.num_rows for g in got] == want, (nbytes, most, alone)
        values = [v for g in got for v in g.column("v").to_pylist()]
        assert values == list(range(sum(sizes)))
    # A batch of the batch size and `alone` bytes (20 int64 values: 160) goes alone when nothing is held.
    got = list(_grouped(iter(batches[2:] + batches[:2]), 10, nbytes=1 << 20, alone=160))
    assert [g.num_rows for g in got] == [20, 19] and isinstance(got[0], pa.RecordBatch)
    got = list(_grouped(iter(batches), 10, nbytes=0))
    assert isinstance(got[1], pa.RecordBatch)  # a batch of the size alone is handed on as it is


def test_frames_made_ahead_keep_order_errors_and_stop():
    """Frames made on their own thread come in order; an error of the batches
    or of making a frame reaches the caller as itself, after the frames before
    it; closing early stops the thread before anything more is read."""
    import threading

    from pqfast.polars import _made_ahead

    assert list(_made_ahead(iter(range(50)), lambda x: 2 * x, depth=3)) == [2 * x for x in range(50)]

    def failing():
        yield from range(5)
        raise pqfast.FormatError("cut")

    got = []
    with pytest.raises(pqfast.FormatError, match="cut"):
        for x in _made_ahead(failing(), lambda x: x, depth=2):
            got.append(x)
    assert got == list(range(5))

    def bad(x):
        if x == 3:
            raise ValueError("three")
        return x

    with pytest.raises(ValueError, match="three"):
        assert list(_made_ahead(iter(range(10)), bad)) == []

    pulled = []

    def counted():
        for i in range(1000):
            pulled.append(i)
            yield i

    before = threading.active_count()
    frames = _made_ahead(counted(), lambda x: x, depth=2)
    assert [next(frames), next(frames)] == [0, 1]
    frames.close()
    seen = len(pulled)
    assert seen <= 2 + 2 + 2  # the two taken, the queue's two, one being made, one put after the stop
    assert threading.active_count() == before
    assert len(pulled) == seen


def test_batches_of_plain_types_cross_as_they_are():
    """A scan's batches whose types polars takes as they are cross by the Arrow
    C stream (the first batch decides); the frames equal ``_frame``'s, also a
    batch of no column (its rows counted) and a table of several batches."""
    from pqfast.polars import _Framer, _frame, _Typing

    schema = pl.Schema({"i": pl.Int64, "s": pl.String, "t": pl.Datetime("us", "UTC")})
    typing = _Typing(schema, {}, frozenset())
    b = pa.record_batch({"i": pa.array([1, None, 3], pa.int64()),
                         "s": pa.array(["a", None, "ccccccccccccccccc"], pa.string_view()),
                         "t": pa.array([0, 1, None], pa.timestamp("us", "UTC"))})
    framer = _Framer(typing)
    for data in (b, b.slice(1), pa.Table.from_batches([b, b])):
        got = framer(data)
        assert got.schema == schema and got.equals(_frame(data, typing))
    assert framer._direct
    # A plain string is made a view: such batches go through _frame each time.
    plain = _Framer(typing)
    sb = b.set_column(1, "s", b.column(1).cast(pa.string()))
    assert plain(sb).equals(_frame(sb, typing)) and not plain._direct
    none = _Framer(_Typing(pl.Schema({}), {}, frozenset()))
    assert none(b.select([])).shape == (3, 0)
