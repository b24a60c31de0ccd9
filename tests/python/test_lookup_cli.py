"""`pqfast lookup LAKE COLUMN VALUE...`: the rows equal pyarrow.dataset's, the
--json shape, and clear errors (exit 1) for a missing column or a value that
is not of the column's type."""

import inspect
import json

import numpy as np
import pytest

from conftest import run_cli


def _has_filters() -> bool:
    import pqfast

    return "filters" in inspect.signature(pqfast.read_table).parameters


needs_engine = pytest.mark.skipif(not _has_filters(),
                                  reason="pqfast.read_table has no filters= parameter yet (issue 17's scan engine)")

FILES, ROWS = 3, 3000


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    """3 files x 3,000 rows (3 row groups each): unique random int64 ids, string
    keys, a double, a date and a nullable string; Bloom filters on id and key and
    a page index (pyarrow)."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path_factory.mktemp("lookup_lake")
    rng = np.random.default_rng(17)
    ids = rng.choice(np.int64(1) << 40, size=FILES * ROWS, replace=False).astype(np.int64)
    for i in range(FILES):
        part = ids[i * ROWS:(i + 1) * ROWS]
        note = [None if v % 7 == 0 else f"note {v % 1000}" for v in part.tolist()]
        t = pa.table({
            "id": pa.array(part),
            "key": pa.array([f"k{v:012d}" for v in part.tolist()]),
            "amount": pa.array(rng.random(ROWS)),
            "day": pa.array([dt.date(2026, 1, 1) + dt.timedelta(days=int(v % 300)) for v in part.tolist()]),
            "note": pa.array(note, pa.string()),
        })
        pq.write_table(t, str(d / f"part-{i}.parquet"), row_group_size=ROWS // 3, write_page_index=True,
                       bloom_filter_options={"id": {"ndv": ROWS, "fpp": 0.01}, "key": {"ndv": ROWS, "fpp": 0.01}})
    return d, ids


def _dataset_rows(d, column, values, columns=None):
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from pqfast.commands.head import _jsonable

    t = ds.dataset(str(d), format="parquet").to_table(columns=columns, filter=pc.field(column).isin(values))
    return [{k: _jsonable(v) for k, v in r.items()} for r in t.to_pylist()]


def _lookup_json(*args):
    proc = run_cli("lookup", *args, "--json")
    return json.loads(proc.stdout)


@needs_engine
def test_rows_equal_pyarrow_dataset(lake):
    d, ids = lake
    want_ids = [int(ids[5]), int(ids[ROWS + 17]), int(ids[2 * ROWS + ROWS - 1]), (1 << 41) + 3]  # the last: absent
    out = _lookup_json(str(d), "id", *map(str, want_ids))
    assert out["rows"] == _dataset_rows(d, "id", want_ids)
    assert len(out["rows"]) == 3


@needs_engine
def test_string_key_projected_columns_and_glob(lake):
    d, ids = lake
    keys = [f"k{int(ids[42]):012d}", f"k{int(ids[2 * ROWS + 5]):012d}"]
    out = _lookup_json(str(d / "*.parquet"), "key", *keys, "--columns", "id,key,note")
    assert out["rows"] == _dataset_rows(d, "key", keys, columns=["id", "key", "note"])
    assert [list(r) for r in out["rows"]] == [["id", "key", "note"]] * 2


@needs_engine
def test_json_shape_and_what_was_read(lake):
    d, ids = lake
    out = _lookup_json(str(d), "id", str(int(ids[100])), "--threads", "1")
    assert set(out) == {"rows", "read"}
    assert isinstance(out["rows"], list) and len(out["rows"]) == 1
    assert out["rows"][0]["id"] == int(ids[100])
    read = out["read"]
    assert isinstance(read, dict) and read
    known = {"files", "files_read", "row_groups", "row_groups_read", "pages", "pages_read", "bytes_read", "rows",
             "seconds"}
    assert known & set(read)
    for k in known & set(read):
        assert isinstance(read[k], (int, float)) and read[k] >= 0
    if "files" in read:
        assert read["files"] == FILES
    if "files_read" in read and "files" in read:
        assert read["files_read"] <= read["files"]
    json.dumps(out)  # JSON-safe throughout


@needs_engine
def test_text_output_prints_rows_and_read_line(lake):
    d, ids = lake
    v = int(ids[ROWS + 1])
    proc = run_cli("lookup", str(d), "id", str(v))
    assert str(v) in proc.stdout
    assert "1 row with id in" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("read: ")


def test_missing_column_is_a_clear_error(lake):
    d, _ = lake
    proc = run_cli("lookup", str(d), "nope", "5", check=False)
    assert proc.returncode == 1
    assert "no column 'nope'" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("lookup", str(d), "id", "5", "--columns", "id,zz", check=False)
    assert proc.returncode == 1
    assert "no column 'zz'" in proc.stderr and "Traceback" not in proc.stderr


def test_value_of_the_wrong_type_is_a_clear_error(lake):
    d, _ = lake
    proc = run_cli("lookup", str(d), "id", "12", "twelve", check=False)
    assert proc.returncode == 1
    assert "'twelve' is not a value of column 'id'" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("lookup", str(d), "day", "yesterday", check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


@needs_engine
def test_boolean_and_time_values(tmp_path):
    """CLI values for BOOLEAN (true/false, any case, 1/0) and TIME columns."""
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table({"b": pa.array([True, False, None, True]),
                  "t": pa.array([datetime.time(12, 0), datetime.time(13, 0), None, datetime.time(12, 0)],
                                pa.time64("us")),
                  "k": pa.array([1, 2, 3, 4])})
    pq.write_table(t, tmp_path / "bt.parquet")
    p = str(tmp_path / "bt.parquet")
    assert [r["k"] for r in _lookup_json(p, "b", "TRUE")["rows"]] == [1, 4]
    assert [r["k"] for r in _lookup_json(p, "b", "0")["rows"]] == [2]
    assert [r["k"] for r in _lookup_json(p, "t", "13:00:00")["rows"]] == [2]
    proc = run_cli("lookup", p, "b", "maybe", check=False)
    assert proc.returncode == 1 and "true or false expected" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("lookup", p, "t", "noon", check=False)
    assert proc.returncode == 1 and "ISO time" in proc.stderr


def test_no_value_is_a_usage_error(lake):
    d, _ = lake
    proc = run_cli("lookup", str(d), "id", check=False)
    assert proc.returncode == 2 and "no VALUE" in proc.stderr


def test_printing_with_a_stand_in_engine(lake, monkeypatch, capsys):
    """The printing and typing of values, with read_table replaced by a
    pyarrow.dataset stand-in (so this runs before the engine lands)."""
    import datetime as dt

    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    import pqfast
    from pqfast import cli

    d, ids = lake
    seen = {}

    def fake_read_table(source, columns=None, filters=None, stats=False, **kw):
        seen.update(source=source, columns=columns, filters=filters, kw=kw)
        (col, op, vals), = filters
        t = ds.dataset(str(source), format="parquet").to_table(columns=columns, filter=pc.field(col).isin(vals))
        return (t, {"files": FILES, "files_read": 1, "row_groups": 9, "pages": 45, "pages_read": 5,
                    "bytes_read": 12345, "rows": t.num_rows, "seconds": 0.0042}) if stats else t

    monkeypatch.setattr(pqfast, "read_table", fake_read_table)
    assert cli.main(["lookup", str(d), "day", "2026-01-02", "--threads", "2"]) == 0
    assert seen["filters"] == [("day", "in", [dt.date(2026, 1, 2)])] and seen["kw"] == {"threads": 2}
    text = capsys.readouterr().out
    assert "rows with day in {2026-01-02}" in text
    n = sum(1 for r in _dataset_rows(d, "day", [dt.date(2026, 1, 2)]))
    assert f"\n{n} rows with day in {{2026-01-02}}\n" in text
    assert text.rstrip().splitlines()[-1] == (f"read: 1/3 files, 9 row groups (in the lake), 5/45 pages, "
                                              f"12.1 KiB read, {n} rows, 4.2 ms")
    v = int(ids[7])
    assert cli.main(["lookup", str(d), "id", str(v), "--columns", "id,day", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == _dataset_rows(d, "id", [v], columns=["id", "day"])
    assert out["read"]["pages_read"] == 5 and list(out["read"])[0] == "files"
