"""read_table on s3:// (SeaweedFS behind the counting proxy) through the
dataset scan / streaming scanner (_read_remote), and filesystem= scans:
the rows of the local read and of pyarrow.dataset, batches too; lookups and
stats=True through the scanner too; sidecar indexes used by the scanner's
filtered units (no more requests or bytes than the staged scan asked
before it was deleted, as recorded); a remote
scan within memory_limit, batch by batch, and MemoryLimitError when one
row group alone cannot fit."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast._stream_io import StreamInfo

from s3_fixtures import opts, proxy, s3  # noqa: F401
from test_sidecar_v2 import filters_for, same_rows, write_lake


def _lake(root: str, seed: int, hive: bool) -> list[str]:
    """Flat files, random sizes and row groups, nulls, some keys in hive directories."""
    rng = np.random.default_rng(seed)
    paths, start = [], 0
    for i in range(int(rng.integers(3, 7))):
        n = int(rng.integers(1, 4000))
        t = pa.table({
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "s": pa.array([None if x % 11 == 0 else f"s{x % 7}" for x in rng.integers(0, 1000, n)]),
            "v": pa.array(rng.random(n), mask=rng.random(n) < 0.1),
            "q": pa.array(rng.integers(0, 50, n).astype(np.int32)),
        })
        start += n
        d = os.path.join(root, f"k={i % 3}") if hive else root
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, f"part-{i:03d}.parquet")
        pq.write_table(t, p, row_group_size=int(rng.integers(100, 1500)), compression=["snappy", "zstd", "none"][i % 3],
                       write_page_index=bool(i % 2))
        paths.append(p)
    return sorted(paths)


def _upload(s3, root: str, paths: list[str], prefix: str) -> str:  # noqa: F811
    import obstore

    store = s3.store()
    for p in paths:
        obstore.put(store, f"{prefix}/" + os.path.relpath(p, root), open(p, "rb").read())
    return f"s3://{s3.bucket}/{prefix}/"


FILTERS = [
    None,
    [("q", "<", 5)],
    [("id", ">=", 1000), ("id", "<", 2500)],
    pc.field("s") == "s3",
    [[("q", ">", 45)], [("v", "<", 0.05)]],
    [("k", "=", 1), ("q", "<", 20)],  # a hive key: files chosen by directory
]


@pytest.mark.parametrize("seed", [3, 8])
def test_s3_read_table_and_batches_equal_local_and_pyarrow(s3, opts, tmp_path, seed):  # noqa: F811
    root = str(tmp_path / "lake")
    paths = _lake(root, seed, hive=True)
    url = _upload(s3, root, paths, f"diff{seed}-{tmp_path.name}")
    want_ds = pads.dataset(root, format="parquet", partitioning="hive")
    remote = pqfast.dataset(url, storage_options=opts)
    for f in FILTERS:
        for cols in (None, ["id", "v"], ["q", "k", "s"]):
            local = pqfast.read_table(root, columns=cols, filters=f)
            got = pqfast.read_table(url, columns=cols, filters=f, storage_options=opts)
            assert got.equals(local), (f, cols)
            expr = f if f is None or isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            want = want_ds.to_table(columns=cols, filter=expr)
            assert got.num_rows == want.num_rows, (f, cols)
            key = [("id", "ascending")] if "id" in got.column_names else None
            if key:
                assert got.select(want.column_names).sort_by(key).cast(want.schema).equals(want.sort_by(key)), (f, cols)
            sc = remote.scanner(columns=cols, filter=f, batch_size=333)
            batches = list(sc.to_batches())
            assert all(b.num_rows <= 333 for b in batches)
            assert pa.Table.from_batches(batches, schema=sc.projected_schema).equals(got), (f, cols)


def test_s3_read_table_goes_through_the_scanner(s3, opts, proxy, tmp_path):  # noqa: F811
    root = str(tmp_path / "lake")
    paths = _lake(root, 5, hive=False)
    url = _upload(s3, root, paths, f"route-{tmp_path.name}")
    # Unfiltered and range reads: the dataset scan (a listing and footers, then
    # the column chunks; no request round per engine stage).
    for f in (None, [("q", "<", 5)]):
        proxy.reset()
        got = pqfast.read_table(url, filters=f, storage_options=opts)
        assert proxy.stats()["requests"] > 0
        assert got.equals(pqfast.read_table(root, filters=f)), f
    # stats=True: the scanner's counts (request rounds), every request the proxy saw.
    proxy.reset()
    t, st = pqfast.read_table(url, filters=[("q", "<", 5)], storage_options=opts, stats=True)
    assert st["route"] == "scanner" and st["requests"] == proxy.stats()["requests"], (st, proxy.stats())
    assert "rounds" in st and t.equals(pqfast.read_table(url, filters=[("q", "<", 5)], storage_options=opts))
    local = pqfast.read_table(paths, filters=[("q", "<", 5)], stats=True)[1]
    assert st["rows"] == local["rows"] == t.num_rows and st["row_groups"] == local["row_groups"], (st, local)
    # A lookup: five request rounds at most.
    want = pq.read_table(paths[1]).slice(7, 1)["id"][0].as_py()
    t, st = pqfast.read_table(url, filters=[("id", "=", want)], storage_options=opts, stats=True)
    assert t["id"].to_pylist() == [want] and st["rounds"] <= 5 and st["route"] == "scanner"
    assert pqfast.read_table(url, filters=[("id", "=", want)], storage_options=opts).equals(t)


# What the staged scan (deleted in the fifteenth session) asked of the proxy
# for each lookup of the test below, (lookup, cold) -> (requests, bytes out),
# recorded at 9b940dc on SeaweedFS: the scanner asks no more.
STAGED_LOOKUPS = {
    (0, False): (3, 87063), (0, True): (7, 351035),
    (1, False): (1, 1469), (1, True): (5, 265441),
    (2, False): (7, 314610), (2, True): (11, 578582),
    (3, False): (3, 120250), (3, True): (7, 384222),
    (4, False): (5, 205813), (4, True): (9, 469785),
    (5, False): (5, 168387), (5, True): (9, 432359),
}


def test_s3_lookups_on_a_bloom_lake_through_the_scanner(s3, opts, proxy, tmp_path):  # noqa: F811
    """Lookups (``=``/``in`` on a Bloom-filtered column, ORs of them, with a
    range beside) through the scanner: the local rows, the dataset's route
    the scanner's, and no more requests nor bytes than the staged scan asked
    (``STAGED_LOOKUPS``),
    warm (each route's caches as a process keeps them: the Bloom layouts
    learned, blocks alone) and cold (nothing kept: header and predicted
    blocks in one read per filter)."""
    from pqfast import _testlake, scan as _scan

    root = tmp_path / "bloom"
    root.mkdir()
    paths = []
    for i in range(4):
        p = str(root / f"part-{i}.parquet")
        _testlake.write_pyarrow(p, i, row_groups=4, rows_per_group=3000)
        paths.append(p)
    prefix = f"bloom-{tmp_path.name}"
    _testlake.upload(s3.store(), paths, prefix)
    url = f"s3://{s3.bucket}/{prefix}/"
    ids = [int(x) for x in pq.read_table(paths[1], columns=["id"])["id"].to_numpy()[[5, 4000, 11999]]]
    other = int(pq.read_table(paths[3], columns=["id"])["id"][77].as_py())
    key = pq.read_table(paths[2], columns=["key"])["key"][123].as_py()
    # Each matches one row group per file (or none) but the third, whose ids
    # lie in three row groups of a file: the scanner's units ask each its own
    # pages (two requests more than the staged scan's engine run over the
    # file, which merges neighbouring row groups' ranges; bytes the same).
    lookups = [
        [("id", "=", ids[0])],
        [("id", "=", 12345)],  # absent: every row group ruled out
        [("id", "in", ids + [other])],
        [("key", "=", key)],
        [[("id", "=", ids[1])], [("key", "=", key)]],
        [("id", "in", [ids[2], other]), ("amount", "<", 0.5)],
    ]
    several_row_groups = lookups[2]
    for f in lookups:
        for cols in (None, ["amount"]):
            local = pqfast.read_table(str(root), columns=cols, filters=f, partitioning=None)
            d = pqfast.dataset(url, storage_options=opts)
            got = d.to_table(columns=cols, filter=pq.filters_to_expression(f))
            assert got.equals(local), (f, cols)
            # (An id the statistics rule out everywhere: planning reads nothing, no route runs.)
            assert d.scan_stats.get("route") == "scanner" or (f[0][2] == 12345 and not d.scan_stats), f
            assert pqfast.read_table(url, columns=cols, filters=f, storage_options=opts).equals(local), (f, cols)
        local = pqfast.read_table(str(root), filters=f, partitioning=None)
        for cold in (False, True):
            def call():
                if cold:
                    pqfast.clear_footer_cache()
                    _scan.clear_tail_cache()
                proxy.reset()
                t = pqfast.read_table(url, filters=f, storage_options=opts)
                return t, proxy.stats()

            call()  # (warm: what a process keeps)
            t, mine = call()
            assert t.equals(local), f
            req, nbytes = STAGED_LOOKUPS[(lookups.index(f), cold)]
            extra = 2 if f is several_row_groups else 0
            assert mine["requests"] <= req + extra, (f, cold, mine, req)
            # (An answer's headers: ~450 bytes a request; a few may differ
            # from the recorded run's: 32 bytes a request allowed.)
            assert mine["bytes_out"] <= nbytes + 512 * extra + 32 * req, (f, cold, mine, nbytes)


def test_s3_lookup_with_hostile_bloom_headers_reads_the_right_rows(s3, opts, tmp_path):  # noqa: F811
    """Bloom filter headers that do not parse, or announce a bitset past the
    file, on the scanner's pruning of remote files: no crash, the row groups
    they cannot rule out are read, the rows the local read's."""
    from pqfast import _testlake

    root = tmp_path / "hostile"
    root.mkdir()
    paths = []
    for i in range(2):
        p = str(root / f"part-{i}.parquet")
        _testlake.write_pyarrow(p, i, row_groups=3, rows_per_group=3000)
        paths.append(p)
    md = pq.ParquetFile(paths[0]).metadata
    data = bytearray(open(paths[0], "rb").read())
    at0 = md.row_group(0).column(0).bloom_filter_offset
    at1 = md.row_group(1).column(0).bloom_filter_offset
    data[at0:at0 + 16] = b"\xff" * 16  # garbage: no header parses
    data[at1:at1 + 3] = b"\x15\xfe\xff"  # numBytes: a zigzag varint left unfinished
    open(paths[0], "wb").write(bytes(data))
    prefix = f"hostile-{tmp_path.name}"
    _testlake.upload(s3.store(), paths, prefix)
    url = f"s3://{s3.bucket}/{prefix}/"
    ids = pq.read_table(paths[0], columns=["id"])["id"].to_pylist()
    for f in ([("id", "=", ids[10])], [("id", "=", ids[3500])], [("id", "in", [ids[7000], 1])]):
        got = pqfast.read_table(url, filters=f, storage_options=opts)
        want = pq.read_table(paths, filters=f)
        assert got["id"].to_pylist() == want["id"].to_pylist() and got.num_rows == 1, f


