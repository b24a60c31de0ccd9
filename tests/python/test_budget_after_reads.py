"""A read's memory limit holds the same whatever ran before it in the
process: blocks that earlier reads left in the buffer pool (possibly larger
than asked) are not charged beyond the request's own size, so a filtered
dataset scan that fits 4 MiB fresh fits it after a whole read too (it used to
fail only when run after other tests)."""
import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

import pqfast


def _lake(root, files=4, groups=5, rows=60000):
    root.mkdir()
    for i in range(files):
        t = pa.table({"id": np.arange(i * groups * rows, (i + 1) * groups * rows, dtype=np.int64),
                      "x": np.random.default_rng(i).random(groups * rows)})
        pq.write_table(t, root / f"f{i}.parquet", row_group_size=rows)
    return str(root)


def _scan(root):
    ds = pqfast.dataset(root)
    return ds.scanner(filter=[("id", ">=", 1000)], memory_limit=4 << 20, batch_size=5000).to_table()


def test_a_small_limit_scan_fits_after_larger_reads(tmp_path, monkeypatch):
    pqfast.clear_footer_cache()
    root = _lake(tmp_path / "lake")
    want = pads.dataset(root).to_table(filter=pads.field("id") >= 1000)
    # A whole read of larger row groups first leaves larger blocks in the pool.
    big = str(tmp_path / "big.parquet")
    pq.write_table(pa.table({"x": np.arange(400_000, dtype=np.int64), "y": np.ones(400_000)}), big,
                   row_group_size=100_000)
    monkeypatch.setenv("PQFAST_READ_ROUTE", "scanner")
    assert pqfast.read_table(big, memory_limit=64 << 20).num_rows == 400_000
    assert _scan(root).equals(want)
