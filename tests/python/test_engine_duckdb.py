"""DuckDB over a pqfast.Dataset: ~30 queries equal to DuckDB's own
read_parquet on the same files (point, range, IN, nulls, projections,
aggregates, a join, LIMIT, ORDER BY, functions DuckDB keeps for itself),
through a replacement scan and con.register; a 1-id lookup reads through
DuckDB exactly what read_table(filters=) reads."""

from __future__ import annotations

import pytest

duckdb = pytest.importorskip("duckdb")

import pqfast  # noqa: E402
from pqfast import dataset  # noqa: E402

import engine_lakes  # noqa: E402


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_lakes.build(tmp_path_factory.mktemp("engines"))


def _own(lakes, lake):
    d = lakes[lake]
    if lake == "hive":
        return f"read_parquet('{d}/**/*.parquet', hive_partitioning = true)"
    return f"read_parquet('{d}/*.parquet')"


def test_queries_equal_duckdbs_reader(lakes):
    con = duckdb.connect()
    con.execute("SET threads TO 2")
    for lake, d in lakes.items():
        con.register(f"pq_{lake}", dataset(str(d)))
    ours = engine_lakes.sql_queries(lakes, lambda lake: f"pq_{lake}")
    theirs = engine_lakes.sql_queries(lakes, lambda lake: _own(lakes, lake))
    assert len(ours) >= 30
    for (name, q, ordered), (_, q2, _) in zip(ours, theirs):
        engine_lakes.assert_same(con.sql(q).to_arrow_table(), con.sql(q2).to_arrow_table(), ordered, name)


def test_replacement_scan_of_a_python_variable(lakes):
    lake = dataset(str(lakes["bloom"]))  # noqa: F841  (found by DuckDB's replacement scan)
    v = engine_lakes.lookup_ids(lakes["bloom"])
    got = duckdb.sql(f"SELECT id, key FROM lake WHERE id = {v['one']}").to_arrow_table()
    want = duckdb.sql(f"SELECT id, key FROM {_own(lakes, 'bloom')} WHERE id = {v['one']}").to_arrow_table()
    engine_lakes.assert_same(got, want, what="replacement scan")
    assert got.num_rows == 1


def test_one_id_reads_what_read_table_reads(lakes):
    d = lakes["bloom"]
    v = engine_lakes.lookup_ids(d)
    ds = dataset(str(d))
    con = duckdb.connect()
    con.register("t", ds)
    got = con.sql(f"SELECT * FROM t WHERE id = {v['one']}").to_arrow_table()
    stats = ds.scan_stats
    want, want_stats = pqfast.read_table(str(d), filters=[("id", "==", v["one"])], stats=True)
    assert got.num_rows == want.num_rows == 1
    for k in ("pages_read", "bytes_read"):
        assert stats[k] == want_stats[k], (k, stats, want_stats)


def test_in_list_is_pushed(lakes):
    """DuckDB pushes IN as if_else(is_valid(x), is_in(x, ...), NULL): pqfast
    takes it into its scan (the pages read_table reads for 'in'), not after
    reading every row."""
    d = lakes["bloom"]
    v = engine_lakes.lookup_ids(d)
    ds = dataset(str(d))
    con = duckdb.connect()
    con.register("t", ds)
    got = con.sql(f"SELECT id, key FROM t WHERE id IN ({', '.join(map(str, v['ten']))})").to_arrow_table()
    want, want_stats = pqfast.read_table(str(d), columns=["id", "key"], filters=[("id", "in", v["ten"])],
                                         stats=True)
    assert got.num_rows == want.num_rows == len(v["ten"])
    for k in ("pages_read", "row_groups_read", "rows"):
        assert ds.scan_stats[k] == want_stats[k], (k, ds.scan_stats, want_stats)


def test_duckdb_dataset_reads_small_dictionaries_as_dictionaries(lakes):
    """pqfast.duckdb.dataset: the low-cardinality string column (category,
    16 values) comes as dictionary<int32, string>, the high-cardinality ones
    (key, note) as strings; DuckDB reads it as VARCHAR: the ~30 queries equal
    DuckDB's own reader's, results typed alike."""
    import pyarrow as pa

    import pqfast.duckdb as pqduck

    ds = pqduck.dataset(str(lakes["bloom"]))
    assert pa.types.is_dictionary(ds.schema.field("category").type)
    for c in ("key", "note"):
        assert ds.schema.field(c).type == pa.string(), c
    assert pqduck.dataset(str(lakes["bloom"]), read_dictionary=["key"]).schema.field("category").type == pa.string()
    assert pqduck.dataset(str(lakes["bloom"]), strings="view").schema.field("key").type == pa.string_view()
    con = duckdb.connect()
    con.execute("SET threads TO 2")
    for lake, d in lakes.items():
        pqduck.register(con, f"pq_{lake}", str(d))
    ours = engine_lakes.sql_queries(lakes, lambda lake: f"pq_{lake}")
    theirs = engine_lakes.sql_queries(lakes, lambda lake: _own(lakes, lake))
    for (name, q, ordered), (_, q2, _) in zip(ours, theirs):
        got, want = con.sql(q).to_arrow_table(), con.sql(q2).to_arrow_table()
        # (Hive keys' integer widths differ already: pyarrow's int32, DuckDB's int64.)
        assert [t == pa.string() for t in got.schema.types] == [t == pa.string() for t in want.schema.types], name
        engine_lakes.assert_same(got, want, ordered, name)
