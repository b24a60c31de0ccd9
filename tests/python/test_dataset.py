"""``pqfast.dataset()``: streamed batches, concatenated, equal ``read_table`` and
``pyarrow.dataset`` on random lakes (random files, row groups and filters; hive
partitions; columns added to later files; nested projections; S3 on
SeaweedFS); batches never split, repeat or drop a row and hold at most
``batch_size`` rows; ``head`` reads one row group; ``count_rows`` without a
filter reads footers only; fragments pickle and scan alone in another
process; a consumer that stops cancels the rest; the bytes read ahead stay
within ``memory_limit`` (and a child process's peak RSS with them); errors
are typed."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast._stream_io import StreamInfo
from pqfast._dataset_scan import Scanner

from s3_fixtures import opts, proxy, s3  # noqa: F401


# ---- random lakes ---------------------------------------------------------------------------------------


def _table(rng, n: int, start: int, extra: bool = False) -> pa.Table:
    ids = np.arange(start, start + n, dtype=np.int64)
    v = rng.random(n)
    cols = {
        "id": pa.array(ids),
        "v": pa.array(v, mask=rng.random(n) < 0.1),
        "s": pa.array([f"s{x % 13}" for x in rng.integers(0, 1000, n)]),
        "st": pa.array([{"a": int(x), "b": f"b{x % 5}"} for x in rng.integers(0, 100, n)],
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "li": pa.array([list(range(int(x) % 4)) for x in rng.integers(0, 100, n)], pa.list_(pa.int32())),
    }
    if extra:
        cols["late"] = pa.array(rng.integers(0, 10, n).astype(np.int32))
    return pa.table(cols)


def write_lake(root: str, seed: int, hive: bool = False, evolve: bool = False) -> list[str]:
    """Random files under root (hive: under k=<int>/r=<str>/), random row
    group sizes; evolve: files after the first gain a column ``late``, and the
    second lacks ``s`` (null there, as pyarrow.dataset gives it)."""
    rng = np.random.default_rng(seed)
    n_files = int(rng.integers(2, 6))
    paths, start = [], 0
    for i in range(n_files):
        n = int(rng.integers(1, 2500))
        t = _table(rng, n, start, extra=evolve and i > 0)
        if evolve and i == 1:
            t = t.drop_columns(["s"])
        start += n
        d = os.path.join(root, f"k={i % 3}", f"r={'ab'[i % 2]}") if hive else root
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, f"part-{i:03d}.parquet")
        pq.write_table(t, p, row_group_size=int(rng.integers(50, 1200)))
        paths.append(p)
    return sorted(paths)


FILTERS = [
    None,
    pc.field("id") > 1200,
    [("id", "in", [3, 77, 1500, 2501, 99999])],
    [("s", "=", "s3")],
    pc.field("v").is_null(),
    [[("s", "=", "s1"), ("id", "<", 900)], [("id", ">=", 4000)]],
    (pc.field("v") < 0.5) & ~(pc.field("s") == "s2"),
    [("id", "=", -1)],
]
HIVE_FILTERS = [pc.field("k") == 1, [("k", "in", [0, 2]), ("id", "<", 3000)], [[("r", "=", "b")], [("id", "=", 5)]]]
COLUMNS = [None, ["id"], ["s", "id", "st"], ["li", "v"], []]


def _stream(ds, **kw):
    batches = list(ds.to_batches(**kw))
    bs = kw.get("batch_size", 131072)
    assert all(0 < b.num_rows <= bs for b in batches)
    proj = ds.scanner(columns=kw.get("columns")).projected_schema
    assert all(b.schema == proj for b in batches)
    return pa.Table.from_batches(batches, schema=proj)


def _plain(t: pa.Table) -> pa.Table:
    """Dictionary key columns as their values (pyarrow.dataset types hive keys so)."""
    if not t.num_columns:
        return t
    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in t.columns]
    return pa.table(cols, names=t.column_names)


@pytest.mark.parametrize("seed", range(4))
def test_random_lakes_equal_read_table_and_pyarrow_dataset(tmp_path, seed):
    root = str(tmp_path / "lake")
    write_lake(root, seed)
    ds = pqfast.dataset(root)
    want_ds = pads.dataset(root)
    rng = np.random.default_rng(seed)
    for f in FILTERS:
        for cols in COLUMNS:
            bs = int(rng.choice([1, 7, 100, 1000, 131072]))
            if bs == 1 and f is None:
                bs = 7  # (one row a batch over the whole lake: slow, and no more telling)
            got = _stream(ds, columns=cols, filter=f, batch_size=bs)
            want = pqfast.read_table(root, columns=cols, filters=f)
            assert got.num_rows == want.num_rows and got.equals(want), (seed, f, cols, bs)
            expr = f if f is None or isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            ref = want_ds.to_table(columns=cols, filter=expr)
            assert got.num_rows == ref.num_rows and got.to_pylist() == ref.to_pylist(), (seed, f, cols)


@pytest.mark.parametrize("seed", range(3))
def test_hive_lakes(tmp_path, seed):
    root = str(tmp_path / "hive")
    write_lake(root, 10 + seed, hive=True)
    ds = pqfast.dataset(root)
    assert ds.schema.names[-2:] == ["k", "r"]
    want_ds = pads.dataset(root, partitioning="hive")
    for f in FILTERS[:4] + HIVE_FILTERS:
        for cols in (None, ["id", "k"], ["r", "s"], []):
            got = _stream(ds, columns=cols, filter=f, batch_size=500)
            want = pqfast.read_table(root, columns=cols, filters=f)
            assert got.equals(want), (f, cols)
            expr = f if f is None or isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            ref = want_ds.to_table(columns=cols, filter=expr)
            assert got.num_rows == ref.num_rows and _plain(got).to_pylist() == ref.to_pylist(), (f, cols)
    # A filter on keys alone: files no branch can match are not fragments.
    frags = ds.get_fragments(filter=pc.field("k") == 1)
    assert frags and all("k=1" in fr.path for fr in frags)
    assert all(fr.partition_keys["k"] == 1 for fr in frags)


def test_schema_evolution(tmp_path):
    """The first file's schema is the dataset's: ``late`` (added later) is not
    in it, ``s`` (missing from the second file) is null there."""
    root = str(tmp_path / "ev")
    paths = write_lake(root, 21, evolve=True)
    ds = pqfast.dataset(root)
    assert "late" not in ds.schema.names
    want_ds = pads.dataset(root)
    for f in (None, [("s", "=", "s3")], pc.field("s").is_null(), pc.field("id") > 100):
        for cols in (None, ["s", "id"], ["id"]):
            got = _stream(ds, columns=cols, filter=f, batch_size=333)
            expr = f if f is None or isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            ref = want_ds.to_table(columns=cols, filter=expr)
            assert got.to_pylist() == ref.to_pylist(), (f, cols)
    # The second file's rows have s null.
    second = pq.read_table(paths[1])
    n0 = pq.read_metadata(paths[0]).num_rows
    t = ds.to_table(columns=["s"])
    assert t.column("s").slice(n0, second.num_rows).null_count == second.num_rows


def test_nested_projections(tmp_path):
    root = str(tmp_path / "n")
    write_lake(root, 31)
    ds = pqfast.dataset(root)
    for cols in (["st.a"], ["st.b", "id"], ["li"], ["st"]):
        for f in (None, pc.field("id") < 1000):
            got = _stream(ds, columns=cols, filter=f, batch_size=256)
            want = pqfast.read_table(root, columns=cols, filters=f)
            assert got.equals(want), (cols, f)


def test_sources_and_filesystems(tmp_path):
    """A list, a glob, one file and a pyarrow LocalFileSystem give the same rows."""
    import pyarrow.fs as pafs

    root = str(tmp_path / "src")
    paths = write_lake(root, 41)
    want = pqfast.dataset(root).to_table()
    assert pqfast.dataset(paths).to_table().equals(want)
    assert pqfast.dataset(os.path.join(root, "*.parquet")).to_table().equals(want)
    assert pqfast.dataset(paths[0]).to_table().equals(pq.read_table(paths[0]))
    # threads= on every read: the dataset's, read_table's unfiltered paths, ParquetFile.read.
    assert pqfast.dataset(root).to_table(threads=1).equals(want)
    assert pqfast.read_table(root, threads=1).equals(want)
    assert pqfast.read_table(paths[0], threads=2).equals(pq.read_table(paths[0]))
    assert pqfast.ParquetFile(paths[0]).read(threads=1).equals(pq.read_table(paths[0]))
    with pytest.raises(pqfast.FormatError):
        pqfast.read_table(paths[0], threads=-1)
    fs_ds = pqfast.dataset(root, filesystem=pafs.LocalFileSystem())
    assert fs_ds.to_table().equals(want)
    f = pc.field("id") > 1000
    assert fs_ds.to_table(filter=f).equals(pqfast.read_table(root, filters=f))


# ---- stream behaviour ------------------------------------------------------------------------------------


def _big_lake(root: str, files: int = 4, groups: int = 5, rows: int = 2000) -> list[str]:
    os.makedirs(root, exist_ok=True)
    paths = []
    for i in range(files):
        t = pa.table({"id": np.arange(i * groups * rows, (i + 1) * groups * rows, dtype=np.int64),
                      "x": np.random.default_rng(i).random(groups * rows)})
        p = os.path.join(root, f"f{i}.parquet")
        pq.write_table(t, p, row_group_size=rows)
        paths.append(p)
    return paths


def test_batch_boundaries_and_order(tmp_path):
    root = str(tmp_path / "b")
    _big_lake(root)
    ds = pqfast.dataset(root)
    for bs in (1, 3, 1999, 2000, 2001, 50000):
        ids = []
        for b in ds.to_batches(columns=["id"], batch_size=bs):
            assert 0 < b.num_rows <= bs
            ids.append(b.column(0).to_numpy())
        assert np.array_equal(np.concatenate(ids), np.arange(40000)), bs


def test_head_reads_one_row_group(tmp_path):
    root = str(tmp_path / "h")
    _big_lake(root)
    ds = pqfast.dataset(root)
    sc = ds.scanner(columns=["id", "x"])
    h = sc.head(10)
    assert h.column("id").to_pylist() == list(range(10))
    assert sc.last_readahead.started == 1
    # head past the first row group reads on, one unit at a time.
    sc2 = ds.scanner()
    assert sc2.head(4500).column("id").to_pylist() == list(range(4500))
    assert sc2.last_readahead.started == 3
    assert ds.head(0).num_rows == 0
    assert ds.head(10, filter=pc.field("id") >= 39995).column("id").to_pylist() == list(range(39995, 40000))


def test_count_rows_reads_footers_only(tmp_path, monkeypatch):
    root = str(tmp_path / "c")
    write_lake(root, 51, hive=False)
    ds = pqfast.dataset(root)
    n = pqfast.read_table(root).num_rows
    for f in FILTERS[1:]:
        assert ds.count_rows(filter=f) == pqfast.read_table(root, filters=f).num_rows, f

    def refuse(*a, **k):
        raise AssertionError("count_rows() without a filter read data")

    # (the scanner is the one route that reads data)
    monkeypatch.setattr(Scanner, "_native_stream", refuse)
    monkeypatch.setattr(Scanner, "_small_files", refuse)
    assert ds.count_rows() == n
    assert ds.scanner(columns=["id"]).count_rows() == n


def test_count_rows_with_partition_keys(tmp_path):
    root = str(tmp_path / "ck")
    write_lake(root, 52, hive=True)
    ds = pqfast.dataset(root)
    for f in HIVE_FILTERS:
        assert ds.count_rows(filter=f) == pqfast.read_table(root, filters=f).num_rows, f


def test_early_stop_cancels_the_rest(tmp_path):
    root = str(tmp_path / "e")
    _big_lake(root, files=6)
    ds = pqfast.dataset(root)
    sc = ds.scanner(columns=["id"], batch_size=100, batch_readahead=2)
    it = sc.to_batches()
    first = next(it)
    assert first.column(0).to_pylist() == list(range(100))
    it.close()
    ra = sc.last_readahead
    assert ra._closed and ra.started <= 3  # of 30 row groups
    # A reader dropped early (pyarrow's close() keeps the stream until then).
    sc = ds.scanner(columns=["id"], batch_readahead=2)
    r = sc.to_reader()
    r.read_next_batch()
    r.close()
    del r
    assert sc.last_readahead._closed and sc.last_readahead.started <= 3


def test_memory_limit_bounds_readahead(tmp_path):
    """The bytes read and not consumed stay within memory_limit while a lake
    ten times bigger is scanned (units measured as they finish)."""
    root = str(tmp_path / "m")
    _big_lake(root, files=12, groups=4, rows=40000)  # 48 row groups of ~640 KB decoded
    ds = pqfast.dataset(root)
    # (Each native read needs a few times its output in pages and buffers,
    # bounded by the same limit: room for a row group's read.)
    limit = 4 << 20
    total = 0
    sc = ds.scanner(batch_size=4096, memory_limit=limit, batch_readahead=8)
    for b in sc.to_batches():
        total += b.get_total_buffer_size()
    ra = sc.last_readahead
    assert total > 7 * limit
    assert ra.peak_held <= limit
    assert ra.started == 48


_RSS_CHILD = r"""
import sys
import pqfast
ds = pqfast.dataset(sys.argv[1])
ds.count_rows()
# The peak RSS from here on (VmHWM reset: Linux's clear_refs).
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
mode = sys.argv[2]
if mode == "stream":
    n = 0
    for b in ds.to_batches(batch_size=8192, memory_limit=8 << 20):
        n += b.num_rows