def test_filesystem_reads_equal_local(tmp_path):
    """read_table(filesystem=) (directories, paths named one by one, with and
    without filters, stats=True: the scanner) and a dataset scan on it give
    the local rows and the local read's counts."""
    import pyarrow.fs as pafs

    root = str(tmp_path / "lake")
    paths = _lake(root, 13, hive=True)
    fs = pafs.LocalFileSystem()
    for f in FILTERS:
        for cols in (None, ["id", "s"]):
            local = pqfast.read_table(root, columns=cols, filters=f)
            got = pqfast.read_table(root, columns=cols, filters=f, filesystem=fs)
            assert got.equals(local), (f, cols)
            sc = pqfast.dataset(root, filesystem=fs).scanner(columns=cols, filter=f, batch_size=100)
            assert pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema).equals(local)
    one = pqfast.read_table(paths[0], filesystem=fs, columns=["id", "v"])
    assert one.equals(pq.read_table(paths[0], columns=["id", "v"]))
    for f in FILTERS[1:5]:  # (not the hive key's: the files named alone have none)
        want, st_local = pqfast.read_table(paths, filters=f, stats=True)
        got, st = pqfast.read_table(paths, filters=f, filesystem=fs, stats=True)
        assert got.equals(want), f
        assert st["route"] == "scanner" and "listing" not in [r["what"] for r in st["round_detail"]], st
        for k in ("rows", "row_groups", "row_groups_read", "row_groups_matched"):
            assert st[k] == st_local[k], (f, k, st, st_local)


