"""Sidecar index format 2 on local lakes: the sidecar holds, per data file,
the tail `pqfast.index` would append (Bloom filters, page indexes, footer),
and readers see each file as data file + tail. read_table(filters=) then uses
the page indexes (fewer pages read) and returns pyarrow.dataset's rows;
indexing again adds only what is missing; a changed file is ignored and
reported; a hostile sidecar is ignored with a warning, never a crash."""

from __future__ import annotations

import json
import os
import shutil
import struct
import warnings

import numpy as np
import pytest

import pqfast
from pqfast import _sidecar

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

N_FILES = 3
ROWS = 30_000


def write_lake(d, seed=5):
    """Files with no Bloom filter and no page index (pyarrow, plain pages of
    ~2 KiB, ids sorted in each file): what most writers leave."""
    rng = np.random.default_rng(seed)
    d.mkdir(exist_ok=True)
    for i in range(N_FILES):
        ids = np.sort(rng.choice(10_000_000, ROWS, replace=False)) + i * 10_000_000
        t = pa.table({"id": ids, "key": [f"k{x}" for x in ids], "amount": rng.random(ROWS)})
        pq.write_table(t, d / f"part-{i}.parquet", row_group_size=10_000, data_page_size=2048,
                       use_dictionary=False, write_page_index=False)
    return sorted(d.glob("*.parquet"))


def sample_ids(paths):
    ids = pq.read_table(paths[1], columns=["id"])["id"].to_pylist()
    return ids[123], ids[17_777], ids[29_000]


def filters_for(paths):
    a, b, c = sample_ids(paths)
    return [
        [("id", "=", a)],
        [("id", "in", [a, b, 5])],
        [("key", "=", f"k{c}")],
        [[("id", "=", a)], [("key", "=", f"k{b}")]],
        [("id", ">=", a), ("id", "<", a + 2000)],
        [("id", "=", a + 1)],  # absent (ids are distinct draws: a + 1 is almost surely not one)
    ]


def same_rows(got, source, f):
    want = ds.dataset(str(source)).to_table(filter=pq.filters_to_expression(f))
    key = [("id", "ascending")]
    assert got.sort_by(key).equals(want.select(got.column_names).sort_by(key)), f


