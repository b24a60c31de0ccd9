"""Filtered dataset scans through the streaming scanner (issue 30): on random
lakes (random files, row groups, page sizes, Bloom filters and page indexes,
hive keys) and random filters (comparisons, ``in``, nulls, OR of ANDs, atoms
on keys, expressions only pyarrow.compute evaluates), the batches,
concatenated, equal ``read_table(filters=)`` and ``pyarrow.dataset`` in
order; each batch holds at most ``batch_size`` rows; the scan took the
scanner (not the engine's older units) and read the pages read_table reads.
A lookup keeps the scan engine's one call (and the same stats).
Lakes are written under tmp_path by the test itself (small: a few thousand
rows)."""

from __future__ import annotations

import math
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast._stream_io import StreamInfo

N_SEEDS = 40 if os.environ.get("PQFAST_LONG_TESTS") == "1" else 6


def _table(rng, n: int, start: int) -> pa.Table:
    ids = np.arange(start, start + n, dtype=np.int64)
    return pa.table({
        "id": pa.array(ids),
        "g": pa.array(rng.integers(0, 50, n).astype(np.int32), mask=rng.random(n) < 0.05),
        "v": pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.1),
        "s": pa.array([f"s{x % 17}" for x in rng.integers(0, 1000, n)], mask=rng.random(n) < 0.05),
        "b": pa.array(rng.random(n) < 0.3),
    })


def write_lake(root: str, rng, hive: bool) -> bool:
    """2-6 files of random sizes, row groups and pages; some with Bloom
    filters on id and s and a page index; hive: under k=<int>/r=<str>/.
    Whether any file has Bloom filters."""
    start, blooms = 0, False
    for i in range(int(rng.integers(2, 7))):
        n = int(rng.integers(1, 3000))
        t = _table(rng, n, start)
        start += n
        d = os.path.join(root, f"k={i % 3}", f"r={'ab'[i % 2]}") if hive else root
        os.makedirs(d, exist_ok=True)
        kw = {}
        if rng.random() < 0.5:
            blooms = True
            kw["bloom_filter_options"] = {"id": {"ndv": max(n, 1), "fpp": 0.05}, "s": {"ndv": 20, "fpp": 0.05}}
        pq.write_table(t, os.path.join(d, f"part-{i:03d}.parquet"), row_group_size=int(rng.integers(40, 1500)),
                       data_page_size=int(rng.choice([512, 4096, 1 << 20])), write_batch_size=64,
                       write_page_index=bool(rng.random() < 0.6), **kw)
    return blooms


def _atom(rng, n_rows: int, keys: bool):
    col = str(rng.choice(["id", "g", "v", "s", "b"] + (["k", "r"] if keys else [])))
    if col == "id":
        x = int(rng.integers(0, max(n_rows, 1)))
        return [(col, str(rng.choice(["=", "!=", "<", "<=", ">", ">="])), x),
                (col, "in", [x, x + 7, -1, n_rows + 5]),
                (col, "not in", [x, x + 1])][int(rng.integers(0, 3))]
    if col == "g":
        return (col, str(rng.choice(["=", "<", ">="])), int(rng.integers(0, 50)))
    if col == "v":
        return (col, str(rng.choice(["<", ">"])), float(rng.standard_normal()))
    if col == "s":
        return (col, "in", [f"s{int(x)}" for x in rng.integers(0, 20, 2)]) if rng.random() < 0.5 \
            else (col, "=", f"s{int(rng.integers(0, 20))}")
    if col == "b":
        return (col, "=", bool(rng.random() < 0.5))
    if col == "k":
        return (col, str(rng.choice(["=", "!="])), int(rng.integers(0, 3)))
    return (col, "=", str(rng.choice(["a", "b"])))


def random_filter(rng, n_rows: int, keys: bool) -> list:
    """An OR of 1-3 ANDs of 1-3 atoms (pyarrow's DNF form)."""
    return [[_atom(rng, n_rows, keys) for _ in range(int(rng.integers(1, 4)))]
            for _ in range(int(rng.integers(1, 4)))]


def _plain(t: pa.Table) -> pa.Table:
    """Dictionary key columns as their values (pyarrow.dataset types hive keys so)."""
    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in t.columns]
    return pa.table(cols, names=t.column_names)


