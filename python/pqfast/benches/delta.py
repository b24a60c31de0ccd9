"""`pqfast bench delta`: DELTA_BINARY_PACKED decode throughput per width class,
next to memcpy of the output and Arrow C++ 26's decoder on the same pages."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from pathlib import Path

from .. import _pqfast
from .._progress import Progress
from .._table import format_table

NAME = "delta"
HELP = ("DELTA_BINARY_PACKED decode, G values/s per width class for INT32 and INT64 pages of 64K "
        "values: each SIMD implementation, memcpy of the output, Arrow C++ 26 in the same run.")

PAGE_VALUES = 1 << 16
CLASSES = ["0", "1-8", "9-16", "17-32", "33-64"]
PEER = "arrow_delta_bench"


def add_arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="fewer repetitions (about a second)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    p.add_argument("--runs", type=int, default=1, help="repeat the whole benchmark and report medians")
    p.add_argument("--no-arrow", action="store_true", help="skip the Arrow C++ side-by-side driver")


def find_peer() -> Path | None:
    """The Arrow C++ driver: $PQFAST_ARROW_DELTA_BENCH, else <build>/peers next to this module's build."""
    env = os.environ.get("PQFAST_ARROW_DELTA_BENCH")
    if env:
        return Path(env) if Path(env).is_file() else None
    here = Path(_pqfast.__file__).resolve()
    candidates = []
    if os.environ.get("PQFAST_BUILD_DIR"):
        candidates.append(Path(os.environ["PQFAST_BUILD_DIR"]) / "peers" / PEER)
    candidates += [here.parents[2] / "peers" / PEER,  # <build>/python/pqfast/_pqfast*.so
                   here.parents[3] / "build" / "dev" / "peers" / PEER]
    return next((c for c in candidates if c.is_file()), None)


def _run_peer(peer: Path, quick: bool) -> list[dict]:
    args = [str(peer), "--values", str(PAGE_VALUES)] + (["--quick"] if quick else [])
    out = subprocess.run(args, capture_output=True, text=True, timeout=600, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def measure(quick: bool, runs: int = 1, progress: Progress | None = None, arrow: bool = True) -> tuple[list[dict], str]:
    iters, reps = (4, 3) if quick else (16, 7)
    cb = progress.message if progress else None
    peer = find_peer() if arrow else None
    note = "" if peer or not arrow else "Arrow C++ driver not found (build with -DPQFAST_PEERS=ON, or set PQFAST_ARROW_DELTA_BENCH)"
    ours_runs, arrow_runs = [], []
    for _ in range(max(1, runs)):  # interleaved, so both see the same machine state
        ours_runs.append(_pqfast._bench_delta(PAGE_VALUES, iters, reps, cb))
        if peer:
            if progress:
                progress.message("Arrow C++ 26 decoder")
            arrow_runs.append(_run_peer(peer, quick))
    rows = []
    for i, r in enumerate(ours_runs[0]):
        ns = statistics.median(run[i]["ns_per_op"] for run in ours_runs)
        rows.append({"type": r["mode"], "width_class": r["label"], "implementation": r["implementation"],
                     "ns_per_value": ns, "gvalues_per_s": 1.0 / ns, "page_bytes": r["footprint_bytes"]})
    if arrow_runs:
        for i, r in enumerate(arrow_runs[0]):
            ns = statistics.median(run[i]["ns_per_value"] for run in arrow_runs)
            rows.append({"type": r["type"], "width_class": r["width_class"], "implementation": "arrow",
                         "ns_per_value": ns, "gvalues_per_s": 1.0 / ns})
    arrow_ns = {(r["type"], r["width_class"]): r["ns_per_value"] for r in rows if r["implementation"] == "arrow"}
    for r in rows:
        a = arrow_ns.get((r["type"], r["width_class"]))
        r["vs_arrow"] = a / r["ns_per_value"] if a else None
    return rows, note


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    rows, note = measure(args.quick, args.runs, progress, arrow=not args.no_arrow)
    progress.close()
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    active = _pqfast.simd_level()
    impls = [i for i in ("scalar", "avx2", "avx512", "neon") if any(r["implementation"] == i for r in rows)]
    by = {(r["type"], r["width_class"], r["implementation"]): r for r in rows}
    table = []
    for t in ("INT32", "INT64"):
        for c in CLASSES:
            best = by.get((t, c, active)) or by.get((t, c, impls[-1]))
            if best is None:
                continue
            arrow = by.get((t, c, "arrow"))
            table.append([t, c] + [by[(t, c, i)]["gvalues_per_s"] for i in impls]
                         + [best["ns_per_value"], by[(t, c, "memcpy")]["gvalues_per_s"],
                            arrow["gvalues_per_s"] if arrow else "-",
                            f"{best['vs_arrow']:.2f}x" if best["vs_arrow"] else "-"])
    print(f"DELTA_BINARY_PACKED decode, {PAGE_VALUES} values per page (INT32 128/4, INT64 256/4), "
          f"G values/s, medians; SIMD active: {active}")
    print(format_table(["type", "bits"] + impls + [f"ns/value ({active})", "memcpy", "arrow C++", f"{active} vs arrow"],
                       table))
    print("INT32 33-64: miniblocks wider than 32 bits, as DuckDB 2.0 writes; Arrow C++ cannot read them.")
    if note:
        print(note)
    return 0
