"""Subcommands of the pqfast CLI (see pqfast/cli.py)."""
