"""Regenerates the streaming scanner's test files (tests/cpp/scanner_test.cc):
small files of several row groups, with nulls, strings, dictionaries, booleans
and a page index, so that needs/feed, batch slicing and filtered units are
exercised on real layouts. Run: python tests/data/scanner/gen_scanner.py"""
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))


def table(n: int, seed: int) -> pa.Table:
    ids = list(range(seed * 100000, seed * 100000 + n))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 11 == 0 else f"name-{i % 37}" for i in ids], pa.string()),
        "v": pa.array([None if i % 7 == 0 else i * 0.5 for i in ids], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in ids], pa.bool_()),
        "k": pa.array([i % 5 for i in ids], pa.int32()),
    })


def main() -> None:
    pq.write_table(table(3000, 1), os.path.join(HERE, "multi_rg_a.parquet"), row_group_size=700,
                   compression="snappy", data_page_size=2048, write_page_index=True, use_dictionary=["name"])
    pq.write_table(table(1000, 2), os.path.join(HERE, "multi_rg_b.parquet"), row_group_size=400,
                   compression="zstd", data_page_version="2.0", write_statistics=True)


if __name__ == "__main__":
    main()
