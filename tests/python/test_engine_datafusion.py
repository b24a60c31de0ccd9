"""DataFusion over a pqfast.Dataset (SessionContext.register_dataset): ~30
queries equal to DataFusion's own Parquet reader on the same files, and a
1-id lookup reading exactly what read_table(filters=) reads."""

from __future__ import annotations

import pytest

datafusion = pytest.importorskip("datafusion")

import pyarrow as pa  # noqa: E402

import pqfast  # noqa: E402
from pqfast import dataset  # noqa: E402

import engine_lakes  # noqa: E402


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_lakes.build(tmp_path_factory.mktemp("engines"))


def _context(lakes, ours: bool):
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(2))
    for lake, d in lakes.items():
        if ours:
            ctx.register_dataset(lake, dataset(str(d)))
        elif lake == "hive":
            ctx.register_parquet(lake, str(d), table_partition_cols=[("region", pa.string()), ("year", pa.int32())])
        else:
            ctx.register_parquet(lake, str(d))
    return ctx


def test_queries_equal_datafusions_reader(lakes):
    ours, theirs = _context(lakes, True), _context(lakes, False)
    queries = engine_lakes.sql_queries(lakes, lambda lake: lake)
    assert len(queries) >= 30
    for name, q, ordered in queries:
        engine_lakes.assert_same(ours.sql(q).to_arrow_table(), theirs.sql(q).to_arrow_table(), ordered, name)


def test_one_id_reads_what_read_table_reads(lakes):
    d = lakes["bloom"]
    v = engine_lakes.lookup_ids(d)
    ds = dataset(str(d))
    ctx = datafusion.SessionContext()
    ctx.register_dataset("t", ds)
    got = ctx.sql(f"SELECT * FROM t WHERE id = {v['one']}").to_arrow_table()
    stats = ds.scan_stats
    want, want_stats = pqfast.read_table(str(d), filters=[("id", "==", v["one"])], stats=True)
    assert got.num_rows == want.num_rows == 1
    for k in ("pages_read", "row_groups_read", "rows"):
        assert stats[k] == want_stats[k], (k, stats, want_stats)
    # DataFusion scans the fragments get_fragments gives: the files the Bloom
    # filters rule out are not opened (read_table reads their filters in its scan).
    assert stats["bytes_read"] <= want_stats["bytes_read"], (stats, want_stats)
