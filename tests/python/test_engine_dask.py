"""pqfast.dask.read_parquet: dask DataFrames equal to
dask.dataframe.read_parquet(filters=) on the lookup lakes and a hive lake
(point, range, IN, nulls, projections, aggregates, a join, head, sorting),
one partition per group of the fragments pruning keeps; pruned on the
cluster for a lake larger than files_per_task."""

from __future__ import annotations

import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import pyarrow as pa  # noqa: E402

import pqfast  # noqa: E402
import pqfast.dask as pqdask  # noqa: E402

import engine_lakes  # noqa: E402


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_lakes.build(tmp_path_factory.mktemp("engines"))


def _table(df) -> pa.Table:
    pdf = df.compute() if hasattr(df, "compute") else df
    pdf = pdf.reset_index(drop=True)
    for c in pdf.columns:
        if str(pdf[c].dtype) == "category":
            pdf[c] = pdf[c].astype(object)
    return pa.Table.from_pandas(pdf, preserve_index=False)


def _filters(lakes):
    v = engine_lakes.lookup_ids(lakes["bloom"])
    return [
        ("point", [("id", "==", v["one"])], None),
        ("point projected", [("id", "==", v["one"])], ["id", "key", "amount"]),
        ("missing", [("id", "==", v["missing"])], ["id"]),
        ("ten ids", [("id", "in", v["ten"])], ["id", "quantity"]),
        ("string key", [("key", "==", v["key"])], ["id", "key"]),
        ("range", [("id", ">=", v["lo"]), ("id", "<", v["hi"])], ["id", "ts"]),
        ("or", [[("id", ">=", v["lo"]), ("id", "<", v["hi"])], [("id", "==", v["one"])]], ["id"]),
        ("category", [("category", "==", "category-03"), ("quantity", "<", 20)], ["id", "category", "quantity"]),
        ("not in", [("quantity", "not in", [1, 2, 3]), ("quantity", "<", 10)], ["id", "quantity"]),
        ("all", None, None),
    ]


def _hive_filters():
    return [
        ("key string", [("region", "==", "east")], ["id", "region", "year"]),
        ("key int", [("year", "==", 2021)], ["id", "year"]),
        ("keys and column", [("region", "==", "west"), ("year", ">=", 2022), ("score", "<", 30)],
         ["id", "score", "region", "year"]),
        ("in strings", [("label", "in", ["l001", "l002", "l150"])], ["id", "label"]),
        ("or across", [[("region", "==", "north")], [("score", "==", 3)]], ["id", "region", "score"]),
        ("all", None, ["id", "score", "label", "weight", "region", "year"]),
    ]


def test_lookup_lakes_equal_dask(lakes, client):
    n = 0
    for lake in ("bloom", "polars", "sorted"):
        if lake not in lakes:
            continue
        d = str(lakes[lake])
        for name, filters, cols in _filters(lakes):
            got = pqdask.read_parquet(d, columns=cols, filters=filters)
            want = dd.read_parquet(d, columns=cols, filters=filters)
            if filters is not None:  # dask's filters prune row groups: the rows are filtered by pandas here
                want = want[_mask(want, filters)]
            engine_lakes.assert_same(_table(got), _table(want), what=f"{lake}: {name}")
            n += 1
    assert n >= 20


def _mask(df, filters):
    """Rows the DNF keeps, in pandas (dask's read_parquet filters row groups only
    for some engines: the comparison is made on rows)."""
    import operator

    ops = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
           ">=": operator.ge}
    dnf = filters if isinstance(filters[0], list) else [filters]
    out = None
    for conj in dnf:
        m = None
        for col, op, v in conj:
            s = df[col]
            if str(s.dtype) == "category":  # dask's hive keys: compared as their values
                probe = v[0] if isinstance(v, list) else v
                s = s.astype("int64" if isinstance(probe, int) else object)
            x = s.isin(v) if op == "in" else ~s.isin(v) if op == "not in" else ops[op](s, v)
            m = x if m is None else m & x
        out = m if out is None else out | m
    return out


def test_hive_lake_equals_dask(lakes, client):
    d = str(lakes["hive"])
    for name, filters, cols in _hive_filters():
        got = pqdask.read_parquet(d, columns=cols, filters=filters)
        want = dd.read_parquet(d, columns=cols, filters=filters)
        if filters is not None:
            want = want[_mask(want, filters)]
        engine_lakes.assert_same(_table(got), _table(want), what=f"hive: {name}")


