"""DataFusion over a pqfast.Dataset (SessionContext.register_dataset): ~30
queries equal to DataFusion's own Parquet reader on the same files, and a
1-id lookup reading exactly what read_table(filters=) reads."""

from __future__ import annotations

import pytest

datafusion = pytest.importorskip("datafusion")

import pyarrow as pa  # noqa: E402

import pqfast  # noqa: E402
import pqfast.datafusion as pqdf  # noqa: E402
from pqfast import dataset  # noqa: E402

import engine_lakes  # noqa: E402


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_lakes.build(tmp_path_factory.mktemp("engines"))


def _context(lakes, ours: bool, adapter: bool = False, **dataset_kw):
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(2))
    for lake, d in lakes.items():
        if adapter:
            pqdf.register(ctx, lake, str(d), **dataset_kw)
        elif ours:
            ctx.register_dataset(lake, dataset(str(d), **dataset_kw))
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


def test_string_views_equal_datafusions_reader_and_its_types(lakes):
    """A dataset read with strings="view" (the layout docs/engines/datafusion.md
    advises for DataFusion): the same rows, and string columns of the types
    DataFusion's own reader gives them (Utf8View)."""
    theirs = _context(lakes, False)
    # strings="view" by hand, and pqfast.datafusion.register (which sets it).
    for ours in (_context(lakes, True, strings="view"), _context(lakes, True, adapter=True)):
        for name, q, ordered in engine_lakes.sql_queries(lakes, lambda lake: lake):
            got, want = ours.sql(q).to_arrow_table(), theirs.sql(q).to_arrow_table()
            engine_lakes.assert_same(got, want, ordered, name)
        q = "SELECT * FROM bloom LIMIT 3"
        got, want = ours.sql(q).to_arrow_table().schema, theirs.sql(q).to_arrow_table().schema
        assert sum(pa.types.is_string_view(f.type) for f in want) >= 3
        for f in want:
            if pa.types.is_string_view(f.type):
                assert got.field(f.name).type == f.type, (f, got.field(f.name))
    assert pqdf.dataset(str(lakes["bloom"]), strings=None).schema.field("key").type == pa.string()


def test_small_batches_of_many_fragments(lakes):
    """DataFusion asks each fragment for batches of its batch_size (cut in
    Python from the scanner's larger ones): any size gives its reader's answer."""
    d = str(lakes["bloom"])
    q = ("SELECT category, count(*) AS n, sum(quantity) AS s, min(id) AS lo, max(id) AS hi FROM t "
         "GROUP BY category ORDER BY category")
    own = datafusion.SessionContext()
    own.register_parquet("t", d)
    want = own.sql(q).to_arrow_table()
    for bs in (1000, 8192, 100000):
        ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(3).with_batch_size(bs))
        ctx.register_dataset("t", dataset(d))
        engine_lakes.assert_same(ctx.sql(q).to_arrow_table(), want, True, f"batch_size {bs}")


def test_adapter_batches_are_not_cut_to_datafusions_batch_size(tmp_path):
    """pqfast.datafusion's datasets give batches of at least MIN_BATCH_ROWS
    rows (or a row group's, if fewer) where DataFusion asks 8,192, and a scan
    of no column as one batch; the answers are DataFusion's own (count(*),
    an aggregate), at any session batch size. A plain pqfast.dataset keeps
    pyarrow's rule (at most batch_size rows)."""
    import pyarrow.parquet as pq

    n = 150_000
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": pa.array(range(n), pa.int64()), "g": pa.array([i % 7 for i in range(n)])}),
                   path, row_group_size=50_000)
    ds = pqdf.dataset(str(path))
    (frag,) = ds.get_fragments()
    sizes = [b.num_rows for b in frag.scanner(ds.schema, columns=["x"], batch_size=8192).to_batches()]
    assert sizes == [50_000] * 3, sizes
    counts = [b.num_rows for b in frag.scanner(ds.schema, columns=[], batch_size=8192).to_batches()]
    assert counts == [n], counts
    plain = dataset(str(path))
    assert max(b.num_rows for b in plain.scanner(columns=["x"], batch_size=8192).to_batches()) == 8192
    assert len(list(plain.scanner(columns=[], batch_size=8192).to_batches())) > 1
    own = datafusion.SessionContext()
    own.register_parquet("t", str(path))
    for q in ("SELECT count(*) AS n FROM t", "SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g ORDER BY g",
              "SELECT count(*) AS n FROM t WHERE x >= 120000"):
        want = own.sql(q).to_arrow_table()
        for bs in (1000, 8192):
            ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(2).with_batch_size(bs))
            pqdf.register(ctx, "t", str(path))
            engine_lakes.assert_same(ctx.sql(q).to_arrow_table(), want, True, f"{q} at {bs}")


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
