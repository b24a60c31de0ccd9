"""`pqfast bench delta`: DELTA_BINARY_PACKED decode throughput per width class,
and DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY decode (and encode) on four
string data sets, next to memcpy of the output and Arrow C++ 26's decoders on
the same pages."""

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
HELP = ("DELTA decode, pages of 64K values: DELTA_BINARY_PACKED per width class (G values/s), "
        "DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY on four string data sets (GB/s): each SIMD "
        "implementation, memcpy of the output, Arrow C++ 26 in the same run.")
STRING_SETS = ["short", "urls", "comment", "uuid"]
STRING_ENCODINGS = ["DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]

PAGE_VALUES = 1 << 16
CLASSES = ["0", "1-8", "9-16", "17-32", "33-64"]
PEER = "arrow_delta_bench"


def add_arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="fewer repetitions (about a second)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    p.add_argument("--runs", type=int, default=1, help="repeat the whole benchmark and report medians")
    p.add_argument("--no-arrow", action="store_true", help="skip the Arrow C++ side-by-side driver")
    p.add_argument("--only", choices=["ints", "strings"], help="only the integer or only the string rows")


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


def _run_peer(peer: Path, quick: bool, strings: bool = False) -> list[dict]:
    args = [str(peer), "--values", str(PAGE_VALUES)] + (["--quick"] if quick else []) + (["--strings"] if strings else [])
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


def measure_strings(quick: bool, runs: int = 1, progress: Progress | None = None,
                    arrow: bool = True) -> tuple[list[dict], str]:
    """String rows: encoding, dataset, implementation ("<level>" to offsets + data,
    "<level> views", "encode", "memcpy", "arrow" = DecodeArrow into a BinaryBuilder,
    "arrow pointers" = Decode into pointer pairs, "arrow encode"), ns_per_value,
    mvalues_per_s, gbytes_per_s (decoded bytes), vs_arrow (Arrow's time over ours:
    decoders against "arrow", views against "arrow pointers", the encoder against
    "arrow encode") and vs_memcpy (our time over memcpy's)."""
    iters, reps = (4, 3) if quick else (16, 7)
    cb = progress.message if progress else None
    peer = find_peer() if arrow else None
    note = "" if peer or not arrow else "Arrow C++ driver not found (build with -DPQFAST_PEERS=ON, or set PQFAST_ARROW_DELTA_BENCH)"
    ours_runs, arrow_runs = [], []
    for _ in range(max(1, runs)):  # interleaved
        ours_runs.append(_pqfast._bench_delta(PAGE_VALUES, iters, reps, cb, True))
        if peer:
            if progress:
                progress.message("Arrow C++ 26 string decoders")
            arrow_runs.append(_run_peer(peer, quick, strings=True))
    bytes_of = {}
    rows = []
    for i, r in enumerate(ours_runs[0]):
        ns = statistics.median(run[i]["ns_per_op"] for run in ours_runs)
        bytes_of[(r["mode"], r["label"])] = r["footprint_bytes"]
        rows.append({"encoding": r["mode"], "dataset": r["label"], "implementation": r["implementation"],
                     "ns_per_value": ns})
    if arrow_runs:
        for i, r in enumerate(arrow_runs[0]):
            ns = statistics.median(run[i]["ns_per_value"] for run in arrow_runs)
            rows.append({"encoding": r["encoding"], "dataset": r["dataset"], "implementation": r["implementation"],
                         "ns_per_value": ns})
    ns_of = {(r["encoding"], r["dataset"], r["implementation"]): r["ns_per_value"] for r in rows}
    for r in rows:
        key = (r["encoding"], r["dataset"])
        per_value = bytes_of[key] / PAGE_VALUES
        r["mvalues_per_s"] = 1e3 / r["ns_per_value"]
        r["gbytes_per_s"] = per_value / r["ns_per_value"]
        impl = r["implementation"]
        peer_impl = ("arrow encode" if impl == "encode" else "arrow pointers" if impl.endswith(" views")
                     else None if impl.startswith("arrow") or impl == "memcpy" else "arrow")
        a = ns_of.get(key + (peer_impl,)) if peer_impl else None
        r["vs_arrow"] = a / r["ns_per_value"] if a else None
        m = ns_of.get(key + ("memcpy",))
        r["vs_memcpy"] = r["ns_per_value"] / m if m and not impl.startswith("arrow") else None
    return rows, note


def _print_strings(rows: list[dict], active: str) -> None:
    by = {(r["encoding"], r["dataset"], r["implementation"]): r for r in rows}
    table = []
    for e in STRING_ENCODINGS:
        for d in STRING_SETS:
            mine = by.get((e, d, active))
            if mine is None:
                continue
            views = by.get((e, d, f"{active} views"))
            enc = by.get((e, d, "encode"))
            arrow, ptrs, aenc = by.get((e, d, "arrow")), by.get((e, d, "arrow pointers")), by.get((e, d, "arrow encode"))
            f = lambda r, k: r[k] if r else "-"  # noqa: E731
            x = lambda r: f"{r['vs_arrow']:.1f}x" if r and r.get("vs_arrow") else "-"  # noqa: E731
            table.append([e, d, mine["gbytes_per_s"], mine["mvalues_per_s"], f"{mine['vs_memcpy']:.2f}x",
                          f(by.get((e, d, "memcpy")), "gbytes_per_s"), f(arrow, "mvalues_per_s"), x(mine),
                          f(views, "mvalues_per_s"), f(ptrs, "mvalues_per_s"), x(views),
                          f(enc, "mvalues_per_s"), f(aenc, "mvalues_per_s"), x(enc)])
    print(f"\nDELTA string pages, {PAGE_VALUES} values each; SIMD active: {active}; medians. "
          "GB/s of decoded bytes, M values/s; x memcpy = our time / memcpy's time of the decoded bytes")
    print(format_table(["encoding", "data set", "GB/s", "M val/s", "x memcpy", "memcpy GB/s", "arrow M val/s",
                        "vs arrow", "views M val/s", "arrow ptrs M val/s", "views vs ptrs",
                        "encode M val/s", "arrow enc M val/s", "enc vs arrow"], table))
    print("arrow: Arrow C++ 26 DecodeArrow into a BinaryBuilder + Finish (pyarrow's path); arrow ptrs: "
          "Decode into ByteArray pointer pairs (copies nothing); views: Arrow binary_view elements.")


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    rows, note = ([], "") if args.only == "strings" else measure(args.quick, args.runs, progress, arrow=not args.no_arrow)
    srows, snote = ([], "") if args.only == "ints" else measure_strings(args.quick, args.runs, progress,
                                                                         arrow=not args.no_arrow)
    progress.close()
    note = note or snote
    if args.json:
        for r in rows + srows:
            print(json.dumps(r))
        return 0
    if not rows:
        _print_strings(srows, _pqfast.simd_level())
        if note:
            print(note)
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
    if srows:
        _print_strings(srows, active)
    if note:
        print(note)
    return 0