def test_aggregates_join_head_sort(lakes, client):
    d = str(lakes["bloom"])
    ours, theirs = pqdask.read_parquet(d), dd.read_parquet(d)
    g1 = ours.groupby("category").agg({"quantity": "max", "id": "count"}).compute().sort_index()
    g2 = theirs.groupby("category").agg({"quantity": "max", "id": "count"}).compute().sort_index()
    assert g1.astype("int64").equals(g2.astype("int64"))
    v = engine_lakes.lookup_ids(lakes["bloom"])
    left = pqdask.read_parquet(d, columns=["id", "quantity"], filters=[("id", "in", v["ten"])])
    right = pqdask.read_parquet(d, columns=["quantity", "category"], filters=[("quantity", "<", 50)])
    left2 = dd.read_parquet(d, columns=["id", "quantity"])
    left2 = left2[left2.id.isin(v["ten"])]
    right2 = dd.read_parquet(d, columns=["quantity", "category"])
    right2 = right2[right2.quantity < 50]
    engine_lakes.assert_same(_table(left.merge(right, on="quantity")), _table(left2.merge(right2, on="quantity")),
                             what="join")
    top = ours[ours.quantity < 5].compute().sort_values("id").head(5)[["id", "quantity"]]
    top2 = theirs[theirs.quantity < 5].compute().sort_values("id").head(5)[["id", "quantity"]]
    engine_lakes.assert_same(_table(top), _table(top2), ordered=True, what="sort")
    assert len(ours.head(7, npartitions=-1)) == 7


