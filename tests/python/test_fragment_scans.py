"""How a fragment of a local dataset is scanned for an engine that scans many
fragments at once on its own threads (DataFusion's register_dataset starts
one stream per fragment, all together): the batches are decoded on the
thread that asks for them (the scan starts no thread of its own unless
``threads=``/``batch_readahead=`` ask), they come through the scanner's C
stream (equal to the dataset's rows, at most ``batch_size`` each, in the
dataset's schema), and a failed scan still raises its typed error."""

from __future__ import annotations

import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast


def _lake(root: str, files: int = 3, rows: int = 30000, group: int = 5000) -> list[str]:
    os.makedirs(root, exist_ok=True)
    paths = []
    for i in range(files):
        n = np.arange(i * rows, (i + 1) * rows, dtype=np.int64)
        t = pa.table({"id": n, "v": (n % 97).astype(np.float64),
                      "cat": pa.array([f"c{x % 7}" for x in n]),
                      "q": pa.array((n % 13).astype(np.int32), mask=(n % 11) == 0)})
        p = os.path.join(root, f"f{i}.parquet")
        pq.write_table(t, p, row_group_size=group)
        paths.append(p)
    return paths


def _threads_now() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc/self/task")
def test_a_fragment_decodes_on_the_consumers_thread(tmp_path):
    root = str(tmp_path / "t")
    _lake(root)
    ds = pqfast.dataset(root)
    frag = ds.get_fragments()[1]
    before = _threads_now()
    it = frag.scanner(ds.schema, columns=["cat", "v"], batch_size=1000).to_batches()
    first = next(it)
    during = _threads_now()
    rest = list(it)
    assert during == before  # no thread started for it
    assert first.num_rows == 1000 and sum(b.num_rows for b in rest) == 29000
    # Asked for threads, it has them (the dataset's own scans keep theirs).
    it = frag.scanner(columns=["cat"], threads=2).to_batches()
    next(it)
    assert _threads_now() >= before + 2
    it.close()
    # The dataset's own scan of these small files runs file tasks, whose
    # threads leave as soon as no file is left to take (counting them races
    # with that): every file read whole, by the scan's threads and the consumer.
    sc = ds.scanner(columns=["cat"], threads=2)
    assert sum(b.num_rows for b in sc.to_batches()) == ds.count_rows()
    assert sc.last_readahead.stats["files_whole"] == len(ds.files)


def test_fragment_batches_equal_the_dataset(tmp_path):
    root = str(tmp_path / "e")
    _lake(root, files=4, rows=12345, group=3000)
    ds = pqfast.dataset(root)
    frags = ds.get_fragments()
    for cols in (None, ["cat"], ["q", "id"]):
        for bs in (1, 777, 8192, 1 << 20):
            if bs == 1 and cols is None:
                continue  # (49,380 one-row batches: slow, nothing more to see)
            batches = [b for f in frags for b in f.scanner(ds.schema, columns=cols, batch_size=bs).to_batches()]
            assert all(0 < b.num_rows <= bs for b in batches)
            sc = ds.scanner(columns=cols)
            assert all(b.schema.equals(sc.projected_schema, check_metadata=True) for b in batches)
            got = pa.Table.from_batches(batches, schema=sc.projected_schema)
            assert got.equals(sc.to_table()), (cols, bs)
            assert got.equals(pq.read_table(root, columns=cols)), (cols, bs)
    # Row groups of a fragment, and no column (row counts only).
    f = frags[2]
    sub = pqfast.dataset(root).get_fragments()[2]
    assert sum(b.num_rows for b in f.scanner(columns=[]).to_batches()) == 12345
    assert sub.to_table(columns=["id"]).column(0).to_pylist() == list(range(2 * 12345, 3 * 12345))


def test_fragment_errors_stay_typed(tmp_path):
    root = str(tmp_path / "x")
    paths = _lake(root, files=2, rows=20000)
    ds = pqfast.dataset(root)
    frags = ds.get_fragments()
    with pytest.raises(pqfast.MemoryLimitError):
        frags[0].to_table(memory_limit=1000)
    ds.count_rows()  # footers read; then the pages of the second file corrupted
    data = bytearray(open(paths[1], "rb").read())
    data[4:2000] = b"\xff" * 1996
    open(paths[1], "wb").write(bytes(data))
    assert frags[0].to_table(columns=["id"]).num_rows == 20000
    with pytest.raises(pqfast.FormatError):
        for _ in frags[1].scanner(columns=["id"], batch_size=100).to_batches():
            pass