# What the staged scan (deleted in the fifteenth session) asked of the proxy
# in the test below, recorded at 9b940dc on SeaweedFS: the range read
# (requests, bytes out).
STAGED_SIDECAR_RANGE = (7, 413249)


def test_sidecar_on_the_scanner_route_reads_no_more_than_the_staged_scan(s3, opts, proxy, tmp_path):  # noqa: F811
    from pqfast import _testlake

    lake = tmp_path / "lake"
    paths = write_lake(lake)  # no Bloom filter, no page index in the files
    prefix = f"scs-{tmp_path.name}"
    _testlake.upload(s3.store(), [str(p) for p in paths], prefix)
    pattern = f"s3://{s3.bucket}/{prefix}/*.parquet"
    a = filters_for(paths)[0][0][2]
    rng = [("id", ">=", a), ("id", "<", a + 2000)]  # a range: the scanner's route
    before = pqfast.read_table(pattern, filters=rng, storage_options=opts)

    def pages_read():
        d = pqfast.dataset(pattern, storage_options=opts)
        d.to_table(filter=pq.filters_to_expression(rng))
        st = d.scan_stats
        assert st["route"] == "scanner"
        return st["pages_read"]

    no_sidecar = pages_read()

    pqfast.index(pattern, ["id", "key"], sidecar=True, storage_options=opts)

    def measured(f):
        pqfast.read_table(pattern, filters=f, storage_options=opts)  # (caches warm, as a process keeps them)
        proxy.reset()
        t = pqfast.read_table(pattern, filters=f, storage_options=opts)
        return t, proxy.stats()

    got, mine = measured(rng)
    same_rows(got, lake, rng)
    assert got.equals(before)
    # The sidecar's page index prunes pages in the scanner's engine runs; the
    # scanner asks no more requests or bytes than the staged scan (5 GETs,
    # 281 KB against 7, 413 KB when written).
    assert pages_read() * 3 < no_sidecar
    req, nbytes = STAGED_SIDECAR_RANGE
    assert mine["bytes_out"] <= nbytes and mine["requests"] <= req, (mine, STAGED_SIDECAR_RANGE)
    # A 1-id lookup, through the dataset and through read_table: the
    # scanner with the sidecar's Bloom filters either way, the same GETs; the
    # dataset's scan of its listed files finds the sidecar by one HEAD (and
    # its listing's answer is a few hundred bytes longer).
    one = [("id", "=", a)]
    t1, st1 = measured(one)
    proxy.reset()
    t2 = pqfast.dataset(pattern, storage_options=opts).to_table(filter=pc.field("id") == a)
    st2 = proxy.stats()
    same_rows(t1, lake, one)
    assert t1.equals(t2)
    assert st2["methods"]["GET"] <= st1["methods"]["GET"] and st2["requests"] <= st1["requests"] + 1, (st1, st2)
    assert st2["bytes_out"] <= st1["bytes_out"] + 1024, (st1, st2)


