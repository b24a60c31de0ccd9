"""`pqfast bench sbbf`: SBBF probe cost per implementation and footprint."""

from __future__ import annotations

import json
import statistics

from .. import _pqfast
from .._progress import Progress
from .._table import format_table

NAME = "sbbf"
HELP = "SBBF probes: classic early-exit scalar vs each SIMD implementation, single and batched."

MiB = 1 << 20


def add_arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="fewer probes and repetitions (seconds, not minutes)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    p.add_argument("--runs", type=int, default=1, help="repeat the whole benchmark and report medians")


def measure(quick: bool, runs: int = 1, progress: Progress | None = None) -> list[dict]:
    footprints = [512 * 1024, 128 * MiB]
    probes = (1 << 20) if quick else (1 << 22)
    reps = 3 if quick else 5
    cb = progress.message if progress else None
    all_runs = [_pqfast._bench_sbbf(footprints, probes, reps, cb) for _ in range(max(1, runs))]
    rows = all_runs[0]
    for i, row in enumerate(rows):
        row["ns_per_op"] = statistics.median(r[i]["ns_per_op"] for r in all_runs)
    # Ratio to the classic scalar loop at the same footprint.
    classic = {r["footprint_bytes"]: r["ns_per_op"] for r in rows if r["mode"] == "classic"}
    for r in rows:
        r["speedup_vs_classic"] = classic[r["footprint_bytes"]] / r["ns_per_op"]
    return rows


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    rows = measure(args.quick, args.runs, progress)
    progress.close()
    if args.json:
        for r in rows:
            print(json.dumps({k: r[k] for k in ("footprint_bytes", "implementation", "mode", "ns_per_op", "speedup_vs_classic")}))
        return 0
    print(f"SBBF probe, ns per probe after hashing (50% hits), SIMD active: {_pqfast.simd_level()}")
    print(format_table(
        ["footprint", "mode", "implementation", "ns/probe", "vs classic"],
        [[r["label"], r["mode"], r["implementation"], r["ns_per_op"], f"{r['speedup_vs_classic']:.2f}x"] for r in rows],
    ))
    return 0
