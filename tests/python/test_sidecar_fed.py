"""Sidecar indexes of fed sources (issue 30): s3:// objects (SeaweedFS) and
``filesystem=`` paths (pyarrow's LocalFileSystem, fsspec's memory
filesystem) are read as object + tail by the C++ scanner's overlay
(``ScanPlanFile::sidecar_tail``, the mapping local files use too), the I/O
loop reading the ranges the scanner places in the sidecar from it. Over
random filters the rows equal pyarrow.dataset's and the local read's, the
scan engine's counts (row groups pruned by Bloom filters, pages read) equal
the local sidecar'd read's, and the stats count the files read with a tail
(``files_with_sidecar``): the route. A stale entry is warned about and its
file read as it is, a hostile sidecar ignored with a warning, on both sides
alike."""

from __future__ import annotations

import random
import warnings

import pytest

import pqfast

from s3_fixtures import opts, proxy, s3  # noqa: F401
from test_sidecar_v2 import HOSTILE, N_FILES, same_rows, write_lake

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pafs = pytest.importorskip("pyarrow.fs")

# The scan engine's counts a fed read must share with the local one. (Not
# "row_groups" / "row_groups_pruned_by_statistics": a fed scan of files with
# Bloom filters, in the file or a sidecar, counts under an OR filter row
# groups its footers' statistics ruled out twice, on main before sidecars
# were fed too.)
_COUNTED = ("row_groups_pruned_by_bloom", "row_groups_read", "pages_read", "pages_skipped", "rows")


def random_filters(paths, n: int, seed: int) -> list:
    """Lookups, lists, ranges and key lookups over ids the lake holds (and some it does not)."""
    rng = random.Random(seed)
    ids = [pq.read_table(p, columns=["id"])["id"].to_pylist() for p in paths]
    out = []
    for _ in range(n):
        f = ids[rng.randrange(len(ids))]
        a = f[rng.randrange(len(f))]
        kind = rng.randrange(5)
        if kind == 0:
            out.append([("id", "=", a)])
        elif kind == 1:
            out.append([("id", "in", [a, f[rng.randrange(len(f))], a + 1, 7])])
        elif kind == 2:
            out.append([("key", "=", f"k{a}")])
        elif kind == 3:
            out.append([("id", ">=", a), ("id", "<", a + rng.randrange(1, 20_000))])
        else:
            out.append([[("id", "=", a)], [("key", "=", f"k{f[rng.randrange(len(f))]}")]])
    return out


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    lake = tmp_path_factory.mktemp("sidecar_fed") / "lake"
    paths = write_lake(lake, seed=31)
    pqfast.index(lake, ["id", "key"], sidecar=True)
    return lake, paths


def _memory_copy(lake, name: str):
    """The lake's files and its sidecar in fsspec's memory filesystem (a fresh directory)."""
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    root = f"/pqfast-sidecar-fed/{name}"
    if fs.exists(root):
        fs.rm(root, recursive=True)
    for p in sorted(lake.iterdir()):
        fs.pipe(f"{root}/{p.name}", p.read_bytes())
    return fs, root


def _check_like_local(lake, source, f, **kw):
    local, lst = pqfast.read_table(lake, filters=f, stats=True)
    got, st = pqfast.read_table(source, filters=f, stats=True, **kw)
    same_rows(got, lake, f)
    assert got.sort_by("id").equals(local.sort_by("id")), f
    assert lst["files_with_sidecar"] == N_FILES
    # (The files the footers' statistics did not rule out before the scan.)
    assert 1 <= st["files_with_sidecar"] <= N_FILES, (f, st)
    assert {k: st[k] for k in _COUNTED} == {k: lst[k] for k in _COUNTED}, f
    return st


