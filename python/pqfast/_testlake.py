"""Lakes for the object-storage tests and `pqfast bench lake`: files written
by pyarrow (Bloom filters just before the footer) or by DataFusion's
arrow-rs writer (filters after each row group), uploaded to a store.

Each file i holds ids (i << 32) + random 31-bit values: disjoint ranges per
file (a time-partitioned lake), so min/max rule most files out and the
filters decide within the range. ``key`` is "key-<id>".
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def file_ids(i: int, rows: int, seed: int = 2026) -> np.ndarray:
    rng = np.random.default_rng([seed, i])
    return (np.int64(i) << 32) + rng.choice(np.int64(1) << 31, size=rows, replace=False).astype(np.int64)


def _table(i: int, rows: int):
    ids = pa.array(file_ids(i, rows))
    key = pc.binary_join_element_wise(pa.scalar("key-"), pc.cast(ids, pa.string()), "")
    amount = pa.array(np.random.default_rng([7, i]).random(rows))
    return pa.table({"id": ids, "key": key, "amount": amount})


def write_pyarrow(path: str, i: int, row_groups: int = 4, rows_per_group: int = 2000, fpp: float = 0.01) -> None:
    pq.write_table(_table(i, row_groups * rows_per_group), path, row_group_size=rows_per_group,
                   bloom_filter_options={"id": {"ndv": rows_per_group, "fpp": fpp},
                                         "key": {"ndv": rows_per_group, "fpp": fpp}})


def write_arrow_rs(path: str, i: int, row_groups: int = 4, rows_per_group: int = 2000, fpp: float = 0.01) -> None:
    """The same table through DataFusion (arrow-rs): Bloom filters after each row group."""
    import datafusion

    ctx = datafusion.SessionContext()
    ctx.register_record_batches("t", [_table(i, row_groups * rows_per_group).to_batches()])
    ctx.sql(
        f"COPY (SELECT * FROM t) TO '{path}' STORED AS PARQUET OPTIONS ("
        f"'format.bloom_filter_on_write' 'true', 'format.bloom_filter_fpp' '{fpp}', "
        f"'format.bloom_filter_ndv' '{rows_per_group}', 'format.max_row_group_size' '{rows_per_group}', "
        f"'execution.parquet.allow_single_file_parallelism' 'false')").collect()


def write_local(d: str, n: int, writer=write_pyarrow, threads: int = 2, **kw) -> list[str]:
    """Files d/part-00000.parquet ... (skipped when present with the stamp)."""
    os.makedirs(d, exist_ok=True)
    paths = [os.path.join(d, f"part-{i:05d}.parquet") for i in range(n)]
    todo = [(i, p) for i, p in enumerate(paths) if not os.path.exists(p)]
    if todo:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda ip: writer(ip[1] + ".tmp", ip[0], **kw) or os.replace(ip[1] + ".tmp", ip[1]), todo))
    return paths


def upload(store, paths: list[str], prefix: str, concurrency: int = 64) -> list[str]:
    """Puts each local file at prefix/<name>; returns the keys."""
    import obstore

    keys = [f"{prefix.rstrip('/')}/{os.path.basename(p)}" for p in paths]

    async def go():
        sem = asyncio.Semaphore(concurrency)

        async def one(p, k):
            async with sem:
                with open(p, "rb") as f:
                    data = f.read()
                await obstore.put_async(store, k, data)

        await asyncio.gather(*(one(p, k) for p, k in zip(paths, keys)))

    asyncio.run(go())
    return keys
