"""pqfast.dataset(read_dictionary=, strings=): the layouts a dataset's scans
default to, as its schema says, on every route (unfiltered, filtered, a
fragment in another process's shape: pickled), against pyarrow.dataset."""

import pickle

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast


@pytest.fixture()
def lake(tmp_path):
    d = tmp_path / "lake"
    d.mkdir()
    for i in range(3):
        n = 5000
        cat = [None if j % 97 == 0 else f"c{(j * (i + 3)) % 11}" for j in range(n)]
        t = pa.table({"id": pa.array(range(i * n, (i + 1) * n), pa.int64()), "cat": cat,
                      "amount": pa.array([float(j % 13) for j in range(n)]),
                      "name": [f"name-{j % 1000}-{i}" for j in range(n)]})
        # A small dictionary page limit in one file: the writer falls back to
        # plain pages part way through the chunk.
        pq.write_table(t, d / f"part-{i}.parquet", row_group_size=2000,
                       dictionary_pagesize_limit=64 if i == 1 else 1 << 20)
    return d


def _pyarrow(d, columns=None, filter=None, dictionary=()):
    fmt = pads.ParquetFileFormat(read_options={"dictionary_columns": list(dictionary)})
    return pads.dataset(str(d), format=fmt).to_table(columns=columns, filter=filter)


def test_read_dictionary_schema_and_values(lake):
    ds = pqfast.dataset(str(lake), read_dictionary=["cat"])
    assert ds.schema.field("cat").type == pa.dictionary(pa.int32(), pa.string())
    got = ds.to_table()
    ref = _pyarrow(lake, dictionary=["cat"])
    assert got.schema == ref.schema
    assert got.column("cat").to_pylist() == ref.column("cat").to_pylist()
    assert got.drop_columns(["cat"]).equals(ref.drop_columns(["cat"]))


def test_read_dictionary_filtered_projected_and_fragments(lake):
    ds = pqfast.dataset(str(lake), read_dictionary=["cat"])
    flt = (pc.field("amount") > 6) & (pc.field("cat") == "c4")
    got = ds.to_table(columns=["cat", "id"], filter=flt)
    ref = _pyarrow(lake, ["cat", "id"], flt, ["cat"])
    assert got.schema == ref.schema
    assert got.to_pylist() == ref.to_pylist()
    frags = [pickle.loads(pickle.dumps(f)) for f in ds.get_fragments()]
    parts = [f.to_table(columns=["cat"]) for f in frags]
    assert all(p.schema.field("cat").type == pa.dictionary(pa.int32(), pa.string()) for p in parts)
    assert sum((p.column("cat").to_pylist() for p in parts), []) == ref_all(lake)


def ref_all(lake):
    return _pyarrow(lake, ["cat"]).column("cat").to_pylist()


def test_strings_view_default_for_every_scan(lake):
    ds = pqfast.dataset(str(lake), strings="view")
    assert ds.schema.field("name").type == pa.string_view()
    assert ds.schema.field("cat").type == pa.string_view()
    for flt in (None, pc.field("id") < 7000):
        got = ds.to_table(columns=["name", "id"], filter=flt)
        assert got.schema.field("name").type == pa.string_view()
        ref = _pyarrow(lake, ["name", "id"], flt)
        assert got.column("name").cast(pa.string()).to_pylist() == ref.column("name").to_pylist()
    # A scanner's own strings= still wins.
    assert ds.scanner(columns=["name"], strings="large").to_table().schema.field("name").type == pa.large_string()


def test_duckdb_group_by_over_dictionary_dataset(lake):
    duckdb = pytest.importorskip("duckdb")
    ds = pqfast.dataset(str(lake), read_dictionary=["cat"])
    con = duckdb.connect()
    con.register("t", ds)
    sql = "SELECT cat, count(*) AS n, sum(amount) AS s FROM {} GROUP BY cat ORDER BY cat NULLS FIRST"
    got = con.sql(sql.format("t")).fetchall()
    own = con.sql(sql.format(f"read_parquet('{lake}/*.parquet')")).fetchall()
    assert got == own


@pytest.mark.parametrize("bad", ["cat", [1], b"cat"])
def test_read_dictionary_takes_names(lake, bad):
    with pytest.raises(pqfast.FormatError, match="read_dictionary"):
        pqfast.dataset(str(lake), read_dictionary=bad)


def test_strings_checked(lake):
    with pytest.raises(pqfast.FormatError):
        pqfast.dataset(str(lake), strings="utf8")