def _scan(ds, columns, filt, batch_size: int):
    sc = ds.scanner(columns=columns, filter=filt, batch_size=batch_size)
    batches = list(sc.to_batches())
    assert all(0 < b.num_rows <= batch_size for b in batches)
    assert all(b.schema == sc.projected_schema for b in batches)
    return pa.Table.from_batches(batches, schema=sc.projected_schema), sc


@pytest.mark.parametrize("hive", [False, True])
@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_random_filters_equal_read_table_and_pyarrow_dataset(tmp_path, seed, hive):
    rng = np.random.default_rng(1000 + seed)
    root = str(tmp_path / "lake")
    blooms = write_lake(root, rng, hive)
    n_rows = pq.ParquetDataset(root).read(columns=["id"]).num_rows
    ds = pqfast.dataset(root)
    ref = pads.dataset(root, partitioning="hive" if hive else None)
    scanned = 0
    for _ in range(10):
        f = random_filter(rng, n_rows, hive)
        cols = [None, ["id"], ["s", "id"], ["v"] + (["k"] if hive else [])][int(rng.integers(0, 4))]
        bs = int(rng.choice([7, 100, 131072]))
        ds.reset_scan_stats()
        got, sc = _scan(ds, cols, f, bs)
        want = ref.to_table(columns=cols, filter=pq.filters_to_expression(f))
        assert _plain(got).to_pylist() == want.to_pylist(), (f, cols)
        rt, st = pqfast.read_table(root, columns=cols, filters=f, stats=True)
        assert _plain(rt).to_pylist() == want.to_pylist(), (f, cols)
        if isinstance(sc.last_readahead, StreamInfo) and ds.scan_stats.get("route") == "scanner":
            scanned += 1
            if not any(a[0] in ("k", "r") for conj in f for a in conj):
                # The same engine decides the same rows (with atoms on keys, read_table
                # scans the files they fully decide through the engine too, and counts them).
                assert ds.scan_stats["rows"] == st["rows"] == got.num_rows
                assert ds.scan_stats["row_groups"] == st["row_groups"]
                if not blooms:
                    # and no more pages: the footers' statistics (judged in Python before
                    # the scanner is planned) may rule out a row group the engine's own
                    # statistics step keeps (it then reads the filter's pages to find no
                    # row). With Bloom filters, read_table's one call may rule a row group
                    # out by its Bloom filter where the scanner's run reads it first.
                    assert ds.scan_stats["pages_read"] <= st["pages_read"], (f, ds.scan_stats, st)
    # Most filters go through the scanner (lookups, an =/in column in every branch, keep the engine call).
    assert scanned >= 3


def test_expression_filters_pqfast_cannot_push(tmp_path):
    """A filter pyarrow.compute evaluates (arithmetic) is applied to each
    scanned batch; the projection is taken after it; order kept."""
    rng = np.random.default_rng(5)
    root = str(tmp_path / "lake")
    write_lake(root, rng, hive=True)
    ds = pqfast.dataset(root)
    ref = pads.dataset(root, partitioning="hive")
    for f in ((pc.field("id") * 3 + pc.field("g") > 500), pc.utf8_length(pc.field("s")) == 2,
              (pc.bit_wise_and(pc.field("id"), 3) == 1) & (pc.field("k") == 1)):
        for cols in (None, ["v"], ["id", "k"]):
            got, sc = _scan(ds, cols, f, 50)
            assert isinstance(sc.last_readahead, StreamInfo)
            assert _plain(got).to_pylist() == ref.to_table(columns=cols, filter=f).to_pylist(), (f, cols)


def test_partition_keys_fold_per_file(tmp_path):
    """An OR whose branches name different keys: each file scans the filter
    its directories leave (one scanner, a filter per file)."""
    rng = np.random.default_rng(9)
    root = str(tmp_path / "lake")
    write_lake(root, rng, hive=True)
    ds = pqfast.dataset(root)
    f = (((pc.field("k") == 0) & (pc.field("g") < 10)) | ((pc.field("k") == 1) & (pc.field("s") == "s3"))
         | (pc.field("r") == "b"))
    got, sc = _scan(ds, ["id", "k", "r"], f, 1000)
    want = pads.dataset(root, partitioning="hive").to_table(columns=["id", "k", "r"], filter=f)
    assert _plain(got).to_pylist() == want.to_pylist()
    assert isinstance(sc.last_readahead, StreamInfo) and ds.scan_stats["route"] == "scanner"


