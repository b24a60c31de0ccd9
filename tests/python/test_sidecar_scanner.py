"""Local sidecar indexes read by the streaming scanner (issue 30): a filtered
read_table of a lake whose sidecar holds Bloom filters and page indexes goes
through the scanner's lean route (``_filtered_scan.read_filtered``), each
file pruned and read as data file + tail by LocalScan; the rows are
pyarrow.dataset's and the counts (row groups pruned by Bloom filters, pages
read) those the dataset scan gives with the same sidecar (the engine's own
call, the reference before, is gone). Dataset scans of such a lake use the
sidecar too."""

from __future__ import annotations

import warnings

import pytest

import pqfast
from pqfast import _filtered_scan, _pqfast, _read_local, _sidecar, scan

from test_sidecar_v2 import N_FILES, filters_for, same_rows, write_lake

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

_COUNTED = ("row_groups", "row_groups_pruned_by_statistics", "row_groups_pruned_by_bloom",
            "row_groups_pruned_by_page_index", "row_groups_read", "pages_read", "pages_skipped", "rows")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    lake = tmp_path_factory.mktemp("sidecar_scanner") / "lake"
    paths = write_lake(lake, seed=21)
    pqfast.index(lake, ["id", "key"], sidecar=True)
    return lake, [str(p) for p in paths]


@pytest.fixture
def scanner_only(monkeypatch):
    """Counts reads through the scanner's lean route (the one route left:
    the engine's own call is gone)."""
    calls = []
    real = _filtered_scan.read_filtered

    def counting(*a, **k):
        calls.append(k.get("sidecar", a[9] if len(a) > 9 else None))
        return real(*a, **k)

    monkeypatch.setattr(scan, "read_filtered", counting)
    assert not hasattr(_pqfast, "_scan_local")
    return calls


def _dataset_with_sidecar(lake, filters):
    """What the dataset scan reads of the same lake (the lean route
    declined): LocalScan given the sidecar's tails by ``local_batches``,
    the engine run per unit; its rows and counts, which the lean route's
    must equal."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_read_local, "lean_scan", lambda *a, **k: None)
        return pqfast.read_table(lake, filters=filters, stats=True, threads=1)


def test_read_table_reads_sidecar_lakes_through_the_scanner(indexed, scanner_only):
    lake, paths = indexed
    for f in filters_for([lake / "part-0.parquet", lake / "part-1.parquet"]):
        before = len(scanner_only)
        got, st = pqfast.read_table(lake, filters=f, stats=True, threads=1)
        assert len(scanner_only) == before + 1 and scanner_only[-1] is not None, f
        same_rows(got, lake, f)
        assert st["files_with_sidecar"] == N_FILES


def test_the_lean_route_prunes_as_the_dataset_scan_does_with_the_sidecar(indexed):
    lake, paths = indexed
    for f in filters_for([lake / "part-0.parquet", lake / "part-1.parquet"]):
        want, old = _dataset_with_sidecar(lake, f)
        got, st = pqfast.read_table(lake, filters=f, stats=True, threads=1)
        assert got.equals(want), f
        same_rows(got, lake, f)
        assert st["files_with_sidecar"] == N_FILES
        for k in _COUNTED:
            assert st[k] == old[k], (f, k, st, old)
        # And the sidecar pays: more pruned, fewer pages than the files alone.
        _, alone = _read_local.scan_table(lake, filters=f, stats=True, use_bloom=False, use_page_index=False)
        assert st["pages_read"] <= alone["pages_read"], (f, st, alone)


def test_dataset_scans_use_the_sidecar(indexed):
    lake, paths = indexed
    a = pq.read_table(paths[1], columns=["id"])["id"].to_pylist()[123]
    dset = pqfast.dataset(lake)
    expr = pa.compute.field("id") == a
    got = dset.to_table(filter=expr)
    want = ds.dataset(str(lake)).to_table(filter=expr)
    assert got.num_rows == 1 and got.sort_by("id").equals(want.select(got.column_names).sort_by("id"))
    st = dset.scan_stats
    assert st["route"] == "scanner"
    # The lake's own files have no Bloom filter: only the sidecar's prune them.
    assert st["row_groups_pruned_by_bloom"] + st["row_groups_pruned_by_statistics"] == st["row_groups"] - 1, st


def test_a_tail_that_does_not_parse_reads_the_files_alone_with_a_warning(tmp_path):
    lake = tmp_path / "lake"
    paths = write_lake(lake, seed=3)
    pqfast.index(lake, ["id"], sidecar=True)
    side = lake / "_pqfast_index"
    sc = _sidecar.read(str(side))
    e = sc.files["part-1.parquet"]
    data = bytearray(side.read_bytes())
    # The tail's footer length (its last 8 bytes: u32 length, "PAR1") made too large.
    end = e.offset + e.length
    data[end - 8:end - 4] = (e.length * 4).to_bytes(4, "little")
    side.write_bytes(bytes(data))
    f = filters_for(paths)[0]
    for read in (lambda: pqfast.read_table(lake, filters=f),
                 lambda: pqfast.dataset(lake).to_table(filter=pq.filters_to_expression(f))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = read()
        same_rows(got, lake, f)
        assert any("sidecar ignored" in str(x.message) for x in w), [str(x.message) for x in w]
