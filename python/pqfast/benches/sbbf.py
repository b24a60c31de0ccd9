"""`pqfast bench sbbf`: SBBF probe, hash+probe and build cost per implementation
and footprint, side by side with Arrow C++ when its driver was built.

Footprints: 0.5 MiB (in cache), 128 MiB (one filter in DRAM) and 1 GiB (eight
128 MiB filters, a random one per probe). Modes:

- ``classic``: the early-exit scalar loop Arrow C++ < 25, arrow-rs and Velox ship;
- ``single``: one ``SbbfView::check_hash`` call per probe, each implementation;
- ``batched``: ``check_hashes`` over the whole probe array (1 GiB: ``sbbf_check_gather``);
- ``multi``: ``sbbf_check_product``, hashes x eight row-group filters;
- ``hash_probe``: int64 values to verdicts, XXH64 included (``check_int64``);
- ``build``: ``insert_hashes`` into an empty filter (0.5 MiB and 128 MiB).

All in ns per probe (per key for build). With ``arrow_sbbf_bench`` (built by
``-DPQFAST_PEERS=ON`` when pyarrow is installed) every row, ours and Arrow C++'s
``BlockSplitBloomFilter::FindHash`` / ``InsertHash``, is measured in that one
process on the same filters and hashes; otherwise the rows come from the
extension module and Arrow rows are absent.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from .. import _pqfast
from .._progress import Progress
from .._table import format_table

NAME = "sbbf"
HELP = "SBBF probes: classic scalar vs each SIMD implementation (single, batched, multi-filter, hash+probe, build), vs Arrow C++."

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
FOOTPRINTS = [512 * KiB, 128 * MiB, 1 * GiB]
PEER = "arrow_sbbf_bench"
# Which Arrow row a mode is compared with.
ARROW_BASE = {"classic": "single", "single": "single", "batched": "single", "multi": "single",
              "hash_probe": "hash_probe", "build": "build"}


def add_arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="fewer probes and repetitions, random-bit fills (about a minute or less)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    p.add_argument("--runs", type=int, default=1, help="repeat the whole benchmark and report medians (>= 5 for figures you quote)")
    p.add_argument("--chart", metavar="FILE.png", help="also draw the table as a bar chart (needs matplotlib)")
    p.add_argument("--distance", type=int, default=-1, help="prefetch distance in probes for the batched calls (default: by footprint)")
    p.add_argument("--footprints", help="comma-separated footprints in bytes (default: 0.5 MiB, 128 MiB, 1 GiB)")
    p.add_argument("--no-peers", action="store_true", help="skip the Arrow C++ side-by-side driver even when built")


def find_peer() -> Path | None:
    """The Arrow side-by-side driver: $PQFAST_PEERS_DIR, else <build>/peers next
    to a development build's python/ directory."""
    candidates = []
    env = os.environ.get("PQFAST_PEERS_DIR")
    if env:
        candidates.append(Path(env) / PEER)
    here = Path(__file__).resolve()
    for parent in list(here.parents)[:5]:
        candidates.append(parent / "peers" / PEER)
    candidates.append(Path.cwd() / "build" / "dev" / "peers" / PEER)
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    return None


def _run_peer(peer: Path, footprints, probes, reps, distance, insert_up_to, progress) -> tuple[list[dict], list[str]]:
    args = [str(peer), "--footprints", ",".join(str(f) for f in footprints), "--probes", str(probes),
            "--reps", str(reps), "--insert-keys-up-to", str(insert_up_to)]
    if distance >= 0:
        args += ["--distance", str(distance)]
    if progress:
        progress.message(f"running {peer.name} (ours and Arrow C++ in one process)")
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{peer} failed ({proc.returncode}): {proc.stderr.strip()}")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    notes = [line[6:] for line in proc.stderr.splitlines() if line.startswith("note: ")]
    return rows, notes


