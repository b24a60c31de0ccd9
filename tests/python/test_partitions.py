"""Hive-partitioned directories (``lake/year=2024/region=eu/part-0.parquet``):
``read_table`` with and without ``filters=`` equals ``pyarrow.parquet.read_table``
on lakes that pyarrow, DuckDB and polars wrote, key columns included (their
dictionary types, null and missing keys, escaped values); files under "." and
"_" names are not read; a filter on a key skips directories unopened."""

from __future__ import annotations

import datetime as dt
import os

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast.parquet import expand_paths, kept_row_groups

N = 3000


def _table() -> pa.Table:
    rng = np.random.default_rng(5)
    return pa.table({
        "id": pa.array(rng.permutation(N).astype(np.int64)),
        "day": [str(dt.date(2024, 1, 1 + i % 3)) for i in range(N)],
        "region": [["eu", "us", "ap/x y"][i % 3] if i % 7 else None for i in range(N)],
        "n": pa.array((np.arange(N) % 5).astype(np.int32)),
        "v": [f"v{i}" for i in range(N)],
    })


FILTERS = [
    None,
    [("id", "=", 17)],
    [("id", "in", [1, 2, 3, N - 1])],
    [("day", "=", "2024-01-02")],
    [("region", "=", "eu"), ("id", "<", 500)],
    [[("region", "=", "us")], [("n", "=", 3)]],
    ds.field("region").is_null(),
    ~(ds.field("region") == "ap/x y") & (ds.field("id") > 100),
    [("n", "=", 2)],
    [("n", ">", 2), ("day", "!=", "2024-01-01")],
    [("n", "in", [0, 4]), ("v", "=", "v10")],
    [("n", "=", 99)],
]
COLUMNS = [None, ["id", "v"], ["region", "id"], ["n"], []]


def _same(root, filters, columns, **kw):
    want = pq.read_table(root, filters=filters, columns=columns, **kw)
    got = pqfast.read_table(root, filters=filters, columns=columns, **kw)
    assert got.schema == want.schema, (filters, columns)
    assert got.num_rows == want.num_rows, (filters, columns)
    assert got.equals(want), (filters, columns)


def _check_lake(root):
    for f in FILTERS:
        for c in COLUMNS:
            _same(root, f, c)


def test_pyarrow_written_lake(tmp_path):
    root = str(tmp_path / "lake")
    pq.write_to_dataset(_table(), root, partition_cols=["n", "region"])
    _check_lake(root)