elif mode == "table":
    n = pqfast.read_table(sys.argv[1]).num_rows
else:
    n = ds.count_rows()
status = open("/proc/self/status").read()
print(n, status.split("VmHWM:")[1].split()[0])
"""


def test_peak_rss_of_a_streamed_scan(tmp_path):
    """In a child process: streaming a lake of ~100 MB decoded with
    memory_limit=8 MiB raises the peak RSS by far less than reading it whole."""
    root = str(tmp_path / "rss")
    _big_lake(root, files=10, groups=5, rows=125000)  # 6.25 M rows x 16 B = 100 MB
    env = dict(os.environ)

    def child(mode):
        out = subprocess.run([sys.executable, "-c", _RSS_CHILD, root, mode], capture_output=True, text=True,
                             env=env, check=True).stdout.split()
        return int(out[0]), int(out[1]) * 1024

    n_base, base = child("count")
    n_stream, stream = child("stream")
    n_table, table = child("table")
    assert n_base == n_stream == n_table == 6_250_000
    assert table - base > 80 << 20
    assert stream - base < 48 << 20, (base >> 20, stream >> 20, table >> 20)


# ---- fragments -------------------------------------------------------------------------------------------


def _scan_fragment(blob: bytes, filter_blob: bytes | None):
    fr = pickle.loads(blob)
    f = pickle.loads(filter_blob) if filter_blob is not None else None
    return fr.to_table(filter=f).to_pylist(), fr.count_rows(filter=f)


def test_fragments_pickle_and_scan_in_another_process(tmp_path):
    root = str(tmp_path / "fr")
    write_lake(root, 61, hive=True)
    ds = pqfast.dataset(root)
    frags = ds.get_fragments()
    assert [fr.path for fr in frags] == ds.files
    f = pc.field("id") > 700
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        got = list(pool.map(_scan_fragment, [pickle.dumps(fr) for fr in frags], [pickle.dumps(f)] * len(frags)))
    rows = [r for part, _ in got for r in part]
    assert rows == ds.to_table(filter=f).to_pylist()
    assert sum(n for _, n in got) == ds.count_rows(filter=f)
    assert frags[0].row_groups == list(range(pq.ParquetFile(frags[0].path).num_row_groups))
    assert frags[0].physical_schema.names == ["id", "v", "s", "st", "li"]
    # The dataset pickles too.
    assert pickle.loads(pickle.dumps(ds)).to_table().equals(ds.to_table())


# ---- errors ----------------------------------------------------------------------------------------------


def test_errors_are_typed_and_raised_in_the_consumer(tmp_path):
    root = str(tmp_path / "err")
    paths = _big_lake(root, files=3)
    ds = pqfast.dataset(root)
    with pytest.raises(pqfast.MemoryLimitError):
        ds.to_table(memory_limit=1000)
    # The last file's pages corrupted after its footer was read: the error
    # reaches the consumer at that file's place, as a FormatError.
    ds.count_rows()
    data = bytearray(open(paths[2], "rb").read())
    data[4:2000] = b"\xff" * 1996
    open(paths[2], "wb").write(bytes(data))
    got = 0
    with pytest.raises(pqfast.FormatError):
        for b in ds.to_batches(columns=["id"]):
            got += b.num_rows
    assert got == 20000  # the first two files, whole
    with pytest.raises(pqfast.FormatError):
        ds.scanner(batch_size=0)


# ---- S3 ----------------------------------------------------------------------------------------------------


def test_s3_prefix_equals_local(s3, opts, tmp_path):  # noqa: F811
    import obstore

    root = str(tmp_path / "s3lake")
    paths = write_lake(root, 71, hive=True)
    store = s3.store()
    for p in paths:
        obstore.put(store, "dslake/" + os.path.relpath(p, root), open(p, "rb").read())
    local = pqfast.dataset(root)
    remote = pqfast.dataset(f"s3://{s3.bucket}/dslake/", storage_options=opts)
    assert remote.schema == local.schema
    assert len(remote.files) == len(paths)
    for f in (None, pc.field("id") > 1500, [("k", "=", 1)], [("s", "=", "s4"), ("r", "=", "a")]):
        for cols in (None, ["id", "k"], ["st.a"]):
            got = _stream(remote, columns=cols, filter=f, batch_size=700)
            assert got.equals(local.to_table(columns=cols, filter=f)), (f, cols)
    assert remote.count_rows() == local.count_rows()
    assert remote.head(5).equals(local.head(5))
    fr = pickle.loads(pickle.dumps(remote.get_fragments()[1]))
    assert fr.to_table().equals(local.get_fragments()[1].to_table())


# ---- statistics verdicts -----------------------------------------------------------------------------------


STAT_FILTERS = [
    [("id", ">=", 4000)], [("id", "<", 2000)], [("id", "=", 2500)], [("id", "!=", 7)],
    [("id", "in", [1, 4001, None])], [("id", "not in", [5, 6])], [("s", "=", "s3")], [("s", ">", "s1")],
    pc.field("v").is_null(), pc.field("n").is_null(), ~pc.field("n").is_null(), ~(pc.field("id") < 3000),
    [("n", "=", 4)], [("n", "in", [None])], [("n", "not in", [None, 1])], [("n", "<=", 2), ("id", ">", 100)],
    [[("n", "=", 1)], [("id", "<", 10)]], [("v", ">", 0.5)],
]


def _stats_lake(root: str) -> None:
    """Sorted ids (row groups settled by their bounds), a column null in some
    row groups and partly null in others, a constant string per row group."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(3)
    for i in range(3):
        n = 3000
        ids = np.arange(i * n, (i + 1) * n, dtype=np.int64)
        nn = (ids // 250) % 5
        mask = ((ids // 500) % 3 == 0) | (((ids // 500) % 3 == 1) & (rng.random(n) < 0.3))
        t = pa.table({"id": ids, "n": pa.array(nn.astype(np.int32), mask=mask),
                      "s": [f"s{x // 1000}" for x in ids], "v": rng.random(n)})
        pq.write_table(t, os.path.join(root, f"p{i}.parquet"), row_group_size=500)


def test_row_group_verdicts_hold_for_every_row(tmp_path):
    """Each "all"/"none" verdict of the statistics is what the rows say."""
    from pqfast._rowgroup_stats import ALL, NONE, flat_leaves, row_group_verdict
    from pqfast.filters import normalize

    root = str(tmp_path / "st")
    _stats_lake(root)
    decided = 0
    for p in sorted(os.listdir(root)):
        path = os.path.join(root, p)
        meta = pqfast.ParquetFile(path)._meta
        pf = pq.ParquetFile(path)
        for f in STAT_FILTERS:
            expr = f if isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            for g in range(meta.num_row_groups):
                v = row_group_verdict(normalize(f), meta, g, flat_leaves(meta))
                rows = pf.read_row_group(g)
                kept = pads.dataset(rows).to_table(filter=expr).num_rows
                if v == ALL:
                    assert kept == rows.num_rows, (p, f, g)
                elif v == NONE:
                    assert kept == 0, (p, f, g)
                decided += v != "some"
    assert decided > 200  # (the statistics settle most of them)


def test_file_verdicts_rule_out_only_files_without_a_matching_row(tmp_path):
    """A file ruled out by its statistics over all row groups at once
    (file_ruled_out over leaf_summary: the row groups' bounds joined, their
    null counts summed) holds no row the filter keeps; a file written
    without statistics or with a column null throughout is judged too. The
    row groups' verdicts from kept statistics (row_group_verdicts) equal
    those read from the footer (row_group_verdict)."""
    from pqfast._rowgroup_stats import (file_ruled_out, flat_leaves, leaf_stats, leaf_summary, row_counts,
                                        row_group_verdict, row_group_verdicts)
    from pqfast.filters import normalize

    root = str(tmp_path / "fv")
    _stats_lake(root)
    t = pa.table({"id": np.arange(9000, 9100, dtype=np.int64), "n": pa.nulls(100, pa.int32()),
                  "s": ["s9"] * 100, "v": np.linspace(0, 1, 100)})
    pq.write_table(t, os.path.join(root, "p3.parquet"), row_group_size=40)
    pq.write_table(t, os.path.join(root, "p4.parquet"), row_group_size=40, write_statistics=False)
    ruled = 0
    for p in sorted(os.listdir(root)):
        path = os.path.join(root, p)
        meta = pqfast.ParquetFile(path)._meta
        descs = meta.columns()
        whole = pq.read_table(path)
        for f in STAT_FILTERS + [[("n", "=", 4)], pc.field("n").is_null(), [("id", ">", 9050)]]:
            expr = f if isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            dnf, leaves = normalize(f), flat_leaves(meta)
            out = file_ruled_out(dnf, leaves, lambda j: leaf_summary(meta, j, descs[j], meta.column_chunk))
            # The per-row-group verdicts from kept statistics are the footer's.
            kept = row_group_verdicts(dnf, leaves, lambda j: leaf_stats(meta, j, descs[j], meta.column_chunk),
                                      row_counts(meta), range(meta.num_row_groups))
            assert kept == [(g, row_group_verdict(dnf, meta, g, leaves)) for g in range(meta.num_row_groups)], (p, f)
            if out:
                assert pads.dataset(whole).to_table(filter=expr).num_rows == 0, (p, f)
                assert p != "p4.parquet", f  # (no statistics: nothing is ruled out)
            ruled += out
    assert ruled >= 20


def test_count_rows_settled_by_statistics(tmp_path, monkeypatch):
    root = str(tmp_path / "cs")
    _stats_lake(root)
    ds = pqfast.dataset(root)
    for f in STAT_FILTERS:
        assert ds.count_rows(filter=f) == pqfast.read_table(root, filters=f).num_rows, f
    fr = ds.get_fragments(filter=[("id", ">=", 4200), ("id", "<", 5100)])
    assert [(os.path.basename(x.path), x.row_groups) for x in fr] == [("p1.parquet", [2, 3, 4])]

    def refuse(*a, **k):
        raise AssertionError("read rows the statistics settle")

    monkeypatch.setattr(Scanner, "_native_stream", refuse)
    monkeypatch.setattr(Scanner, "_small_files", refuse)
    assert ds.count_rows(filter=[("id", ">=", 4000)]) == 5000
    assert ds.count_rows(filter=[("s", "=", "s3"), ("id", "<", 3500)]) == 500
    assert ds.count_rows(filter=pc.field("id") < -5) == 0


def test_filtered_scans_are_few_engine_calls_within_the_budget(tmp_path):
    """A filter over a hive lake with nested columns: the scanner (the
    engine's selection taken of each nested field in C++); under a small
    memory_limit, units within it, the same rows."""
    root = str(tmp_path / "hv")
    write_lake(root, 81, hive=True)
    ds = pqfast.dataset(root)
    sc = ds.scanner(filter=[("id", ">", 5), ("k", "!=", 7)])
    assert sc.to_table().equals(pqfast.read_table(root, filters=[("id", ">", 5), ("k", "!=", 7)]))
    assert isinstance(sc.last_readahead, StreamInfo)
    big = str(tmp_path / "bg")
    _big_lake(big, files=4, groups=5, rows=60000)  # row groups of ~960 KB
    ds = pqfast.dataset(big)
    f = pc.multiply(pc.field("x"), 2.0) > 1.0  # (not the engine's: pyarrow.compute over each unit)
    for filt in ([("id", ">=", 1000)], f):
        sc = ds.scanner(filter=filt, memory_limit=4 << 20, batch_size=5000)
        got = sc.to_table()
        want = pads.dataset(big).to_table(filter=filt if isinstance(filt, pc.Expression)
                                          else pq.filters_to_expression(filt))
        assert got.equals(want)
        assert sc.last_readahead.started >= 5


def test_schema_argument(tmp_path):
    """schema= replaces the dataset schema: columns cast to it (a key as a
    plain int32 too), a column no file has given as nulls, one it leaves
    out not read; pyarrow.dataset(schema=) gives the same rows."""
    root = str(tmp_path / "sch")
    write_lake(root, 91, hive=True)
    sch = pa.schema([("id", pa.int32()), ("k", pa.int32()), ("extra", pa.string()), ("s", pa.string())])
    ds = pqfast.dataset(root, schema=sch)
    assert ds.schema == sch
    ref = pads.dataset(root, partitioning="hive", schema=sch)
    for f in (None, pc.field("id") > 2000, pc.field("extra").is_null() & (pc.field("k") == 1), [("s", "=", "s5")]):
        for cols in (None, ["k", "id"], ["extra", "s"]):
            got = _stream(ds, columns=cols, filter=f, batch_size=600)
            expr = f if f is None or isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            want = ref.to_table(columns=cols, filter=expr)
            assert got.to_pylist() == want.to_pylist(), (f, cols)
            assert ds.count_rows(filter=f) == want.num_rows


def test_pyarrow_dataset_methods(tmp_path):
    """pyarrow.dataset.Dataset's other methods work on a pqfast.Dataset (the
    inherited Cython ones would need a C++ dataset)."""
    root = str(tmp_path / "pm")
    write_lake(root, 101, hive=True)
    ds = pqfast.dataset(root)
    full = ds.to_table()
    f = pc.field("id") > 1000
    sub = ds.filter(f)
    assert isinstance(sub, pqfast.Dataset)
    assert sub.to_table().equals(ds.to_table(filter=f))
    assert sub.to_table(filter=pc.field("k") == 1).equals(ds.to_table(filter=f & (pc.field("k") == 1)))
    assert sub.count_rows() == ds.count_rows(filter=f)
    assert pickle.loads(pickle.dumps(sub)).to_table().equals(sub.to_table())
    assert ds.take([0, 5, 3]).equals(full.take([0, 5, 3]))
    narrow = pa.schema([("id", pa.int64()), ("k", pa.int32())])
    assert ds.replace_schema(narrow).to_table().schema == narrow
    assert ds.sort_by([("id", "descending")]).to_table().column("id")[0].as_py() == pc.max(full.column("id")).as_py()
    flat = ds.replace_schema(pa.schema([("id", pa.int64()), ("s", pa.string())]))
    assert flat.join(flat, "id", right_suffix="_r").count_rows() == full.num_rows
    with pytest.raises(TypeError):
        ds._get_fragments(None)


def test_memory_errors_name_the_limit_the_user_set(tmp_path):
    """A row group decoded under what the scan had left names the scan's
    memory_limit, not the share its task found left (it said "10 KiB" for
    a 32 KiB limit), and counts what the scan held besides as in use."""
    rng = np.random.default_rng(3)
    for i in range(3):
        n = 3000
        pq.write_table(pa.table({
            "id": pa.array(np.arange(n, dtype=np.int64) + i * n),
            "x": pa.array(rng.normal(size=n)),
            "s": pa.array([f"value-{v:05d}" for v in rng.integers(0, 99999, n)]),
        }), tmp_path / f"part-{i}.parquet", row_group_size=1000)
    ds = pqfast.dataset(str(tmp_path))
    raised = 0
    for limit in (32 << 10, 48 << 10, 64 << 10):
        for batch_size in (100, 1000):
            try:
                for _ in ds.scanner(memory_limit=limit, batch_size=batch_size).to_batches():
                    pass
            except pqfast.MemoryLimitError as e:
                raised += 1
                shown = re.findall(r"memory limit of (\d+ KiB)", str(e))
                assert shown == [f"{limit >> 10} KiB"], str(e)
    assert raised == 6  # (each limit is below what a row group decodes into)


def test_columns_as_a_str_is_refused_everywhere(tmp_path):
    """columns="id" was read as the columns "i" and "d" by read_table and
    ParquetFile.read (pyarrow.parquet.ParquetFile.read still does): every
    read refuses a str, naming the list form, with the invalid-argument code."""
    t = pa.table({"id": [1, 2], "i": [3, 4], "d": [5, 6]})
    p = tmp_path / "f.parquet"
    pq.write_table(t, p)
    reads = [lambda: pqfast.read_table(str(p), columns="id"),
             lambda: pqfast.read_table(str(tmp_path), columns="id"),
             lambda: pqfast.read_table(str(p), columns="id", filters=[("id", "==", 1)]),
             lambda: pqfast.ParquetFile(str(p)).read(columns="id"),
             lambda: pqfast.ParquetFile(str(p)).read_row_group(0, columns="id"),
             lambda: pqfast.dataset(str(p)).to_table(columns="id"),
             lambda: pqfast.dataset(str(p)).scanner(columns=b"id")]
    for read in reads:
        with pytest.raises(pqfast.FormatError, match=r"not a (str|bytes) \(columns=\[") as e:
            read()
        assert e.value.code == "invalid argument"
    with pytest.raises(pqfast.FormatError, match="expressions are not supported"):
        pqfast.read_table(str(p), columns={"x": pc.field("id")})
    assert pqfast.read_table(str(p), columns=("id",)).column_names == ["id"]


def test_pyarrow_read_table_options(tmp_path):
    """pyarrow.parquet.read_table's I/O hints are taken (the same table);
    its options that would change the result, at their defaults only."""
    t = pa.table({"id": [1, 2, 3], "s": ["a", "b", None]})
    p = tmp_path / "f.parquet"
    pq.write_table(t, p)
    got = pqfast.read_table(str(p), memory_map=True, buffer_size=1 << 16, pre_buffer=False,
                            use_pandas_metadata=False, coerce_int96_timestamp_unit=None,
                            page_checksum_verification=False)
    assert got.equals(pq.read_table(p, memory_map=True, buffer_size=1 << 16, pre_buffer=False))
    for kw in ({"use_pandas_metadata": True}, {"coerce_int96_timestamp_unit": "ms"},
               {"page_checksum_verification": True}):
        with pytest.raises(pqfast.FormatError, match=f"{next(iter(kw))}=.* is not supported") as e:
            pqfast.read_table(str(p), **kw)
        assert e.value.code == "unsupported"


def test_parquet_file_iter_batches_as_pyarrow(tmp_path):
    """ParquetFile.iter_batches: the batches pyarrow.parquet.ParquetFile.iter_batches
    gives (sizes, values, types), across row groups, in the order of row_groups=."""
    n = 2500
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "s": pa.array([None if i % 7 == 0 else f"v{i % 13}" for i in range(n)]),
                  "l": pa.array([[i, i + 1] if i % 5 else None for i in range(n)], pa.list_(pa.int32())),
                  "d": pa.array(np.arange(n) * 0.5)})
    p = tmp_path / "f.parquet"
    pq.write_table(t, p, row_group_size=1000)
    theirs, ours = pq.ParquetFile(p), pqfast.ParquetFile(str(p))
    for kw in ({}, {"batch_size": 700}, {"batch_size": 1000}, {"batch_size": 1}, {"batch_size": 999, "columns": ["s", "l"]},
               {"batch_size": 700, "row_groups": [2, 0]}, {"batch_size": 300, "row_groups": [1]}, {"row_groups": []}):
        a, b = list(theirs.iter_batches(**kw)), list(ours.iter_batches(**kw))
        assert [x.num_rows for x in b] == [x.num_rows for x in a], kw
        for x, y in zip(b, a):
            assert x.equals(y), kw
    assert sum(b.num_rows for b in ours.iter_batches(batch_size=700, columns=[])) == n
    for bad in (0, -1, 2.5, True):
        with pytest.raises(pqfast.FormatError, match="batch_size"):
            next(ours.iter_batches(batch_size=bad))
    with pytest.raises(pqfast.FormatError, match="not a str"):
        next(ours.iter_batches(columns="id"))
