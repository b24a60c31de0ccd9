"""Every code block of README.md and docs/*.md runs, so that the docs show
calls that work.

Conventions (docs/ and README alike):
- ```python blocks run in order, one namespace per page, with the working
  directory holding the lakes the examples name: ``lake/`` (8 files written by
  pyarrow, 4 row groups of 2,500 rows, Bloom filters on ``id`` and ``key``;
  ids ``i * 10_000 + 0..9_999`` in file i, ``name`` is "name-<id % 100>",
  ``key`` is "key-<id>"), ``polars_lake/`` (the same rows of files 0-3 written
  by polars: no Bloom filters) and ``sidecar_lake/`` (a copy of it);
- ```sh blocks: each command line that starts with ``pqfast`` runs (as
  ``python -m pqfast``, which must exit 0); other lines (scripts/*, pip) are
  not run here: CI runs them itself;
- ```text blocks and blocks without a language are outputs and synopses;
- any other block, and one that cannot run here (S3, a build), opens with a
  visible comment line ``# (not run: why)`` or ``// (not run: why)``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pqfast
from pqfast.cli import COMMANDS

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```", re.S | re.M)
NOT_RUN = re.compile(r"^\s*(?:#|//) \(not run: ([^)]+)\)")
RUNS = {"python", "sh"}
OUTPUT = {"", "text"}
# Blocks that cannot run here stay few: a doc that needs many is a doc to fix.
MAX_NOT_RUN = 6


def blocks(page: Path) -> list[tuple[str, str, int]]:
    """(language, code, line) of each fenced block of a page."""
    text = page.read_text()
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in BLOCK.finditer(text)]


def _not_run(code: str) -> str | None:
    m = NOT_RUN.match(code)
    return m.group(1) if m else None


def _table(i: int):
    import pyarrow as pa

    ids = np.arange(i * 10_000, (i + 1) * 10_000, dtype=np.int64)
    return pa.table({
        "id": ids,
        "name": pa.array([f"name-{v % 100}" for v in ids]),
        "key": pa.array([f"key-{v}" for v in ids]),
        "amount": pa.array(np.random.default_rng(i).random(ids.size)),
    })


@pytest.fixture(scope="session")
def lakes(tmp_path_factory) -> Path:
    import polars
    import pyarrow.parquet as pq

    root = tmp_path_factory.mktemp("doc_lakes")
    for d in ("lake", "polars_lake", "sidecar_lake"):
        (root / d).mkdir()
    for i in range(8):
        pq.write_table(_table(i), root / "lake" / f"part-{i:05d}.parquet", row_group_size=2_500,
                       bloom_filter_options={"id": {"ndv": 2_500, "fpp": 0.01},
                                             "key": {"ndv": 2_500, "fpp": 0.01}})
    for i in range(4):
        polars.from_arrow(_table(i)).write_parquet(root / "polars_lake" / f"part-{i:05d}.parquet",
                                                   row_group_size=2_500)
        shutil.copy(root / "polars_lake" / f"part-{i:05d}.parquet", root / "sidecar_lake")
    return root


@pytest.fixture
def workdir(lakes, tmp_path, monkeypatch) -> Path:
    """A fresh copy of the lakes per page (examples index and rewrite them)."""
    for d in lakes.iterdir():
        shutil.copytree(d, tmp_path / d.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _commands(code: str) -> list[list[str]]:
    """The `pqfast ...` command lines of an sh block, continuations joined, comments dropped."""
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0] == "pqfast":
            out.append(words[1:])
    return out


def test_every_block_runs_or_says_why_not():
    not_run = []
    for page in PAGES:
        for lang, code, line in blocks(page):
            where = f"{page.relative_to(REPO)}:{line}"
            why = _not_run(code)
            if lang in OUTPUT:
                continue
            if lang not in RUNS:
                assert why, f"{where}: a ```{lang} block must open with '# (not run: why)' or '// (not run: why)'"
            if why:
                not_run.append(f"{where}: {why}")
            elif lang == "sh":
                assert _commands(code) or "scripts/" in code or "pip install" in code, \
                    f"{where}: an sh block with no pqfast command"
    print("\n".join(not_run))
    assert len(not_run) <= MAX_NOT_RUN, f"{len(not_run)} blocks are not run:\n" + "\n".join(not_run)


def _has_examples(page: Path) -> bool:
    return any(lang in RUNS and not _not_run(code) for lang, code, _ in blocks(page))


EXAMPLE_PAGES = [p for p in PAGES if _has_examples(p)]


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=[str(p.relative_to(REPO)) for p in EXAMPLE_PAGES])
def test_page_examples_run(page, workdir):
    ns: dict = {"__name__": "__doc_example__"}
    ran = 0
    for lang, code, line in blocks(page):
        where = f"{page.relative_to(REPO)}:{line}"
        if lang not in RUNS or _not_run(code):
            continue
        if lang == "python":
            try:
                exec(compile(code, where, "exec"), ns)
            except Exception as e:
                raise AssertionError(f"{where}: the example raised {type(e).__name__}: {e}") from e
            ran += 1
        else:
            for args in _commands(code):
                proc = subprocess.run([sys.executable, "-m", "pqfast", *args], capture_output=True, text=True,
                                      env=dict(os.environ), timeout=300)
                assert proc.returncode == 0, \
                    f"{where}: pqfast {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
                ran += 1
    assert ran > 0


def test_cli_reference_names_every_command():
    reference = (REPO / "docs" / "cli.md").read_text()
    for name in COMMANDS:
        assert f"pqfast {name}" in reference, name


def test_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= 160