def test_remote_scan_within_memory_limit_and_typed_error(s3, opts, tmp_path):  # noqa: F811
    root = str(tmp_path / "big")
    os.makedirs(root)
    rng = np.random.default_rng(1)
    paths = []
    for i in range(6):
        n = 120_000
        t = pa.table({"id": np.arange(i * n, (i + 1) * n, dtype=np.int64), "v": rng.random(n),
                      "q": rng.integers(0, 100, n).astype(np.int32)})
        p = os.path.join(root, f"part-{i}.parquet")
        pq.write_table(t, p, row_group_size=20_000, compression="none")
        paths.append(p)
    url = _upload(s3, root, paths, f"mem-{tmp_path.name}")
    limit = 4 << 20  # the lake decodes to ~14 MiB
    remote = pqfast.dataset(url, storage_options=opts)
    for f in (None, [("q", "<", 60)]):
        sc = remote.scanner(filter=f, batch_size=5000, memory_limit=limit)
        rows, total = 0, 0
        for b in sc.to_batches():  # each batch dropped after use
            rows += b.num_rows
            total += int(pc.sum(b["id"]).as_py() or 0)
        want = pqfast.read_table(root, filters=f)
        assert rows == want.num_rows and total == pc.sum(want["id"]).as_py()
        info = sc.last_readahead
        assert isinstance(info, StreamInfo) and info._closed
        assert 0 < info.peak_held <= limit, info.peak_held
    assert sum(os.path.getsize(p) for p in paths) > 2 * limit
    # One row group larger than the limit: typed, before its bytes are read.
    with pytest.raises(pqfast.MemoryLimitError):
        remote.scanner(memory_limit=64 << 10).to_table()
    with pytest.raises(pqfast.MemoryLimitError):
        pqfast.read_table(url, storage_options=opts, memory_limit=64 << 10)