def test_partitions_are_the_kept_fragments(lakes, client):
    d = str(lakes["bloom"])
    v = engine_lakes.lookup_ids(lakes["bloom"])
    one = pqdask.read_parquet(d, filters=[("id", "==", v["one"])])
    # Bloom filters leave the one file holding the id (the lake's files hold disjoint ids).
    assert one.npartitions == len(pqfast.parquet.kept_row_groups(pqfast.prune(d, "id", [v["one"]]))) == 1
    assert len(one) == 1
    ten = pqdask.read_parquet(d, filters=[("id", "in", v["ten"])], columns=["id"])
    assert ten.npartitions == len(pqfast.parquet.kept_row_groups(pqfast.prune(d, "id", v["ten"])))
    everything = pqdask.read_parquet(d, fragments_per_partition=2)
    assert everything.npartitions == -(-engine_lakes.FILES // 2)


def test_pruned_on_the_cluster(lakes, client):
    d = str(lakes["bloom"])
    v = engine_lakes.lookup_ids(lakes["bloom"])
    filters = [("id", "in", v["ten"])]
    on_cluster = pqdask.read_parquet(d, filters=filters, columns=["id"], files_per_task=1, prune_on_cluster=True)
    on_client = pqdask.read_parquet(d, filters=filters, columns=["id"], prune_on_cluster=False)
    assert on_cluster.npartitions == on_client.npartitions
    engine_lakes.assert_same(_table(on_cluster), _table(on_client), what="pruned on the cluster")
    assert len(on_cluster) == len(v["ten"])


def test_one_id_reads_what_read_table_reads(lakes):
    """The partitions' reads (run here: a fragment's scan counts in its
    dataset's stats): the pages and row groups read_table reads, and no more
    bytes (read_table also reads the footers and Bloom filters of the files
    the partitions were pruned from)."""
    d = str(lakes["bloom"])
    v = engine_lakes.lookup_ids(lakes["bloom"])
    filters = [("id", "==", v["one"])]
    ds = pqfast.dataset(d)
    frags = pqdask._fragments(ds, filters, None, 1000, False)
    assert len(frags) == 1
    ds = pqfast.dataset(d)
    frags = [f for f in ds.get_fragments(filter=filters) if f.path == frags[0].path]
    t = pqdask._read_fragments(frags, None, filters, ds.schema)
    want, want_stats = pqfast.read_table(d, filters=filters, stats=True)
    assert len(t) == want.num_rows == 1
    stats = ds.scan_stats
    for k in ("pages_read", "row_groups_read", "rows"):
        assert stats[k] == want_stats[k], (k, stats, want_stats)
    assert stats["bytes_read"] <= want_stats["bytes_read"], (stats, want_stats)


def _nully_lake(d):
    """Two files of 3 row groups with nulls in an int, a string and a float
    column (and NaN in the float), as Dask's filters meet them."""
    import numpy as np
    import pyarrow.parquet as pq

    rng = np.random.default_rng(11)
    for i in range(2):
        n = 600
        mask = rng.random(n) < 0.15
        x = np.where(rng.random(n) < 0.05, np.nan, rng.normal(size=n))
        t = pa.table({
            "id": pa.array(np.arange(i * n, (i + 1) * n, dtype=np.int64)),
            "g": pa.array(rng.integers(0, 6, n).astype(np.int32), mask=mask),
            "s": pa.array([f"s{v}" for v in rng.integers(0, 9, n)], mask=rng.random(n) < 0.1),
            "x": pa.array(x, mask=rng.random(n) < 0.1),
        })
        pq.write_table(t, d / f"part-{i}.parquet", row_group_size=200)
    return d


def test_filters_mean_what_they_mean_to_dask(tmp_path):
    """`!=` and `not in` keep null rows (pyarrow's filters drop them), `is` /
    `is not` None test nullness with NaN counted as null: the ids equal
    dask.dataframe.read_parquet(filters=) on the same files."""
    import dask
    import numpy as np

    d = str(_nully_lake(tmp_path))
    cases = [
        [("g", "!=", 3)], [("s", "!=", "s4")], [("x", "!=", 0.5)], [("g", "not in", [1, 2])],
        [("s", "not in", ["s1"])], [("g", "is", None)], [("g", "is not", None)], [("x", "is", None)],
        [("x", "is", np.nan)], [("x", "is not", None)], [[("g", "!=", 2), ("s", "==", "s3")], [("id", "==", 7)]],
        [("x", "not in", [np.nan, 0.5])], [("g", "==", 3)], [("id", ">=", 100), ("g", "!=", 0)],
    ]
    with dask.config.set(scheduler="sync"):
        for filters in cases:
            got = sorted(pqdask.read_parquet(d, filters=filters).compute()["id"])
            want = sorted(dd.read_parquet(d, filters=filters).compute()["id"])
            assert got == want, filters
            assert len(want) > 0, filters
    # pqfast.read_table keeps pyarrow's meaning: a null g is not `!= 3`.
    t = pqfast.read_table(d, filters=[("g", "!=", 3)])
    assert t.column("g").null_count == 0


def test_dask_filter_errors_are_clear(tmp_path):
    d = str(_nully_lake(tmp_path))
    with pytest.raises(pqfast.FormatError, match="'is' or 'is not'"):
        pqdask.read_parquet(d, filters=[("g", "==", None)])
    with pytest.raises(pqfast.FormatError, match="take None"):
        pqdask.read_parquet(d, filters=[("g", "is", 3)])
    # Filters Dask and pyarrow mean alike are handed on as given (the lookup's pruning reads them).
    f = [("id", "==", 3)]
    assert pqdask.dask_filters(f, pa.schema([("id", pa.int64())])) is f


def test_columns_as_one_name_is_a_series(tmp_path):
    """columns="g" (a str): a dask Series of that column, as
    dask.dataframe.read_parquet gives, never the columns named by its
    letters."""
    import dask

    d = str(_nully_lake(tmp_path))
    with dask.config.set(scheduler="sync"):
        got = pqdask.read_parquet(d, columns="id", filters=[("g", "==", 3)]).compute()
        want = dd.read_parquet(d, columns="id", filters=[("g", "==", 3)]).compute()
    assert got.name == want.name == "id" and got.ndim == want.ndim == 1
    assert sorted(got) == sorted(want) and len(want) > 0
    with dask.config.set(scheduler="sync"):  # filters=[]: no filter, as Dask takes it
        assert len(pqdask.read_parquet(d, columns=["id"], filters=[]).compute()) == \
            len(dd.read_parquet(d, columns=["id"], filters=[]).compute()) > 0


def _typed_lake(d):
    """Two files of 3 row groups, sorted on id, with ints, floats, booleans,
    strings, dates and decimals (nulls in some): what Dask's dtype backends
    type differently."""
    import datetime
    import decimal

    import numpy as np
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
    for i in range(2):
        n = 300
        t = pa.table({
            "id": pa.array(np.arange(i * n, (i + 1) * n, dtype=np.int64)),
            "small": pa.array(rng.integers(0, 100, n).astype(np.int16), mask=rng.random(n) < 0.1),
            "u": pa.array(rng.integers(0, 1000, n).astype(np.uint32)),
            "f": pa.array(rng.normal(size=n).astype(np.float32), mask=rng.random(n) < 0.1),
            "x": pa.array(rng.normal(size=n)),
            "b": pa.array(rng.random(n) < 0.5, mask=rng.random(n) < 0.1),
            "s": pa.array([f"s{v}" for v in rng.integers(0, 9, n)], mask=rng.random(n) < 0.1),
            "day": pa.array([datetime.date(2024, 1, 1) + datetime.timedelta(days=int(v))
                             for v in rng.integers(0, 300, n)], pa.date32()),
            "price": pa.array([decimal.Decimal(int(v)).scaleb(-2) for v in rng.integers(0, 10**6, n)],
                              pa.decimal128(9, 2)),
        })
        pq.write_table(t, d / f"part-{i}.parquet", row_group_size=100)
    return d


def _same_frame(got, want):
    """Equal columns, dtypes, index and values; a boolean column with nulls
    under the default backend is pandas' ``boolean`` here where Dask's meta
    says ``bool`` and its partitions hold objects: compared as objects."""
    assert list(got.columns) == list(want.columns)
    assert got.index.name == want.index.name
    g, w = got.compute(), want.compute()
    for c in g.columns:
        if str(g[c].dtype) == "boolean" and w[c].dtype == object:
            g[c], w[c] = g[c].astype(object).where(g[c].notna(), None), w[c].where(w[c].notna(), None)
            got, want = got.drop(columns=[c]), want.drop(columns=[c])
    assert got.dtypes.to_dict() == want.dtypes.to_dict()
    assert g.dtypes.to_dict() == w.dtypes.to_dict() and g.index.dtype == w.index.dtype
    g, w = g.sort_index(kind="stable"), w.sort_index(kind="stable")
    if g.index.name is None:
        g, w = g.sort_values("id").reset_index(drop=True), w.sort_values("id").reset_index(drop=True)
    assert g.equals(w), (g.head(), w.head())


def test_dask_read_parquet_arguments(tmp_path):
    """dd.read_parquet's arguments, as a Dask user passes them: the frame
    (columns, dtypes, index, values) equals Dask's own reader's for each."""
    import dask

    d = str(_typed_lake(tmp_path))
    cases = [
        {}, {"dtype_backend": "pyarrow"}, {"dtype_backend": "numpy_nullable"},
        {"index": "id"}, {"index": ["id"], "columns": ["s", "x"]}, {"index": False},
        {"index": "id", "filters": [("x", ">", 0)], "dtype_backend": "pyarrow"},
        {"engine": "pyarrow", "ignore_metadata_file": True, "blocksize": None, "aggregate_files": None,
         "metadata_task_size": 4},
        {"arrow_to_pandas": {"date_as_object": False}},
        {"split_row_groups": True}, {"split_row_groups": False}, {"split_row_groups": 2},
    ]
    with dask.config.set(scheduler="sync"):
        for kw in cases:
            got, want = pqdask.read_parquet(d, **kw), dd.read_parquet(d, **kw)
            _same_frame(got, want)
        # filesystem="arrow": Dask's other reader, which types dates, decimals
        # and strings otherwise (objects, pandas' "str"); the same rows.
        got = pqdask.read_parquet(d, filesystem="arrow").compute().sort_values("id", ignore_index=True)
        want = dd.read_parquet(d, filesystem="arrow").compute().sort_values("id", ignore_index=True)
        assert got["id"].tolist() == want["id"].tolist() and got["x"].equals(want["x"])
        assert got["s"].astype(object).where(got["s"].notna(), None).tolist() == \
            want["s"].astype(object).where(want["s"].notna(), None).tolist()
        # Partitions as Dask splits them: a row group, two, or a file each.
        assert pqdask.read_parquet(d, split_row_groups=True).npartitions == 6
        assert pqdask.read_parquet(d, split_row_groups=2).npartitions == 4
        assert pqdask.read_parquet(d, split_row_groups=False).npartitions == 2


def test_dask_divisions_from_statistics(tmp_path):
    """calculate_divisions=True with index=: the divisions Dask computes from
    the same statistics (a file a partition, and a row group a partition);
    unknown where partitions are out of order."""
    import dask
    import pyarrow.parquet as pq

    d = _typed_lake(tmp_path)
    with dask.config.set(scheduler="sync"):
        for kw in ({}, {"split_row_groups": True}):
            got = pqdask.read_parquet(str(d), index="id", calculate_divisions=True, **kw)
            want = dd.read_parquet(str(d), index="id", calculate_divisions=True, **kw)
            assert got.known_divisions and got.divisions == want.divisions, (got.divisions, want.divisions)
            _same_frame(got, want)
            assert got.loc[250:350].compute().index.tolist() == list(range(250, 351))
        # Out of order: the second file's ids overlap the first's.
        t = pq.read_table(d / "part-1.parquet")
        pq.write_table(t.set_column(0, "id", pa.array(range(100, 400), pa.int64())), d / "part-1.parquet")
        got = pqdask.read_parquet(str(d), index="id", calculate_divisions=True)
        assert not got.known_divisions
        assert len(got.compute()) == 600


def test_dask_unsupported_arguments_are_clear(tmp_path):
    d = str(_typed_lake(tmp_path))
    for kw, match in [({"categories": ["s"]}, "categories"), ({"engine": "fastparquet"}, "engine"),
                      ({"dataset": {"partitioning": None}}, "dataset"), ({"calculate_divisions": True}, "index="),
                      ({"parquet_file_extension": ".pq"}, "parquet_file_extension")]:
        with pytest.raises(pqfast.FormatError, match=match) as e:
            pqdask.read_parquet(d, **kw)
        assert e.value.code == "unsupported"
    with pytest.raises(pqfast.FormatError, match="dtype_backend") as e:
        pqdask.read_parquet(d, dtype_backend="numpy")
    assert e.value.code == "invalid argument"
    with pytest.raises(pqfast.FormatError, match="positive"):
        pqdask.read_parquet(d, split_row_groups=0)