def test_read_table_uses_the_sidecars_page_indexes_and_filters(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    before_bytes = {p: p.read_bytes() for p in paths}
    fs = filters_for(paths)
    before = [pqfast.read_table(lake, filters=f, stats=True) for f in fs]

    s = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert s.sidecar == str(lake / "_pqfast_index")
    assert s.chunks_indexed == 2 * 3 * N_FILES and s.offset_indexes == s.column_indexes == s.chunks_indexed
    assert {p: p.read_bytes() for p in paths} == before_bytes  # the data files are untouched

    for f, (t0, st0) in zip(fs, before):
        t1, st1 = pqfast.read_table(lake, filters=f, stats=True)
        same_rows(t1, lake, f)
        assert t1.equals(t0)
        assert st1["files_with_sidecar"] == N_FILES
        assert st1["pages_read"] <= st0["pages_read"], (f, st0, st1)
        assert "files_with_sidecar" not in st0
    # A lookup: the ColumnIndex narrows the pages read, the filters the row groups.
    (_, st0), (_, st1) = before[0], pqfast.read_table(lake, filters=fs[0], stats=True)
    assert st1["pages_read"] * 3 < st0["pages_read"], (st0, st1)
    assert st1["row_groups_pruned_by_bloom"] + st1["row_groups_pruned_by_statistics"] == st1["row_groups"] - 1
    # The absent id: nothing decoded once the filters are in.
    _, st = pqfast.read_table(lake, filters=fs[-1], stats=True)
    assert st["pages_read"] == 0 and st["rows"] == 0, st
    # Without the engine's Bloom filters and page indexes the sidecar is not read.
    from pqfast._read_local import scan_table

    _, st = scan_table(lake, filters=fs[0], stats=True, use_bloom=False, use_page_index=False)
    assert "files_with_sidecar" not in st


def test_the_tail_is_what_index_appends_and_a_new_column_goes_after_it(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    copy = tmp_path / "copy.parquet"
    shutil.copy(paths[0], copy)
    old_size = copy.stat().st_size

    dry = pqfast.index(lake, ["id"], sidecar=True, dry_run=True)
    assert not (lake / "_pqfast_index").exists() and dry.chunks_indexed == 3 * N_FILES
    s = pqfast.index(lake, ["id"], sidecar=True)
    assert s.bytes_appended == dry.bytes_appended == (lake / "_pqfast_index").stat().st_size
    pqfast.index(copy, ["id"])
    e = _sidecar.read(str(lake / "_pqfast_index")).files["part-0.parquet"]
    assert (e.size, e.length) == (old_size, copy.stat().st_size - old_size)
    assert _sidecar.read(str(lake / "_pqfast_index")).blob(e) == copy.read_bytes()[old_size:]

    # A second column: appended after the first tail, as a second in-place run appends it.
    s = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert s.chunks_indexed == 3 * N_FILES and s.chunks_had_filter == 3 * N_FILES
    pqfast.index(copy, ["id", "key"])
    sc = _sidecar.read(str(lake / "_pqfast_index"))
    e = sc.files["part-0.parquet"]
    assert sc.blob(e) == copy.read_bytes()[old_size:]

    # Nothing left to add: the sidecar is not rewritten.
    stamp = (lake / "_pqfast_index").stat().st_mtime_ns
    again = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert again.chunks_indexed == 0 and again.bytes_appended == 0
    assert (lake / "_pqfast_index").stat().st_mtime_ns == stamp
    assert pqfast.index(lake, ["id"], sidecar=True, dry_run=True).bytes_appended == 0


def test_a_changed_file_is_reported_stale_and_read_as_it_is(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    pqfast.index(lake, ["id", "key"], sidecar=True)
    # Rewritten by someone else: other rows, a footer of its own.
    ids = np.arange(ROWS, dtype=np.int64) * 3
    pq.write_table(pa.table({"id": ids, "key": [f"k{x}" for x in ids], "amount": np.zeros(ROWS)}), paths[2],
                   row_group_size=10_000, use_dictionary=False)
    f = [("id", "in", [int(ids[5]), sample_ids(paths)[0]])]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got, st = pqfast.read_table(lake, filters=f, stats=True)
        pr = pqfast.prune(lake, "id", [int(ids[5])])
    same_rows(got, lake, f)
    assert got.num_rows == 2
    assert st["files_with_sidecar"] == N_FILES - 1
    msgs = [str(x.message) for x in w]
    assert sum("changed since" in m and "part-2.parquet" in m for m in msgs) == 2, msgs
    mine = pr.filter(pa.compute.match_substring(pr["path"], "part-2"))
    assert "no_filter" in mine["verdict"].to_pylist()  # its own metadata only
    rebuilt = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert rebuilt.chunks_indexed == 2 * 3 and rebuilt.chunks_had_filter == 2 * 3 * (N_FILES - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, st = pqfast.read_table(lake, filters=f, stats=True)
    assert st["files_with_sidecar"] == N_FILES


def test_lookups_never_use_a_footer_cached_before_the_sidecar_or_a_file_changed(tmp_path):
    """Scans through the sidecar cache each file's parsed footer (as plain
    local scans do), under the data file's and the sidecar's identity."""
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    pqfast.index(lake, ["id"], sidecar=True)
    a, _, c = sample_ids(paths)
    by_key = [("key", "=", f"k{c}")]
    for _ in range(2):  # the second from the footers cached by the first
        got, st = pqfast.read_table(lake, filters=by_key, stats=True)
        same_rows(got, lake, by_key)
        assert st["files_with_sidecar"] == N_FILES and st["row_groups_pruned_by_bloom"] == 0, st
    # The sidecar rewritten with filters for key too: the next lookup uses them.
    pqfast.index(lake, ["id", "key"], sidecar=True)
    got, st = pqfast.read_table(lake, filters=by_key, stats=True)
    same_rows(got, lake, by_key)
    assert st["row_groups_pruned_by_bloom"] > 0, st
    # A data file rewritten with other rows, then indexed again: its new rows.
    ids = np.arange(ROWS, dtype=np.int64) * 3 + 1
    pq.write_table(pa.table({"id": ids, "key": [f"k{x}" for x in ids], "amount": np.ones(ROWS)}), paths[1],
                   row_group_size=10_000, use_dictionary=False, write_page_index=False)
    pqfast.index(lake, ["id", "key"], sidecar=True)
    for f in ([("id", "=", int(ids[7]))], [("id", "=", a)], [("key", "=", f"k{ids[20_000]}")]):
        got, st = pqfast.read_table(lake, filters=f, stats=True)
        same_rows(got, lake, f)
        assert st["files_with_sidecar"] == N_FILES
    assert pqfast.read_table(lake, filters=[("id", "=", int(ids[7]))]).num_rows == 1


def test_files_added_and_removed(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    pqfast.index(lake, ["id"], sidecar=True)
    os.unlink(paths[0])
    s = pqfast.index(lake, ["id"], sidecar=True)
    assert s.chunks_indexed == 0 and s.bytes_appended > 0  # rewritten without the file that is gone
    assert set(_sidecar.read(str(lake / "_pqfast_index")).files) == {"part-1.parquet", "part-2.parquet"}
    # Indexing one file keeps the other entries that still hold.
    s = pqfast.index(paths[1], ["id", "key"], sidecar=lake / "_pqfast_index")
    assert s.chunks_indexed == 3
    sc = _sidecar.read(str(lake / "_pqfast_index"))
    assert set(sc.files) == {"part-1.parquet", "part-2.parquet"}
    f = [("key", "=", f"k{sample_ids(paths)[1]}")]
    got, st = pqfast.read_table(lake, filters=f, stats=True)
    same_rows(got, lake, f)
    assert st["files_with_sidecar"] == 2


def test_version_1_is_refused_with_the_remedy_and_replaced_by_index(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    manifest = json.dumps({"format": "pqfast-index", "version": 1, "files": []}).encode()
    (lake / "_pqfast_index").write_bytes(b"PQFASTIX" + struct.pack("<II", 1, len(manifest)) + manifest)
    f = filters_for(paths)[0]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = pqfast.read_table(lake, filters=f)
    same_rows(got, lake, f)
    msg = " ".join(str(x.message) for x in w)
    assert "version 1" in msg and "again" in msg, msg
    pqfast.index(lake, ["id"], sidecar=True)
    assert len(_sidecar.read(str(lake / "_pqfast_index")).files) == N_FILES


# ---- hostile sidecars ----------------------------------------------------------------------


def _raw_manifest(data: bytes, raw: bytes) -> bytes:
    """The sidecar with its manifest replaced (the tails stay where they were)."""
    mlen = struct.unpack("<I", data[12:16])[0]
    return data[:12] + struct.pack("<I", len(raw)) + raw + data[16 + mlen:]


def _with_manifest(data: bytes, edit) -> bytes:
    m = json.loads(data[16:16 + struct.unpack("<I", data[12:16])[0]])
    edit(m)
    return _raw_manifest(data, json.dumps(m).encode())


def _tail_of(data: bytes, name: str):
    mlen = struct.unpack("<I", data[12:16])[0]
    e = next(x for x in json.loads(data[16:16 + mlen])["files"] if x["path"] == name)
    return e["offset"], e["length"]


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


def _junk_footer(data: bytes, name: str) -> bytes:
    """The tail's FileMetaData overwritten with 0xFF (no valid Thrift field header)."""
    end = sum(_tail_of(data, name))
    n = struct.unpack("<I", data[end - 8:end - 4])[0]
    return data[:end - 8 - n] + b"\xff" * n + data[end - 8:]


HOSTILE = {
    "bad magic": lambda d: b"PQFASTIY" + d[8:],
    "version 99": lambda d: d[:8] + struct.pack("<I", 99) + d[12:],
    "manifest past the end": lambda d: d[:12] + struct.pack("<I", 0xFFFFFFF0) + d[16:],
    "manifest not JSON": lambda d: d[:16] + b"x" + d[17:],
    "manifest cut": lambda d: d[:40],
    "manifest a list": lambda d: _with_manifest(d, lambda m: m.__setitem__("files", {"a": 1})),
    "tail past the end": lambda d: _with_manifest(d, lambda m: m["files"][0].__setitem__("length", 1 << 40)),
    "tail inside the manifest": lambda d: _with_manifest(d, lambda m: m["files"][0].__setitem__("offset", 3)),
    "negative length": lambda d: _with_manifest(d, lambda m: m["files"][0].__setitem__("length", -5)),
    "offset a string": lambda d: _with_manifest(d, lambda m: m["files"][0].__setitem__("offset", "12")),
    "absolute path": lambda d: _with_manifest(d, lambda m: m["files"][0].__setitem__("path", "/etc/passwd")),
    "path twice": lambda d: _with_manifest(d, lambda m: m["files"].append(dict(m["files"][0]))),
    "deep JSON": lambda d: _raw_manifest(d, b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    # Tails that lie: shifted by a byte, their trailer or their footer broken.
    "tail shifted": lambda d: _with_manifest(d, lambda m: [e.__setitem__("offset", e["offset"] + 1)
                                                           for e in m["files"]]),
    "trailer broken": lambda d: _flip(d, sum(_tail_of(d, "part-1.parquet")) - 1),
    "footer length huge": lambda d: _flip(d, sum(_tail_of(d, "part-1.parquet")) - 5),
    "footer garbage": lambda d: _junk_footer(d, "part-1.parquet"),
}


@pytest.fixture(scope="module")
def indexed_lake(tmp_path_factory):
    lake = tmp_path_factory.mktemp("hostile") / "lake"
    paths = write_lake(lake, seed=9)
    pqfast.index(lake, ["id", "key"], sidecar=True)
    return lake, paths, (lake / "_pqfast_index").read_bytes()


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_sidecar_is_ignored_with_a_warning(indexed_lake, case):
    lake, paths, good = indexed_lake
    a, b, _ = sample_ids(paths)
    f = [("id", "in", [a, b])]
    plain = pqfast.prune(lake, "id", [a, 5], sidecar=False)
    (lake / "_pqfast_index").write_bytes(HOSTILE[case](good))
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = pqfast.read_table(lake, filters=f)
            pr = pqfast.prune(lake, "id", [a, 5])
        same_rows(got, lake, f)
        assert got.num_rows == 2
        msgs = [str(x.message) for x in w]
        assert any("sidecar ignored" in m for m in msgs), (case, msgs)
        assert pr.equals(plain), case
    finally:
        (lake / "_pqfast_index").write_bytes(good)


def test_mutated_sidecar_headers_never_crash_a_read(indexed_lake):
    """Bytes of the header and manifest flipped, and the sidecar cut at many
    lengths: every read returns pyarrow.dataset's rows (with or without the
    sidecar, with a warning when it is not used); a bad tail never reaches
    the user as anything but a warning."""
    lake, paths, good = indexed_lake
    mlen = struct.unpack("<I", good[12:16])[0]
    rng = np.random.default_rng(11)
    a, b, _ = sample_ids(paths)
    f = [[("id", "=", a)], [("key", "=", f"k{b}")]]
    want = ds.dataset(str(lake)).to_table(filter=pq.filters_to_expression(f)).sort_by("id")
    cases = [good[:int(n)] for n in rng.integers(0, len(good), 12)]
    for _ in range(60):
        at = int(rng.integers(0, 16 + mlen))
        cases.append(good[:at] + bytes([int(rng.integers(0, 256))]) + good[at + 1:])
    try:
        for data in cases:
            (lake / "_pqfast_index").write_bytes(data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = pqfast.read_table(lake, filters=f)
                pqfast.prune(lake, "key", [f"k{b}"])
            assert got.select(want.column_names).sort_by("id").equals(want)
    finally:
        (lake / "_pqfast_index").write_bytes(good)


def test_kept_fingerprints_never_hide_a_rewrite(tmp_path, monkeypatch):
    """Readers keep fingerprints while a stat gives the same device, inode,
    size, mtime and ctime. A same-size rewrite whose writer puts the mtime
    back still moves the ctime: the file is hashed again and found changed."""
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    pqfast.index(lake, ["id"], sidecar=True)
    monkeypatch.setattr(_sidecar._StatCache, "_RACY_NS", 0)  # keep even fingerprints of files just written
    f = filters_for(paths)[0]
    _, st = pqfast.read_table(lake, filters=f, stats=True)
    assert st["files_with_sidecar"] == N_FILES
    assert str(paths[1]) in _sidecar._fingerprints.map
    old = os.stat(paths[1])
    data = bytearray(paths[1].read_bytes())
    at = data.rindex(b"parquet-cpp-arrow")
    data[at] = ord("P")  # created_by, in the footer: the file stays valid
    paths[1].write_bytes(bytes(data))
    os.utime(paths[1], ns=(old.st_atime_ns, old.st_mtime_ns))
    assert os.stat(paths[1]).st_mtime_ns == old.st_mtime_ns and os.stat(paths[1]).st_size == old.st_size
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got, st = pqfast.read_table(lake, filters=f, stats=True)
    same_rows(got, lake, f)
    assert st["files_with_sidecar"] == N_FILES - 1
    assert any("changed since" in str(x.message) and "part-1" in str(x.message) for x in w)


def test_a_sidecar_replaced_meanwhile_is_not_overwritten(tmp_path):
    """Two indexers of one lake: the one that read the sidecar before the
    other replaced it refuses to rename its own over it (as S3's If-Match)."""
    from pqfast._index_sidecar import LocalTarget

    lake = tmp_path / "lake"
    write_lake(lake)
    slow = LocalTarget(lake, True)
    assert slow.load_old() is None
    pqfast.index(lake, ["id"], sidecar=True)  # the other indexer, first to finish
    theirs = (lake / "_pqfast_index").read_bytes()
    with pytest.raises(pqfast.FormatError, match="another writer"):
        slow.write([])
    assert (lake / "_pqfast_index").read_bytes() == theirs
    assert not [p for p in os.listdir(lake) if ".tmp-" in p]  # its temporary is gone
    with pytest.raises(ValueError):
        pqfast.index(lake, ["id"], sidecar="s3://bucket/x")


def test_a_sidecar_elsewhere_names_the_files_relative_to_itself(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake)
    where = tmp_path / "indexes" / "lake.pqfastix"
    where.parent.mkdir()
    pqfast.index(lake, ["id"], sidecar=where)
    assert set(_sidecar.read(str(where)).files) == {f"../lake/{p.name}" for p in paths}
    a = sample_ids(paths)[0]
    assert "no_filter" in pqfast.prune(lake, "id", [a])["verdict"].to_pylist()  # not beside the files
    got = pqfast.prune(lake, "id", [a], sidecar=where)
    assert "no_filter" not in got["verdict"].to_pylist()
    assert got["verdict"].to_pylist().count("maybe") == 1