_RSS_CHILD = r"""
import json, sys
import pqfast
ds = pqfast.dataset(sys.argv[1], storage_options=json.loads(sys.argv[2]))
ds.count_rows()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
n = 0
sc = ds.scanner(batch_size=8192, memory_limit=8 << 20)
for b in sc.to_batches():
    n += b.num_rows
status = open("/proc/self/status").read()
print(n, status.split("VmHWM:")[1].split()[0], sc.last_readahead.peak_held if sc.last_readahead else 0)
"""


def test_peak_rss_of_an_s3_scan_within_memory_limit(s3, opts, tmp_path):  # noqa: F811
    """A lake of 64 MB (decoded and on the store) scanned from S3 batch by
    batch under memory_limit=8 MiB: the process's peak RSS grows by the
    budget and the I/O loop's slack, not by the lake."""
    import json
    import subprocess
    import sys

    root = str(tmp_path / "rss")
    os.makedirs(root)
    paths = []
    for i in range(8):
        t = pa.table({"id": np.arange(i * 500000, (i + 1) * 500000, dtype=np.int64),
                      "x": np.random.default_rng(i).random(500000)})
        p = os.path.join(root, f"f{i}.parquet")
        pq.write_table(t, p, row_group_size=100000, compression="none")
        paths.append(p)
    url = _upload(s3, root, paths, f"rss-{tmp_path.name}")
    args = [url, json.dumps(opts)]
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, *args], capture_output=True, text=True, check=True)
    n, hwm, peak = out.stdout.split()
    assert int(n) == 4_000_000
    assert 0 < int(peak) <= 8 << 20
    base = int(subprocess.run([sys.executable, "-c", _RSS_CHILD.replace("for b in sc.to_batches()", "for b in []"),
                               *args], capture_output=True, text=True, check=True).stdout.split()[1])
    # (13.4 MiB measured when written; the budget's peak 2.0 MB)
    assert (int(hwm) - base) * 1024 < 40 << 20, (base >> 10, int(hwm) >> 10)


def test_a_prefix_read_again_is_listed_again_alongside(s3, opts, tmp_path):  # noqa: F811
    """read_table of a prefix read before starts from its last listing while
    listing it again: an object added, replaced or deleted since is seen."""
    import obstore

    root = str(tmp_path / "lake")
    paths = _lake(root, 17, hive=False)
    prefix = f"relist-{tmp_path.name}"
    url = _upload(s3, root, paths, prefix)
    store = s3.store()
    first = pqfast.read_table(url, storage_options=opts)
    assert first.equals(pqfast.read_table(root))
    assert pqfast.read_table(url, storage_options=opts).equals(first)  # from the kept listing
    extra = pa.table({"id": pa.array([10**9], pa.int64()), "s": ["new"], "v": [0.5], "q": pa.array([1], pa.int32())})
    pq.write_table(extra, os.path.join(root, "part-999.parquet"))
    obstore.put(store, f"{prefix}/part-999.parquet", open(os.path.join(root, "part-999.parquet"), "rb").read())
    added = pqfast.read_table(url, storage_options=opts)
    assert added.num_rows == first.num_rows + 1 and added.equals(pqfast.read_table(root))
    # Replaced with other bytes (its size and ETag change).
    pq.write_table(pa.concat_tables([extra, extra]), os.path.join(root, "part-999.parquet"))
    obstore.put(store, f"{prefix}/part-999.parquet", open(os.path.join(root, "part-999.parquet"), "rb").read())
    assert pqfast.read_table(url, storage_options=opts).equals(pqfast.read_table(root))
    # Deleted: the kept listing's object is gone; the new listing decides.
    os.remove(os.path.join(root, "part-999.parquet"))
    obstore.delete(store, f"{prefix}/part-999.parquet")
    assert pqfast.read_table(url, storage_options=opts).equals(first)