@pytest.mark.parametrize("backend", ["pyarrow-local", "fsspec-memory"])
def test_filesystem_lakes_read_their_sidecar_through_the_scanner(indexed, backend):
    lake, paths = indexed
    if backend == "pyarrow-local":
        fs, root = pafs.LocalFileSystem(), str(lake)
    else:
        fs, root = _memory_copy(lake, "read")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fresh sidecar: no warning
        for f in random_filters(paths, 12, seed=3):
            st = _check_like_local(lake, root, f, filesystem=fs)
            assert st["route"] == "scanner" and "sidecar" in [r["what"] for r in st["round_detail"]]
    # Without the sidecar the same lookup reads more pages (the sidecar's page indexes narrow them).
    if backend == "fsspec-memory":
        a = [("id", "=", pq.read_table(paths[1], columns=["id"])["id"][123].as_py())]
        _, with_side = pqfast.read_table(root, filters=a, filesystem=fs, stats=True)
        fs.rm(f"{root}/_pqfast_index")
        _, alone = pqfast.read_table(root, filters=a, filesystem=fs, stats=True)
        assert "files_with_sidecar" not in alone and with_side["pages_read"] * 3 < alone["pages_read"], (with_side,
                                                                                                        alone)


def test_a_changed_file_is_stale_on_both_sides_alike(indexed, tmp_path):
    lake, paths = indexed
    import shutil

    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    shutil.copy(copy / "part-2.parquet", copy / "part-0.parquet")  # another writer replaced it
    fs, root = _memory_copy(copy, "stale")
    a = pq.read_table(paths[1], columns=["id"])["id"][500].as_py()
    f = [("id", "in", [a, pq.read_table(paths[2], columns=["id"])["id"][9].as_py()])]
    seen = {}
    for side, (source, kw) in {"local": (copy, {}), "filesystem": (root, {"filesystem": fs})}.items():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got, st = pqfast.read_table(source, filters=f, stats=True, **kw)
        same_rows(got, copy, f)
        assert got.num_rows == 3  # the replaced file holds part-2's id too
        seen[side] = [str(x.message) for x in w if "changed since" in str(x.message)]
        assert len(seen[side]) == 1 and "part-0.parquet" in seen[side][0], (side, seen[side])
        assert st["files_with_sidecar"] == N_FILES - 1, (side, st)  # (every file holds an id)


@pytest.mark.parametrize("case", ["bad magic", "manifest cut", "tail past the end", "tail shifted",
                                  "trailer broken", "footer garbage"])
def test_a_hostile_sidecar_is_ignored_on_both_sides_alike(indexed, tmp_path, case):
    lake, paths = indexed
    import shutil

    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    side = copy / "_pqfast_index"
    side.write_bytes(HOSTILE[case](side.read_bytes()))
    fs, root = _memory_copy(copy, "hostile")
    ids = pq.read_table(paths[1], columns=["id"])["id"]
    f = [("id", "in", [ids[10].as_py(), ids[20_000].as_py()])]
    for where, (source, kw) in {"local": (copy, {}), "filesystem": (root, {"filesystem": fs})}.items():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = pqfast.read_table(source, filters=f, **kw)
        same_rows(got, copy, f)
        assert got.num_rows == 2
        assert any("sidecar ignored" in str(x.message) for x in w), (where, case, [str(x.message) for x in w])


def test_s3_lakes_read_their_sidecar_through_the_scanner(s3, opts, proxy, indexed):  # noqa: F811
    from pqfast import _testlake

    lake, paths = indexed
    prefix = "sc-fed"
    _testlake.upload(s3.store(), [str(p) for p in paths], prefix)
    pattern = f"s3://{s3.bucket}/{prefix}/*.parquet"
    urls = [f"s3://{s3.bucket}/{prefix}/{p.name}" for p in paths]
    pqfast.index(pattern, ["id", "key"], sidecar=True, storage_options=opts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k, f in enumerate(random_filters(paths, 12, seed=5)):
            source = pattern if k % 2 == 0 else urls
            proxy.reset()
            st = _check_like_local(lake, source, f, storage_options=opts)
            assert proxy.stats()["requests"] == st["requests"], st["round_detail"]
    # Warm, the same lookup again: what pruning learned is kept under the
    # object's and the sidecar's versions (no footer read again).
    a = [("id", "=", pq.read_table(paths[1], columns=["id"])["id"][123].as_py())]
    _, first = pqfast.read_table(pattern, filters=a, storage_options=opts, stats=True)
    _, again = pqfast.read_table(pattern, filters=a, storage_options=opts, stats=True)
    assert again["requests"] <= first["requests"] and again["rounds"] <= 5, (first["round_detail"],
                                                                            again["round_detail"])
