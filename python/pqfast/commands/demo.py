"""`pqfast demo`: build Bloom filters from a generated column, probe them, and
time the probe paths. The main job's entry point (see README)."""

from __future__ import annotations

import time

import numpy as np

NAME = "demo"
HELP = "Build filters from a generated column, probe them, print answers and a short speed table."


def add_arguments(p) -> None:
    p.add_argument("--rows", type=int, default=1_000_000, help="rows in the generated column")
    p.add_argument("--fpp", type=float, default=0.01, help="target false-positive probability")
    p.add_argument("--no-bench", action="store_true", help="skip the speed table")


def run(args) -> int:
    import pqfast
    from .._table import format_table

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

    if not args.no_bench:
        from ..benches import sbbf as sbbf_bench
        from .._progress import Progress

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