def measure(quick: bool, runs: int = 1, progress: Progress | None = None, distance: int = -1,
            footprints: list[int] | None = None, use_peers: bool = True,
            notes: list[str] | None = None) -> list[dict]:
    """Rows (dicts) with the median ns_per_op over `runs` and ratios to the
    classic loop and to Arrow C++ (when its driver runs)."""
    footprints = footprints or FOOTPRINTS
    probes = (1 << 21) if quick else (1 << 22)
    reps = 3 if quick else 5
    # Quick runs fill filters above 8 MiB with random bits instead of keys.
    insert_up_to = 8 * MiB if quick else 2 * GiB
    peer = find_peer() if use_peers else None
    cb = progress.message if progress else None
    all_runs = []
    run_notes: list[str] = []
    for i in range(max(1, runs)):
        if progress and runs > 1:
            progress.message(f"run {i + 1} of {runs}")
        if peer is not None:
            rows, n = _run_peer(peer, footprints, probes, reps, distance, insert_up_to, progress)
        else:
            rows, n = _pqfast._bench_sbbf(footprints, probes, reps, cb, distance, insert_up_to)
        all_runs.append(rows)
        run_notes = list(n)
    key = lambda r: (r["footprint_bytes"], r["mode"], r["implementation"])  # noqa: E731
    by_key: dict = {}
    for rows in all_runs:
        for r in rows:
            by_key.setdefault(key(r), []).append(r["ns_per_op"])
    rows = []
    for r in all_runs[0]:
        r = dict(r)
        samples = by_key[key(r)]
        r["ns_per_op"] = statistics.median(samples)
        r["runs"] = len(samples)
        rows.append(r)
    classic = {r["footprint_bytes"]: r["ns_per_op"] for r in rows if r["mode"] == "classic"}
    # Builds compare with the scalar reference insert (the classic loop only probes).
    scalar_build = {r["footprint_bytes"]: r["ns_per_op"] for r in rows
                    if r["mode"] == "build" and r["implementation"] == "scalar"}
    arrow = {(r["footprint_bytes"], r["mode"]): r["ns_per_op"] for r in rows if r["implementation"] == "arrow"}
    for r in rows:
        base_classic = (scalar_build if r["mode"] == "build" else classic).get(r["footprint_bytes"])
        r["speedup_vs_classic"] = base_classic / r["ns_per_op"] if base_classic else None
        base = arrow.get((r["footprint_bytes"], ARROW_BASE[r["mode"]]))
        r["speedup_vs_arrow"] = base / r["ns_per_op"] if base else None
    if notes is not None:
        notes.extend(run_notes)
        notes.append("Arrow C++ rows: " + ("measured in the same process by " + str(peer) if peer else
                     "absent (build with -DPQFAST_PEERS=ON and pyarrow, or set PQFAST_PEERS_DIR)"))
    return rows


def chart(rows: list[dict], path: str) -> None:
    """Horizontal bars, one panel per footprint, log-scaled ns per op."""
    try:
        import matplotlib
        import matplotlib.ticker
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # optional dependency
        raise SystemExit("--chart needs matplotlib: pip install matplotlib") from e
    footprints = sorted({r["footprint_bytes"] for r in rows})
    colors = {"classic": "#888888", "single": "#4c72b0", "batched": "#55a868", "multi": "#8172b2",
              "hash_probe": "#ccb974", "build": "#64b5cd"}
    fig, axes = plt.subplots(1, len(footprints), figsize=(6 * len(footprints), 9), squeeze=False)
    for ax, fp in zip(axes[0], footprints):
        sub = [r for r in rows if r["footprint_bytes"] == fp]
        labels = [f"{r['mode']} / {r['implementation']}" for r in sub]
        values = [r["ns_per_op"] for r in sub]
        bar_colors = ["#c44e52" if r["implementation"].startswith("arrow") else colors.get(r["mode"], "#333333")
                      for r in sub]
        y = range(len(sub))
        ax.barh(list(y), values, color=bar_colors)
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("ns per probe (per key for build), log scale")
        ax.set_title(sub[0]["label"] + (" (8 x 128 MiB)" if fp > 128 * MiB else ""))
        for yi, v in zip(y, values):
            ax.text(v, yi, f" {v:.2f}", va="center", fontsize=7)
        ax.grid(axis="x", which="both", alpha=0.3)
    fig.suptitle(f"pqfast SBBF (red: Arrow C++ 26), SIMD active: {_pqfast.simd_level()}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _x(v) -> str:
    return f"{v:.2f}x" if v else "-"


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    footprints = [int(x) for x in args.footprints.split(",")] if args.footprints else None
    notes: list[str] = []
    rows = measure(args.quick, args.runs, progress, args.distance, footprints, not args.no_peers, notes)
    progress.close()
    if args.chart:
        chart(rows, args.chart)
    if args.json:
        fields = ("footprint_bytes", "label", "implementation", "mode", "ns_per_op", "runs",
                  "speedup_vs_classic", "speedup_vs_arrow")
        for r in rows:
            print(json.dumps({k: r[k] for k in fields}))
        for n in notes:
            print("note:", n, file=sys.stderr)
        return 0
    print(f"SBBF ('vs classic': ratio to the early-exit scalar probe; for build, to the scalar insert), ns per probe after hashing (hash_probe: per int64 value incl. XXH64; build: per key), "
          f"50% hits, median of {max(1, args.runs)} run(s), SIMD active: {_pqfast.simd_level()}")
    print(format_table(
        ["footprint", "mode", "implementation", "ns/op", "vs classic", "vs Arrow"],
        [[r["label"], r["mode"], r["implementation"], r["ns_per_op"], _x(r["speedup_vs_classic"]),
          _x(r["speedup_vs_arrow"])] for r in rows],
    ))
    for n in notes:
        print("note:", n)
    if args.chart:
        print("chart:", args.chart)
    return 0
