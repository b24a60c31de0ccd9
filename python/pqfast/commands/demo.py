"""`pqfast demo`: build Bloom filters from a generated column, probe them, and
time the probe paths. The main job's entry point (see README)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import pqfast
from .._progress import Progress
from .._table import format_table
from ..benches import sbbf as sbbf_bench

NAME = "demo"
HELP = "Build filters from a generated column, probe them, print answers and a short speed table."


def add_arguments(p) -> None:
    p.add_argument("--rows", type=int, default=1_000_000, help="rows in the generated column")
    p.add_argument("--fpp", type=float, default=0.01, help="target false-positive probability")
    p.add_argument("--no-bench", action="store_true", help="skip the speed table")
    p.add_argument("--no-lake", action="store_true", help="skip the lake-pruning part")
    p.add_argument("--lake-files", type=int, default=20, help="files in the generated lake")


def run(args) -> int:
    print(f"pqfast {pqfast.__version__}, SIMD implementation: {pqfast.simd_level()} "
          f"(available: {', '.join(pqfast.available_simd_levels())})\n")
    rng = np.random.default_rng(2026)
    ids = rng.choice(np.int64(1) << 40, size=args.rows, replace=False).astype(np.int64)
    names = [f"customer-{i:08d}" for i in range(0, args.rows, 97)]

    t0 = time.perf_counter()
    f = pqfast.Sbbf.for_ndv(args.rows, args.fpp)
    f.insert(ids, "INT64")
    build_s = time.perf_counter() - t0
    g = pqfast.Sbbf.for_ndv(len(names), args.fpp)
    g.insert(names, "BYTE_ARRAY")
    print(f"INT64 column: {args.rows:,} values -> {f.num_bytes:,}-byte filter "
          f"(fill {f.fill_ratio():.1%}), built in {build_s * 1e3:.1f} ms")
    print(f"BYTE_ARRAY column: {len(names):,} values -> {g.num_bytes:,}-byte filter\n")

    present = ids[:3]
    absent = np.array([-1, 7, 123456789], dtype=np.int64)
    absent = absent[~np.isin(absent, ids)]
    rows = [["INT64", int(v), "yes", "maybe" if a else "absent"] for v, a in zip(present, f.check(present, "INT64"))]
    rows += [["INT64", int(v), "no", "maybe" if a else "absent"] for v, a in zip(absent, f.check(absent, "INT64"))]
    probe_names = [names[0], names[-1], "customer-not-there", "nobody"]
    rows += [["BYTE_ARRAY", s, "yes" if s in names[:1] + names[-1:] else "no", "maybe" if a else "absent"]
             for s, a in zip(probe_names, g.check(probe_names, "BYTE_ARRAY"))]
    print(format_table(["type", "value", "inserted", "verdict"], rows))

    others = rng.integers(-(1 << 62), 1 << 62, size=1_000_000, dtype=np.int64)
    others = others[~np.isin(others, ids)]
    fp = float(f.check(others, "INT64").mean())
    assert f.check(ids, "INT64").all(), "a Bloom filter never forgets an inserted value"
    print(f"\nAll {args.rows:,} inserted values answer 'maybe'; measured false-positive rate on "
          f"{len(others):,} other values: {fp:.3%} (target {args.fpp:.1%})")

    if not args.no_lake:
        _lake_demo(args.lake_files)

    if not args.no_bench:
        print("\nShort speed table (pqfast bench sbbf --quick):")
        progress = Progress()
        bench_rows = sbbf_bench.measure(quick=True, progress=progress)
        progress.close()
        print(format_table(
            ["footprint", "mode", "implementation", "ns/probe", "vs classic"],
            [[r["label"], r["mode"], r["implementation"], r["ns_per_op"], f"{r['speedup_vs_classic']:.2f}x"]
             for r in bench_rows],
        ))
    return 0


def _lake_demo(n_files: int) -> None:
    """Write a small lake with pyarrow's Bloom filters, then prune it with pqfast."""
    groups, rows_per_group = 4, 5000
    print(f"\nA lake: {n_files} Parquet files x {groups} row groups x {rows_per_group:,} rows, written by "
          f"pyarrow {pa.__version__} with Bloom filters on user_id (int64) and email (string)")
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory(prefix="pqfast-demo-lake-") as tmp:
        d = Path(tmp)
        for i in range(n_files):
            n = groups * rows_per_group
            # Ids are random across the whole lake, so min/max cannot prune: the filters must.
            ids = pa.array(rng.integers(0, 1 << 40, size=n, dtype=np.int64))
            emails = pc.binary_join_element_wise(pa.scalar("user"), pc.cast(ids, pa.string()),
                                                 pa.scalar("@example.com"), "")
            t = pa.table({"user_id": ids, "email": emails, "amount": pa.array(rng.random(n))})
            pq.write_table(t, d / f"part-{i:03d}.parquet", row_group_size=rows_per_group,
                           bloom_filter_options={"user_id": {"ndv": rows_per_group, "fpp": 0.01},
                                                 "email": {"ndv": rows_per_group, "fpp": 0.01}})
        f = pqfast.ParquetFile(d / "part-000.parquet")
        c = f.row_group(0).column(0)
        bf = c.bloom_filter()
        print(f"part-000.parquet: {f.num_rows:,} rows, {f.num_row_groups} row groups; user_id chunk 0: "
              f"{'/'.join(c.encodings)}, Bloom filter at byte {c.bloom_filter_offset:,} "
              f"({c.bloom_filter_length:,} bytes, fill {bf.fill_ratio():.1%})")

        # Look for 3 ids that are in the lake (one row group each) and 2 that are not.
        some = pq.read_table(d / "part-007.parquet" if n_files > 7 else d / "part-000.parquet",
                             columns=["user_id", "email"])
        present = [int(some["user_id"][k].as_py()) for k in (10, 7000, 19000)]
        values = present + [-42, 1 << 41]
        t0 = time.perf_counter()
        table = pqfast.prune(str(d / "*.parquet"), "user_id", values, by_value=True)
        dt_ms = (time.perf_counter() - t0) * 1e3
        verdicts = table["verdict"].to_pylist()
        rows = []
        for k, v in enumerate(values):
            mine = [i for i in range(table.num_rows) if i % len(values) == k]
            kept = [i for i in mine if verdicts[i] != "absent"]
            where = ", ".join(f"{Path(table['path'][i].as_py()).name}#{table['row_group'][i].as_py()}"
                              for i in kept[:3]) + (" ..." if len(kept) > 3 else "")
            by_mm = sum(1 for i in mine if table["reason"][i].as_py() == "min/max")
            rows.append([v, "yes" if v in present else "no", len(mine), len(kept), by_mm,
                         len(mine) - len(kept) - by_mm, where or "-"])
        print(f"\npqfast.prune over {n_files} files ({table.num_rows // len(values)} row groups), "
              f"{len(values)} values, {dt_ms:.1f} ms:")
        print(format_table(["user_id", "in lake", "row groups", "maybe", "absent: min/max",
                            "absent: bloom", "kept (file#row group)"], rows))
        summary = pqfast.prune(str(d / "*.parquet"), "email", [f"user{present[0]}@example.com", "nobody@example.com"])
        kept = summary.filter(pc.not_equal(summary["verdict"], "absent"))
        print(f"\nBy email (2 values): {kept.num_rows} of {summary.num_rows} row groups to read; first rows of the "
              f"verdict table:")
        rows_all = summary.to_pylist()
        head = [r for r in rows_all if r["verdict"] != "absent"][:3] + [r for r in rows_all if r["verdict"] == "absent"][:3]
        print(format_table(["path", "row_group", "verdict", "reason"],
                           [[Path(r["path"]).name, r["row_group"], r["verdict"], r["reason"]] for r in head]))
        got, read = pqfast.read_table(str(d / "*.parquet"), columns=["user_id", "email"],
                                      filters=[("user_id", "in", values)], stats=True)
        print(f"\npqfast.read_table(filters=[('user_id', 'in', ...)]): {got.num_rows} matching rows "
              f"(ids {sorted(got['user_id'].to_pylist())}), reading {read['row_groups_read']} of "
              f"{read['row_groups']} row groups, {read['pages_read']} pages, {read['bytes_read']:,} bytes "
              f"in {read['seconds'] * 1e3:.1f} ms")
        assert sorted(got["user_id"].to_pylist()) == sorted(present), "every present id is found"
