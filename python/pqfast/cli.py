"""The ``pqfast`` command. Each subcommand lives in pqfast/commands/<name>.py
and exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import _pqfast
from ._build_info import version_line

# Subcommand modules, in the order `pqfast --help` lists them.
COMMANDS = ["demo", "inspect", "head", "probe", "lookup", "index", "bench"]


def build_parser() -> argparse.ArgumentParser:
    # Raw text: the version line is printed whole, never wrapped.
    parser = argparse.ArgumentParser(prog="pqfast", description="A fast Parquet reader: lookups, pruning, indexing.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_line())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        mod = importlib.import_module(f"pqfast.commands.{name}")
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    # Commands that take trailing positionals after their options (probe's
    # VALUEs) receive what argparse did not place as `args._extra`.
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not getattr(args, "_accepts_extra", False):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args._extra = extra
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except _pqfast.FormatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (FileNotFoundError, PermissionError, IsADirectoryError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `pqfast probe ... --json | head`: the reader left; exit quietly.

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
