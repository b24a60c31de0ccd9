"""Issue 34 part C: files other writers made that pyarrow 26 reads and pqfast
refused or read only without filters (Thrift fields of an unexpected wire
type, page indexes that contradict their pages, a page announcing more values
than it holds, a REQUIRED null column), each read as pyarrow reads it, whole,
column by column and filtered, at every SIMD level; errors on hostile files
are FormatErrors naming the file; and the differential tool
(scripts/corpus_diff.py) on a tiny folder.

The files are tests/data/compat/*.parquet, from gen_tolerance.py (run
through make_compat.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import pqfast

REPO = Path(__file__).resolve().parents[2]
COMPAT = REPO / "tests" / "data" / "compat"
sys.path.insert(0, str(COMPAT))

import gen_tolerance  # noqa: E402

# file -> filters to check (Expressions on its columns)
FILES = {
    "kv_int_value": [pc.field("a") >= 3, pc.field("a") == 2],
    "page_header_mistyped": [pc.field("a") == 4, pc.field("a") < 3],
    "index_parquetjs": [pc.field("a") == 15, pc.field("a") >= 12, pc.field("b") == 40, pc.field("b") < 10],
    "index_impala": [pc.field("a") == 15, pc.field("a") >= 21],
    "index_parquetgo": [pc.field("a") == 15, pc.field("a") >= 12, pc.field("a") < 3],
    "page_count_exceeds": [pc.field("a") == 5, pc.field("a") > 1],
    "interval_dictionary": [pc.field("iv").is_valid(), pc.field("iv").is_null()],
    "unknown_required": [pc.field("a") >= 3, pc.field("iv").is_null() & (pc.field("a") > 2),
                         pc.field("iv").is_valid() | (pc.field("a") > 3), pc.field("iv").is_valid()],
}


def _same(ours, theirs):
    assert ours.schema.equals(theirs.schema, check_metadata=True), (ours.schema, theirs.schema)
    assert ours.equals(theirs)


@pytest.mark.parametrize("name", sorted(FILES))
def test_reads_as_pyarrow(name, each_simd_level):
    path = str(COMPAT / f"{name}.parquet")
    want = pq.read_table(path)
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        _same(pqfast.read_table(path), want)
        for col in want.column_names:
            _same(pqfast.read_table(path, columns=[col]), want.select([col]))
        pruned = False
        for flt in FILES[name]:
            expect = pq.read_table(path, filters=flt)
            pruned |= expect.num_rows < want.num_rows
            _same(pqfast.read_table(path, filters=flt), expect)
        assert pruned  # some filter keeps fewer rows than the file has


def test_the_files_hold_their_shapes():
    """Each file holds the shape it is named for (so a pass above is not a
    pass on a well-formed file)."""
    from footer_edit import read_footer  # tests/python
    from thrift_compact import T_I64, Reader

    _, meta = read_footer(COMPAT / "kv_int_value.parquet")
    assert meta[5][1][1][0][2][0] == T_I64  # KeyValue.value of wire type i64

    def locations(name):
        data = (COMPAT / f"{name}.parquet").read_bytes()
        _, m = read_footer(COMPAT / f"{name}.parquet")
        chunk = m[4][1][1][0][1][1][1][0]  # row group 0, column 0
        at, n = chunk[4][1], chunk[5][1]
        return [{k: v for k, (_, v) in loc.items()} for loc in Reader(data[at:at + n]).struct()[1][1][1]]

    assert [x[3] for x in locations("index_parquetjs")] == [0, 0, 0]
    assert locations("index_impala")[-1][1] == -1
    go = locations("index_parquetgo")
    assert go[0][1] + go[0][2] < go[1][1]  # the sizes leave out the page headers


def test_regenerated_files_are_identical(tmp_path):
    for name in FILES:
        fn = getattr(gen_tolerance, f"make_{name}")
        out = fn(tmp_path)
        assert out.read_bytes() == (COMPAT / f"{name}.parquet").read_bytes(), name


# ---- errors are FormatErrors naming the file ------------------------------------------------

def _deep_file(path: Path, depth: int) -> Path:
    from thrift_compact import T_BINARY, T_I32

    g = gen_tolerance
    schema = [g.root(1)] + [[(3, T_I32, 1), (4, T_BINARY, f"g{k}"), (5, T_I32, 1)] for k in range(depth)]
    schema.append([(1, T_I32, 1), (3, T_I32, 1), (4, T_BINARY, "x")])
    return g.write(path, schema, [[g.data_page([None])]], 1)


@pytest.mark.parametrize("depth", [64, 98, 150])
def test_deep_schema_is_a_format_error(tmp_path, depth):
    path = _deep_file(tmp_path / "deep.parquet", depth)
    for call in (lambda: pqfast.read_table(path), lambda: pqfast.read_table(path, columns=["g0"]),
                 lambda: pqfast.read_table(path, filters=pc.field("g0").is_null())):
        with pytest.raises(pqfast.FormatError) as e:
            call()
        assert str(path) in str(e.value) and "g0" in str(e.value)


def test_shallow_schema_reads(tmp_path):
    path = _deep_file(tmp_path / "deep.parquet", 40)
    assert pqfast.read_table(path).equals(pq.read_table(path))


def test_arrow_errors_become_format_errors():
    import pyarrow as pa

    from pqfast.reader import arrow_errors_named

    with pytest.raises(pqfast.FormatError, match="f.parquet"):
        with arrow_errors_named("f.parquet"):
            raise pa.ArrowInvalid("Parquet schema too deeply nested")
    with pytest.raises(pqfast.FormatError, match="f.parquet"):
        with arrow_errors_named("f.parquet"):
            pa.field("x", pa.null(), nullable=False)
    with pytest.raises(pqfast.MemoryLimitError):
        with arrow_errors_named("f.parquet"):
            raise pa.ArrowMemoryError("malloc failed")
    with pytest.raises(KeyError):  # a caller's mistake stays what it is
        with arrow_errors_named("f.parquet"):
            raise KeyError("no column")


# ---- the differential tool -------------------------------------------------------------------

def test_corpus_diff_on_a_tiny_folder(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(COMPAT / "index_parquetjs.parquet", folder)
    shutil.copy(COMPAT / "kv_int_value.parquet", folder)
    (folder / "broken.parquet").write_bytes(b"PAR1" + b"\0" * 20 + b"PAR1")
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, str(REPO / "scripts" / "corpus_diff.py"), str(folder), "--json", str(out),
                        "--timeout", "120"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    res = {Path(k).name: v["category"] for k, v in json.loads(out.read_text()).items()}
    assert res == {"index_parquetjs.parquet": "equal", "kv_int_value.parquet": "equal",
                   "broken.parquet": "both_refuse"}
    assert "equal                 2" in p.stdout and "both_refuse           1" in p.stdout
