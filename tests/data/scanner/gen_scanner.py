"""Regenerates the streaming scanner's test files (tests/cpp/scanner_test.cc):
small files of several row groups, with nulls, strings, dictionaries, booleans
and a page index, so that needs/feed, batch slicing and filtered units are
exercised on real layouts; and nested_rg.parquet, nested fields (a list of
strings, a struct with nulls, a map, a list of structs of lists) over several
row groups, for the scanner's nested path. Run: python tests/data/scanner/gen_scanner.py
(``--nested``: nested_rg.parquet alone)."""
import os
import sys

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


def nested_table(n: int) -> pa.Table:
    """Row i: lists of 0..4 strings (null every 9th, empty every 5th), a
    struct null every 7th with a null field every 4th, a map of 0..2 keys
    (null every 6th), and a list of structs of int64 lists."""
    ls, st, m, deep = [], [], [], []
    for i in range(n):
        ls.append(None if i % 9 == 0 else [None if (i + j) % 6 == 0 else f"s{i}-{j}" for j in range(i % 5)])
        st.append(None if i % 7 == 0 else {"a": None if i % 4 == 0 else i, "b": f"b{i % 13}"})
        m.append(None if i % 6 == 0 else [(f"k{j}", i * 10 + j) for j in range(i % 3)])
        deep.append([{"x": [i, i + j] if j % 2 else None} for j in range(i % 3)])
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "ls": pa.array(ls, pa.list_(pa.string())),
        "st": pa.array(st, pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "m": pa.array(m, pa.map_(pa.string(), pa.int64())),
        "deep": pa.array(deep, pa.list_(pa.struct([("x", pa.list_(pa.int64()))]))),
    })


def nested() -> None:
    pq.write_table(nested_table(500), os.path.join(HERE, "nested_rg.parquet"), row_group_size=150,
                   compression="none", data_page_size=512)


def main() -> None:
    nested()
    pq.write_table(table(3000, 1), os.path.join(HERE, "multi_rg_a.parquet"), row_group_size=700,
                   compression="snappy", data_page_size=2048, write_page_index=True, use_dictionary=["name"])
    pq.write_table(table(1000, 2), os.path.join(HERE, "multi_rg_b.parquet"), row_group_size=400,
                   compression="zstd", data_page_version="2.0", write_statistics=True)


if __name__ == "__main__":
    nested() if "--nested" in sys.argv[1:] else main()
