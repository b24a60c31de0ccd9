"""`pqfast bench read-dictionary` end to end on a small lake: it checks each
engine's group-by over both tables against its own reader before timing, so
exit 0 and a full table mean the answers agreed (nothing is timed here)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def test_bench_read_dictionary_runs_on_a_small_lake(tmp_path):
    rng = np.random.default_rng(0)
    for i in range(2):
        n = 5000
        cats = np.array([f"cat-{k:02d}" for k in range(16)])
        t = pa.table({"category": pa.array(cats[rng.integers(0, 16, n)]), "amount": pa.array(rng.random(n)),
                      "quantity": pa.array(rng.integers(0, 100, n).astype(np.int32))})
        pq.write_table(t, tmp_path / f"part-{i:04d}.parquet", row_group_size=2000)
    proc = subprocess.run([sys.executable, "-m", "pqfast", "bench", "read-dictionary", "--lake", str(tmp_path),
                           "--files", "2", "--repeat", "1"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "pqfast, read_dictionary" in out and "pyarrow, read_dictionary" in out
    for engine in ("duckdb", "datafusion", "polars"):
        assert f"{engine}" in out
    assert "differs" not in out