def test_a_pruned_partition_is_never_read_on_the_scanner_route(s3, opts, tmp_path):  # noqa: F811
    """A corrupt object under a key=value directory the filter rules out is
    not fetched (footers are read once the keys chose the files)."""
    root = str(tmp_path / "lake")
    paths = _lake(root, 23, hive=True)
    os.makedirs(os.path.join(root, "k=9"))
    broken = os.path.join(root, "k=9", "broken.parquet")
    with open(broken, "wb") as f:
        f.write(b"PAR1 not a parquet file PAR1")
    url = _upload(s3, root, paths + [broken], f"pruned-{tmp_path.name}")
    os.remove(broken)
    for f in ([("k", "<", 2), ("q", "<", 30)], [("k", ">", 1), ("k", "<", 3)], [("k", "in", [0, 1])]):
        got = pqfast.read_table(url, filters=f, storage_options=opts)
        # (The lake's k dictionary holds 9 too: values compared.)
        assert got.to_pylist() == pqfast.read_table(root, filters=f).to_pylist(), f
        sc = pqfast.dataset(url, storage_options=opts).scanner(filter=f)
        assert pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema).equals(got), f
    with pytest.raises(pqfast.FormatError, match="broken"):
        pqfast.read_table(url, storage_options=opts)


def _random_filter(rng):
    """A random DNF over the _lake columns: 1-3 ANDs of 1-3 atoms (ranges,
    equalities, sets, nulls) with values inside and outside the data."""
    def atom():
        col = ["id", "q", "v", "s"][int(rng.integers(0, 4))]
        if col == "s":
            op = ["=", "!=", "in", "not in"][int(rng.integers(0, 4))]
            vals = [f"s{int(x)}" for x in rng.integers(0, 9, 3)]
            return (col, op, vals if "in" in op else vals[0])
        op = ["<", "<=", ">", ">=", "=", "!=", "in"][int(rng.integers(0, 7))]
        if col == "v":
            vals = [float(x) for x in rng.random(3)]
        else:
            hi = 12000 if col == "id" else 55
            vals = [int(x) for x in rng.integers(-5, hi, 3)]
        return (col, op, vals if op == "in" else vals[0])

    return [[atom() for _ in range(int(rng.integers(1, 4)))] for _ in range(int(rng.integers(1, 4)))]


def test_random_filters_remote_equal_local(s3, opts, tmp_path):  # noqa: F811
    """Random filters and projections: s3://, filesystem= and a file object
    (the streaming scanner, the only route of remote reads) give the local
    read's rows, and stats=True counts the local read's rows and row groups."""
    import io

    import pyarrow.fs as pafs

    root = str(tmp_path / "lake")
    paths = _lake(root, 21, hive=False)
    url = _upload(s3, root, paths, f"rand-{tmp_path.name}")
    fs = pafs.LocalFileSystem()
    rng = np.random.default_rng(4)
    one = open(paths[0], "rb").read()
    for trial in range(40):
        f = _random_filter(rng)
        cols = [None, ["id", "v"], ["s", "q"]][trial % 3]
        local, st_local = pqfast.read_table(root, columns=cols, filters=f, stats=True)
        got, st = pqfast.read_table(url, columns=cols, filters=f, storage_options=opts, stats=True)
        assert got.equals(local), (trial, f, cols)
        assert st["rows"] == st_local["rows"] == local.num_rows, (trial, f)
        assert pqfast.read_table(root, columns=cols, filters=f, filesystem=fs).equals(local), (trial, f, cols)
        fo = pqfast.read_table(io.BytesIO(one), columns=cols, filters=f)
        assert fo.equals(pqfast.read_table(paths[0], columns=cols, filters=f)), (trial, f, cols)