def test_lookup_goes_through_the_scanner(tmp_path):
    """1 id in a lake of Bloom-filtered files: a lookup (an ``=``/``in`` column
    in every conjunction) goes through the scanner like any other filter
    (pruned in C++ over all files at once, footers cached per process);
    the dataset and read_table read the same pages."""
    root = tmp_path / "lake"
    root.mkdir()
    for i in range(6):
        t = _table(np.random.default_rng(i), 4000, i * 4000)
        pq.write_table(t, root / f"p{i}.parquet", row_group_size=1000, write_page_index=True,
                       bloom_filter_options={"id": {"ndv": 1000, "fpp": 0.001}})
    filters = [[("id", "=", 9876)], [("id", "=", 30)]]
    for _ in range(2):  # (footers cached, the Bloom filters' layout learned: both calls below warm)
        pqfast.read_table(str(root), filters=filters)
    ds = pqfast.dataset(str(root))
    sc = ds.scanner(filter=(pc.field("id") == 9876) | (pc.field("id") == 30))
    got = sc.to_table()
    assert got.column("id").to_pylist() == [30, 9876]
    assert isinstance(sc.last_readahead, StreamInfo) and ds.scan_stats["route"] == "scanner"
    st = ds.scan_stats
    want, want_st = pqfast.read_table(str(root), filters=filters, stats=True)
    assert want.equals(got)
    for k in ("row_groups", "row_groups_pruned_by_bloom", "pages_read", "bytes_read", "rows"):
        assert st[k] == want_st[k], (k, st, want_st)
    # Not a lookup (a range in one branch): the scanner too.
    ds.reset_scan_stats()
    sc = ds.scanner(filter=(pc.field("id") == 9876) | (pc.field("id") < 5))
    assert sc.to_table().column("id").to_pylist() == [0, 1, 2, 3, 4, 9876]
    assert isinstance(sc.last_readahead, StreamInfo) and ds.scan_stats["route"] == "scanner"


def test_head_and_count_rows_filtered(tmp_path):
    rng = np.random.default_rng(3)
    root = str(tmp_path / "lake")
    write_lake(root, rng, hive=False)
    ds = pqfast.dataset(root)
    f = pc.field("g") < 20
    want = pads.dataset(root).to_table(filter=f)
    assert ds.head(13, filter=f).to_pylist() == want.slice(0, 13).to_pylist()
    assert ds.count_rows(filter=f) == want.num_rows


def _pages_of_equal_scan(ds, ref, columns, flt) -> int:
    """The pages a pqfast dataset scan reads, its table checked equal to
    pyarrow.dataset's (`ref`) for the same columns and filter."""
    ds.reset_scan_stats()
    got = ds.scanner(columns=columns, filter=flt).to_table()
    want = ref.to_table(columns=columns, filter=flt)
    assert got.equals(want), (columns, flt)
    return ds.scan_stats["pages_read"]