def test_duckdb_written_lake(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    root = str(tmp_path / "lake")
    con = duckdb.connect()
    con.register("t", _table())
    con.execute(f"COPY t TO '{root}' (FORMAT parquet, PARTITION_BY (day, n))")
    _check_lake(root)


def test_polars_written_lake_keeps_the_files_key_columns(tmp_path):
    """polars writes the keys into the files too: the files' columns are read
    (pyarrow refuses such a lake: "Unable to merge"), so the result is what
    pyarrow.dataset gives over the files without partitioning."""
    pl = pytest.importorskip("polars")
    root = str(tmp_path / "lake")
    pl.from_arrow(_table()).write_parquet(root, partition_by=["day", "region"])
    files = pqfast.parquet.expand_paths(root)
    assert len(files) > 3
    for f in FILTERS:
        want = ds.dataset(files).to_table(filter=pq.filters_to_expression(f) if isinstance(f, list) else f)
        got = pqfast.read_table(root, filters=f)
        assert got.equals(want), f


def test_keys_typed_and_valued_as_pyarrow(tmp_path):
    """int32 keys (leading zeros, negative, int32 bounds), string keys when
    any value is not an int32, URI escapes, __HIVE_DEFAULT_PARTITION__,
    a file at the root (every key missing), "k=" (empty string)."""
    root = tmp_path / "lake"
    t = pa.table({"id": pa.array([1, 2], pa.int64())})
    for d in ("a=007/b=x%2Fy", "a=-3/b=__HIVE_DEFAULT_PARTITION__", "a=2147483647/b=", "a=5/b=p%zz", "a=5/b=q"):
        (root / d).mkdir(parents=True)
        pq.write_table(t, root / d / "part-0.parquet")
    pq.write_table(t, root / "top.parquet")
    want = pq.read_table(str(root))
    assert want.schema.field("a").type == pa.dictionary(pa.int32(), pa.int32())
    for f in (None, [("a", "=", 7)], [("b", "=", "x/y")], ds.field("b").is_null(), [("a", ">", 0), ("id", "=", 2)],
              [("b", "=", "")], [("b", "in", ["p%zz", "q"])]):
        for c in (None, ["b", "id"], ["a"]):
            _same(str(root), f, c)
    (root / "a=5" / "b=q" / "c=2147483648").mkdir()
    pq.write_table(t, root / "a=5" / "b=q" / "c=2147483648" / "part-1.parquet")
    got = pqfast.read_table(str(root))
    assert got.schema.field("c").type == pa.dictionary(pa.int32(), pa.string())
    assert got.equals(pq.read_table(str(root)))


def test_hidden_names_and_spark_output_directories(tmp_path):
    """_delta_log/ (checkpoints are *.parquet of another schema), _SUCCESS,
    .hidden/ and _temporary/ are not read; a directory named *.parquet
    (Spark's output) is searched, not opened as a file."""
    root = tmp_path / "lake"
    t = _table().slice(0, 100)
    (root / "year=2024" / "out.parquet").mkdir(parents=True)
    pq.write_table(t, root / "year=2024" / "out.parquet" / "part-0.parquet")
    for d in ("_delta_log", ".hidden", "year=2024/_temporary"):
        (root / d).mkdir(parents=True)
        pq.write_table(pa.table({"other": [1.5]}), root / d / "x.parquet")
    (root / "_SUCCESS").write_bytes(b"")
    (root / "year=2024" / "_x.parquet").write_bytes(b"not parquet")
    (root / "year=2024" / ".part-0.parquet.crc").write_bytes(b"crc")
    assert [os.path.relpath(p, root) for p in pqfast.parquet.expand_paths(str(root))] == [
        "year=2024/out.parquet/part-0.parquet"]
    _same(str(root), None, None)
    _same(str(root), [("id", "<", 50), ("year", "=", 2024)], ["v", "year"])
    assert pqfast.prune(str(root), "id", [int(t.column("id")[0])]).num_rows == 1


def test_a_key_filter_skips_directories_unopened(tmp_path):
    """Directories no branch of the filter can match are not opened: a
    corrupt file in one is never seen (nor by pyarrow)."""
    root = tmp_path / "lake"
    pq.write_to_dataset(_table(), str(root), partition_cols=["n"])
    (root / "n=9").mkdir()
    (root / "n=9" / "broken.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    _same(str(root), [("n", "in", [1, 2]), ("id", ">", 10)], None)
    _same(str(root), [("n", "=", 99)], ["id", "n"])  # nothing left: the schema, no row
    with pytest.raises(Exception):
        pqfast.read_table(str(root))


def test_partitioning_none_and_errors(tmp_path):
    root = tmp_path / "lake"
    pq.write_to_dataset(_table(), str(root), partition_cols=["n"])
    got = pqfast.read_table(str(root), partitioning=None)
    assert "n" not in got.column_names
    assert got.equals(pq.read_table(str(root), partitioning=None))
    got = pqfast.read_table(str(root), partitioning=None, filters=[("id", "<", 10)])
    assert got.equals(pq.read_table(str(root), partitioning=None, filters=[("id", "<", 10)]))
    with pytest.raises(pqfast.FormatError, match="partitioning"):
        pqfast.read_table(str(root), filters=[("id", "=", 1)], partitioning="directory")
    nul = tmp_path / "nul"
    (nul / "k=__HIVE_DEFAULT_PARTITION__").mkdir(parents=True)
    pq.write_table(pa.table({"id": [1]}), nul / "k=__HIVE_DEFAULT_PARTITION__" / "p.parquet")
    with pytest.raises(pqfast.FormatError, match="cannot be inferred"):
        pqfast.read_table(str(nul))
    assert pqfast.read_table(str(nul), partitioning=None).num_rows == 1


def test_cli_lookup_on_a_key_and_a_column(tmp_path, capsys):
    """`pqfast lookup` types a key's values as the key (int32: integers) and
    prints the key columns as pyarrow reads them."""
    import json

    from pqfast import cli

    root = tmp_path / "lake"
    t = _table()
    pq.write_to_dataset(t, str(root), partition_cols=["n", "region"])
    assert cli.main(["lookup", str(root), "n", "2", "--columns", "id,n,region", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = pq.read_table(str(root), columns=["id", "n", "region"], filters=[("n", "in", [2])]).to_pylist()
    assert out["rows"] == want and len(want) == N // 5
    v = int(t.column("id")[11].as_py())
    assert cli.main(["lookup", str(root), "id", str(v), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows == pq.read_table(str(root), filters=[("id", "=", v)]).to_pylist()
    assert cli.main(["lookup", str(root), "n", "x"]) == 1
    assert "integers expected" in capsys.readouterr().err


def test_read_pruned_whole_row_groups_keep_the_keys(tmp_path):
    """read_pruned(filter_rows=False) on a partitioned directory: the kept
    row groups whole, with the key columns (as filter_rows=True gives them);
    a key as the column picks whole files, the rows filter_rows=True gives."""
    import pyarrow.compute as pc

    root = str(tmp_path / "lake")
    pq.write_to_dataset(_table(), root, partition_cols=["n", "region"], row_group_size=100)
    ids = [17, 2500, N + 5]
    want = pqfast.read_pruned(root, "id", ids)
    got = pqfast.read_pruned(root, "id", ids, filter_rows=False)
    assert got.schema == want.schema
    pruned = pqfast.prune(expand_paths(root), "id", ids)
    kept = kept_row_groups(pruned)
    assert got.num_rows == sum(pq.ParquetFile(p).metadata.row_group(g).num_rows
                               for p, gs in kept.items() for g in gs) > want.num_rows
    assert got.filter(pc.is_in(got["id"], pa.array(ids))).equals(want)
    for key, vals in [("n", [1, 3]), ("region", ["ap/x y"])]:
        a = pqfast.read_pruned(root, key, vals, filter_rows=False, columns=["id", key])
        assert a.equals(pqfast.read_pruned(root, key, vals, columns=["id", key]))
        assert a.equals(pq.read_table(root, columns=["id", key], filters=[(key, "in", vals)]))
    none = pqfast.read_pruned(root, "id", [N + 5], filter_rows=False)
    assert none.num_rows == 0 and none.schema == want.schema