_STAT_FILTERS = [
    [("id", "=", 7)],                                      # AND (one term), absent from a row group's range
    [("id", ">=", 2500), ("id", "<", 3500)],               # AND, a range over two files
    [[("id", "=", 7)], [("id", "=", 8001)]],               # OR, values inside two files' ranges, absent
    [[("id", "=", 6)], [("id", "=", 13001)]],              # OR, one present, one absent
    [("id", "in", [7, 4001, 8999, 6])],                    # IN
    [[("id", "=", 6)], [("s", "=", "v3")]],                # OR over two columns
    [[("id", "=", -1)], [("id", "=", 100000)]],            # nothing matches
]


@pytest.mark.parametrize("bloom", [False, True])
def test_fed_stats_equal_local_stats(s3, opts, tmp_path, bloom):  # noqa: F811
    """read_table(stats=True) of the same files and filter counts the same
    files, row groups and pruning, read locally, by filesystem= and on S3
    (a fed read of an OR filter over Bloom-filtered files counted the row
    groups statistics ruled out twice: 11 row groups for 9)."""
    root = tmp_path / "lake"
    root.mkdir()
    paths = []
    for k in range(3):
        n = 3000
        t = pa.table({"id": pa.array(range(2 * k * n, 2 * (k + 1) * n, 2), pa.int64()),  # even ids only
                      "s": [f"v{i % 97}" for i in range(n)]})
        kw = {"bloom_filter_options": {"id": {"ndv": n, "fpp": 0.01}}} if bloom else {}
        p = str(root / f"f{k}.parquet")
        pq.write_table(t, p, row_group_size=1000, write_page_index=True, **kw)
        paths.append(p)
    url = _upload(s3, str(root), paths, f"fedstats{int(bloom)}")
    skip = {"seconds", "route", "scanner", "bytes_read", "reads", "requests", "engine_runs"}
    for f in _STAT_FILTERS:
        local, st_l = pqfast.read_table(str(root), filters=f, stats=True)
        for kw in ({"filesystem": pafs.LocalFileSystem()}, {"storage_options": opts}):
            src = url if "storage_options" in kw else str(root)
            fed, st_f = pqfast.read_table(src, filters=f, stats=True, **kw)
            assert fed.sort_by("id").equals(local.sort_by("id")), (f, kw.keys())
            both = [k for k in st_l if k in st_f and k not in skip and isinstance(st_l[k], int)]
            assert {"files", "row_groups", "row_groups_pruned_by_statistics"} <= set(both)
            assert {k: st_f[k] for k in both} == {k: st_l[k] for k in both}, (f, list(kw))


def test_a_corrupt_file_in_a_window_raises_after_the_files_before_it(s3, opts, tmp_path):  # noqa: F811
    """A stream of a small-file lake read whole yields every batch of the
    files before a corrupt footer, then raises the typed error naming that
    file: locally, by filesystem= and on S3 (a fed stream parsed a window's
    footers first and raised before yielding the files before the bad one)."""
    root = tmp_path / "lake"
    root.mkdir()
    paths, k = [], 5
    for j in range(10):
        p = str(root / f"f{j:02d}.parquet")
        pq.write_table(pa.table({"id": pa.array(range(j * 100, j * 100 + 100), pa.int64())}), p)
        paths.append(p)
    b = open(paths[k], "rb").read()
    open(paths[k], "wb").write(b[:-8] + b"\xff\xff\xff\x7fPAR1")  # footer length past the file
    url = _upload(s3, str(root), paths, "corruptk")
    for src, kw in ((str(root), {}), (str(root), {"filesystem": pafs.LocalFileSystem()}),
                    (url, {"storage_options": opts})):
        n = 0
        with pytest.raises(pqfast.FormatError) as e:
            for batch in pqfast.dataset(src, **kw).to_batches():
                n += batch.num_rows
        assert n == 100 * k, (src, list(kw))
        assert "f05.parquet" in str(e.value)