def test_a_filter_column_also_returned_is_decoded_once(tmp_path):
    """A projected column the filter decoded is returned from those values:
    its pages are decoded once (a scan returning the filter column and another
    reads the pages of one returning the other alone). Dates and
    timestamps keep their types; where an OR's other branch selects rows the
    column's own atom never decoded (pruned by its page index), the column
    is read for them. Every case equals pyarrow.dataset."""
    rng = np.random.default_rng(7)
    n = 20000
    ids = np.arange(n, dtype=np.int64)
    t = pa.table({
        "id": pa.array(ids),
        "v": pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.05),
        "w": pa.array(rng.standard_normal(n)),
        "d": pa.array((ids // 10).astype(np.int32), pa.date32()),
        "ts": pa.array(ids * 1_000_000, pa.timestamp("us", "UTC")),
    })
    path = tmp_path / "f.parquet"
    pq.write_table(t, path, row_group_size=10000, data_page_size=4096, write_batch_size=256, use_dictionary=False,
                   write_page_index=True)
    ds = pqfast.dataset(str(path))
    ref = pads.dataset(str(path))

    def scan(columns, flt):
        return _pages_of_equal_scan(ds, ref, columns, flt)

    low = pc.field("v") < -1.0
    # v's pages once each: returning v with w reads what returning w reads.
    own, both, other = scan(["v"], low), scan(["v", "w"], low), scan(["w"], low)
    assert 0 < own < other and both == other, (own, both, other)
    scan(["id", "v"], low & (pc.field("w") > 0))
    # id's atom decodes the first pages only; v < -3 selects rows past them.
    rare = (pc.field("id") < 50) | (pc.field("v") < -3.0)
    assert scan(["id"], rare) > 0
    scan(["id", "v"], rare)
    scan(["d", "ts"], (pc.field("d") >= pa.scalar(1500, pa.date32()))
         & (pc.field("ts") < pa.scalar(18_000 * 1_000_000, pa.timestamp("us", "UTC"))))


def test_a_dictionary_filter_column_also_returned_is_decoded_once(tmp_path):
    """A dictionary-encoded number column under a comparison or a small IN
    is evaluated on its values, not its dictionary, when the scan also
    returns it: its pages are decoded once (the pages of returning it with
    another column are those of returning the other alone), where evaluated
    on the dictionary they were decoded twice. Nulls, NOT, an OR with another
    column's atom and a filter column not returned (evaluated on its
    dictionary as before) all equal pyarrow.dataset."""
    rng = np.random.default_rng(11)
    n = 30000
    t = pa.table({
        "q": pa.array(rng.integers(0, 50, n).astype(np.int32), mask=rng.random(n) < 0.1),
        "big": pa.array(rng.integers(0, 20, n) * 1_000_000_007, pa.int64()),
        "f": pa.array(rng.integers(0, 8, n) / 4.0),
        "w": pa.array(rng.standard_normal(n)),
    })
    path = tmp_path / "d.parquet"
    pq.write_table(t, path, row_group_size=10000, data_page_size=8192, use_dictionary=["q", "big", "f"],
                   write_page_index=True)
    meta = pq.ParquetFile(path).metadata
    assert all("RLE_DICTIONARY" in meta.row_group(0).column(i).encodings for i in range(3))
    ds = pqfast.dataset(str(path))
    ref = pads.dataset(str(path))

    def scan(columns, flt):
        return _pages_of_equal_scan(ds, ref, columns, flt)

    for col, flt in (("q", pc.field("q") < 10), ("q", pc.field("q").isin([3, 7, 40])), ("q", ~(pc.field("q") >= 5)),
                     ("big", pc.field("big") == 3 * 1_000_000_007), ("f", pc.field("f") > 1.0)):
        both, other = scan([col, "w"], flt), scan(["w"], flt)
        assert both == other, (col, flt, both, other)
        scan([col], flt)
    scan(["q", "w"], (pc.field("q") < 3) | (pc.field("w") > 2.0))
    scan(["q", "f"], (pc.field("q") == 4) & (pc.field("f") <= 0.5))
    scan(["w"], pc.field("q").is_null() | (pc.field("q") > 45))


def _rows_nan_aware(t: pa.Table) -> list:
    """Rows with NaN as a token and floats with their sign (-0.0 != 0.0)."""
    def one(x):
        if isinstance(x, float):
            return "nan" if math.isnan(x) else (x, math.copysign(1.0, x))
        return x
    return [tuple(one(x) for x in r.values()) for r in t.to_pylist()]


@pytest.mark.parametrize("typ", [pa.float64(), pa.float32()])
def test_a_dictionary_float_filter_column_returned_keeps_nan_and_signed_zero(tmp_path, typ):
    """A dictionary-encoded float column evaluated on its values (it is also
    returned) treats NaN and -0.0 as evaluated on its dictionary did and as
    pyarrow.dataset does: comparisons, IN with NaN and with -0.0, NOT."""
    special = np.array([0.0, -0.0, np.nan, 1.5, -1.5, np.inf])
    rng = np.random.default_rng(3)
    n = 20000
    t = pa.table({"f": pa.array(special[rng.integers(0, 6, n)], mask=rng.random(n) < 0.1).cast(typ),
                  "w": pa.array(np.arange(n))})
    path = tmp_path / "f.parquet"
    pq.write_table(t, path, row_group_size=10000, use_dictionary=["f"], write_page_index=True)
    ds, ref = pqfast.dataset(str(path)), pads.dataset(str(path))
    for flt in (pc.field("f") == 0.0, pc.field("f").isin([0.0]), pc.field("f").isin([0.0, float("nan")]),
                pc.field("f") < 0.0, pc.field("f") != 0.0, ~(pc.field("f") >= 0.0),
                pc.field("f").isin([-0.0, 1.5]), pc.field("f") > -0.0):
        for cols in (["f", "w"], ["w"]):
            got = ds.scanner(columns=cols, filter=flt).to_table()
            want = ref.to_table(columns=cols, filter=flt)
            assert got.schema == want.schema and _rows_nan_aware(got) == _rows_nan_aware(want), (flt, cols)
