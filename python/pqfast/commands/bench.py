"""`pqfast bench <family>`: side-by-side timings. Each family's benchmark lives
in pqfast/benches/<name>.py with ``NAME``, ``HELP``, ``add_arguments`` and ``run``."""

from __future__ import annotations

import importlib

NAME = "bench"
HELP = "Run a benchmark and print a table (or --json rows)."

# Benchmark modules under pqfast/benches.
BENCHES = ["sbbf", "local_bloom", "delta", "prune", "read", "read_encodings", "lake", "lookup", "lookup_s3", "index",
           "nested", "stream", "engines", "read_dictionary"]


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name in BENCHES:
        mod = importlib.import_module(f"pqfast.benches.{name}")
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_bench_run=mod.run)


def run(args) -> int:
    return args._bench_run(args)
