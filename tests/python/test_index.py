"""pqfast.index: Bloom filters appended to files written without them.

The filters are byte-identical to pyarrow 26's for the same values and sizing
(every physical type, floats' -0.0 and NaN payloads, INT96, nulls, both the
dictionary-page path and the decoded-pages path); after indexing pyarrow,
polars, DuckDB and DataFusion read every file equal to before, DuckDB's
parquet_bloom_probe and pqfast.prune use the filters; every byte before the
old end is unchanged; a second run appends nothing; SIGKILL at any point
leaves the old file or the whole new one."""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pqfast
from conftest import run_cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

FPP = 0.01
LONG = os.environ.get("PQFAST_LONG_TESTS") == "1"


def typed_table(n=3000, seed=7):
    """One column per physical type, with nulls, repeats and the awkward floats."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n // 2, n)
    mask = rng.random(n) < 0.1
    odd_nan = np.array([0x7FF8000000000001], dtype=np.uint64).view(np.float64)[0]
    dbl = ids / 7.0
    dbl[:6] = [0.0, -0.0, np.nan, odd_nan, np.inf, -np.inf]
    flt = (ids / 3.0).astype(np.float32)
    flt[:4] = [0.0, -0.0, np.nan, np.float32(np.inf)]
    base = np.datetime64("2020-01-01T00:00:00", "ns")
    return pa.table({
        "i32": pa.array(ids.astype(np.int32), mask=mask),
        "i64": pa.array(ids.astype(np.int64) * 1_000_003, mask=mask),
        "f32": pa.array(flt, mask=mask),
        "f64": pa.array(dbl, mask=mask),
        "s": pa.array([f"key-{i}" for i in ids], mask=mask),
        "flba": pa.array([int(i).to_bytes(12, "little") for i in ids], type=pa.binary(12), mask=mask),
        "ts96": pa.array(base + ids.astype("timedelta64[s]"), mask=mask),
        "b": pa.array(ids % 2 == 0),
    })


def plain_keys(arr: "pa.Array") -> set:
    """Distinct non-null values by their PLAIN bytes (so -0.0 != 0.0 and NaN payloads differ)."""
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    t = arr.type
    if pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_timestamp(t):
        np_vals = arr.fill_null(0).to_numpy(zero_copy_only=False)
        raw = np_vals.view(np.uint8).reshape(len(arr), -1)
        return {bytes(raw[i]) for i in range(len(arr)) if valid[i]}
    return {v for v in arr.to_pylist() if v is not None}


INDEXED = ["i32", "i64", "f32", "f64", "s", "flba", "ts96"]


def write_plain(table, path, **kw):
    pq.write_table(table, path, use_deprecated_int96_timestamps=True, **kw)


def filter_bytes(path, rg, col):
    md = pq.read_metadata(path)
    names = [md.schema.column(i).path for i in range(md.num_columns)]
    cc = md.row_group(rg).column(names.index(col))
    assert cc.bloom_filter_offset is not None, f"{path}: no filter for {col}"
    data = Path(path).read_bytes()
    return data[cc.bloom_filter_offset : cc.bloom_filter_offset + cc.bloom_filter_length]


@pytest.mark.parametrize("use_dictionary", [True, False])
def test_filters_equal_pyarrow_for_every_physical_type(tmp_path, use_dictionary):
    table = typed_table()
    path = tmp_path / "t.parquet"
    write_plain(table, path, use_dictionary=use_dictionary)
    summary = pqfast.index(path, INDEXED + ["b"], fpp=FPP, page_index=False)
    assert summary.chunks_indexed == len(INDEXED)
    assert summary.chunks_unsupported == 1  # BOOLEAN has no filter
    # pyarrow writes dictionary-encoded chunks with encoding_stats: the
    # dictionary page alone is hashed; without dictionaries every page is decoded.
    assert summary.chunks_from_dictionary == (len(INDEXED) if use_dictionary else 0)
    for col in INDEXED:
        ndv = len(plain_keys(table.column(col)))
        ref = tmp_path / f"ref_{col}.parquet"
        write_plain(table.select([col]), ref, use_dictionary=use_dictionary,
                    bloom_filter_options={col: {"ndv": ndv, "fpp": FPP}})
        assert filter_bytes(path, 0, col) == filter_bytes(ref, 0, col), col
        detail = [c for c in summary.details[0]["chunks"] if c["action"] == "indexed"]
        assert ndv in [c["ndv"] for c in detail]


def test_given_ndv_sizes_like_pyarrow_across_row_groups(tmp_path):
    table = typed_table(n=9000, seed=3)
    path = tmp_path / "t.parquet"
    write_plain(table, path, row_group_size=3000)
    pqfast.index(path, ["i64", "s"], fpp=0.05, ndv=5000)
    ref = tmp_path / "ref.parquet"
    write_plain(table, ref, row_group_size=3000,
                bloom_filter_options={"i64": {"ndv": 5000, "fpp": 0.05}, "s": {"ndv": 5000, "fpp": 0.05}})
    for rg in range(3):
        for col in ("i64", "s"):
            assert filter_bytes(path, rg, col) == filter_bytes(ref, rg, col), (rg, col)


def engine_reads(path):
    import duckdb
    import polars as pl
    from datafusion import SessionContext

    out = {"pyarrow": pq.read_table(path)}
    out["polars"] = pl.read_parquet(path)
    out["duckdb"] = duckdb.connect().sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_table()
    out["datafusion"] = SessionContext().read_parquet(str(path)).to_arrow_table()
    return out


def lake_table(n=20000, seed=11):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n) * 2  # even ids: odd ones are absent but inside min/max
    return pa.table({"id": pa.array(ids, pa.int64()), "key": pa.array([f"k{i:08d}" for i in ids]),
                     "v": pa.array(rng.random(n))})


WRITERS = ["pyarrow", "polars", "duckdb", "datafusion"]


def write_with(writer, table, path):
    if writer == "pyarrow":
        pq.write_table(table, path, row_group_size=5000)
    elif writer == "polars":
        import polars as pl

        pl.from_arrow(table).write_parquet(path, row_group_size=5000)
    elif writer == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("t", table)
        # DuckDB writes filters only for dictionary chunks; the float column has none.
        con.execute(f"COPY t TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 5000)")
    else:
        from datafusion import SessionContext

        ctx = SessionContext()
        ctx.from_arrow(table, name="t")
        out_dir = path.parent / (path.stem + "_df")
        ctx.sql("SELECT * FROM t").write_parquet(str(out_dir))
        files = sorted(out_dir.glob("*.parquet"))
        assert files
        shutil.move(str(files[0]), path)
        for f in files[1:]:
            f.unlink()


@pytest.mark.parametrize("writer", WRITERS)
def test_engines_read_equal_and_filters_prune(tmp_path, writer):
    pytest.importorskip("duckdb")
    pytest.importorskip("polars")
    pytest.importorskip("datafusion")
    import duckdb

    table = lake_table()
    path = tmp_path / f"{writer}.parquet"
    write_with(writer, table, path)
    original = path.read_bytes()
    before = engine_reads(path)
    summary = pqfast.index(path, ["id", "key"])
    assert summary.files_changed == 1
    assert summary.chunks_indexed + summary.chunks_had_filter == 2 * pq.read_metadata(path).num_row_groups
    after_bytes = path.read_bytes()
    assert after_bytes[: len(original)] == original
    assert len(after_bytes) == len(original) + summary.bytes_appended
    after = engine_reads(path)
    for engine in before:
        assert after[engine].equals(before[engine]), engine

    con = duckdb.connect()
    ids = table.column("id").to_numpy()
    present = [int(x) for x in ids[:40]]
    absent = [int(x) * 2 + 1 for x in range(0, 4000, 20)]  # odd: never written, inside min/max
    for v in present:
        rows = con.execute(f"SELECT bloom_filter_excludes FROM parquet_bloom_probe('{path}', 'id', {v})").fetchall()
        assert rows and not all(r[0] for r in rows), v  # some row group may hold it
    excluded = total = 0
    for v in absent:
        rows = con.execute(f"SELECT bloom_filter_excludes FROM parquet_bloom_probe('{path}', 'id', {v})").fetchall()
        excluded += sum(bool(r[0]) for r in rows)
        total += len(rows)
    assert excluded >= 0.95 * total, (excluded, total)

    # pqfast.prune: no false negative; >= 95% of absent (row group, value) pairs ruled out.
    got = pqfast.prune(path, "id", present, use_statistics=False, by_value=True)
    assert "no_filter" not in got["verdict"].to_pylist()
    per_value = {}
    for v, verdict in zip(got["value"].to_pylist(), got["verdict"].to_pylist()):
        per_value.setdefault(v, []).append(verdict)
    assert all("maybe" in verdicts for verdicts in per_value.values())
    got = pqfast.prune(path, "key", [f"k{i:08d}" for i in absent], use_statistics=False, by_value=True)
    verdicts = got["verdict"].to_pylist()
    assert verdicts.count("absent") >= 0.95 * len(verdicts)

    # A second run appends nothing.
    again = pqfast.index(path, ["id", "key"])
    assert again.files_unchanged == 1 and again.bytes_appended == 0 and again.chunks_indexed == 0
    assert path.read_bytes() == after_bytes


def test_directories_globs_dry_run_and_cli(tmp_path):
    table = lake_table(n=4000)
    lake = tmp_path / "lake"
    (lake / "part=1").mkdir(parents=True)
    for i in range(3):
        pq.write_table(table.slice(i * 1000, 1000), lake / "part=1" / f"f{i}.parquet")
    before = {p: p.read_bytes() for p in lake.rglob("*.parquet")}
    dry = pqfast.index(lake, "id,key", dry_run=True)
    assert dry.files == 3 and dry.files_changed == 3 and dry.chunks_indexed == 6 and dry.bytes_appended > 0
    assert {p: p.read_bytes() for p in lake.rglob("*.parquet")} == before

    proc = run_cli("index", str(lake / "*" / "*.parquet"), "--columns", "id", "--json")
    js = json.loads(proc.stdout)
    assert js["files"] == 3 and js["files_changed"] == 3 and js["chunks_indexed"] == 3
    # The id filters alone: less than the dry run's id + key filters and footers.
    assert 0 < js["bytes_appended"] < dry.bytes_appended
    for p, old in before.items():
        assert p.read_bytes()[: len(old)] == old
    text = run_cli("index", str(lake), "--columns", "id,key").stdout
    assert "3 indexed" in text and "3 already had a filter" in text
    again = pqfast.index(str(lake / "*" / "*.parquet"), ["id", "key"])
    assert again.files_unchanged == 3 and again.chunks_had_filter == 6 and again.bytes_appended == 0


def test_errors_are_clean(tmp_path):
    table = lake_table(n=1000)
    good = tmp_path / "good.parquet"
    pq.write_table(table, good)
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[:-20])
    with pytest.raises(pqfast.FormatError):
        pqfast.index(truncated, ["id"])
    with pytest.raises(pqfast.FormatError, match="no column"):
        pqfast.index(good, ["nope"])
    s = pqfast.index([truncated, good], ["id"], on_error="skip")
    assert s.files_failed == 1 and s.files_changed == 1 and s.errors[0][0] == str(truncated)
    with pytest.raises(ValueError):
        pqfast.index(good, ["id"], fpp=0)
    with pytest.raises(ValueError, match="storage_options"):
        pqfast.index(good, ["id"], storage_options={"region": "x"})
    proc = run_cli("index", str(truncated), "--columns", "id", check=False)
    assert proc.returncode == 1 and "error:" in proc.stderr


def page_index_table(n=60000, seed=4):
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.integers(0, 10**6, n))
    dbl = rng.standard_normal(n)
    dbl[:3] = [-0.0, 0.0, np.nan]
    return pa.table({
        "id": pa.array(ids),
        "s": pa.array([f"k{i}" if i % 7 else None for i in ids]),
        "d": pa.array(dbl),
        "i": pa.array(rng.integers(-100, 100, n).astype(np.int32), mask=rng.random(n) < 0.2),
        "u": pa.array(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)),
        "allnull": pa.array([None] * n, pa.int64()),
        "flba": pa.array([int(i).to_bytes(4, "big") for i in ids], type=pa.binary(4)),
    })


def test_page_indexes_equal_pyarrow_and_datafusion_uses_them(tmp_path):
    """ColumnIndex and OffsetIndex as pyarrow writes them (first rows, null
    pages, min/max in the column's order, boundary order, null counts); the
    locations point at the file's pages; DataFusion prunes pages with them."""
    from pqfast import _pqfast

    table = page_index_table()
    kw = dict(row_group_size=20000, data_page_size=16000)
    path, ref = tmp_path / "ours.parquet", tmp_path / "pyarrow.parquet"
    pq.write_table(table, path, **kw)
    pq.write_table(table, ref, write_page_index=True, **kw)
    cols = table.column_names
    before = pq.read_table(path)
    s = pqfast.index(path, cols)
    md = pq.read_metadata(path)
    assert s.offset_indexes == md.num_row_groups * len(cols)
    # "d" holds a NaN in its first page but not only NaN: every chunk gets a ColumnIndex.
    assert s.column_indexes == md.num_row_groups * len(cols)
    assert ipc_bytes(pq.read_table(path)) == ipc_bytes(before)  # NaN-safe equality
    for rg in range(md.num_row_groups):
        for c in range(md.num_columns):
            assert md.row_group(rg).column(c).has_column_index and md.row_group(rg).column(c).has_offset_index
            ours = _pqfast._read_page_index(os.fsencode(path), rg, c)
            theirs = _pqfast._read_page_index(os.fsencode(ref), rg, c)
            assert [p[2] for p in ours["offset_index"]] == [p[2] for p in theirs["offset_index"]], (rg, c)
            assert ours["column_index"] == theirs["column_index"], (rg, cols[c])
            data = path.read_bytes()
            for off, size, _ in ours["offset_index"]:
                h = _pqfast._parse_page_header(data[off : off + size])  # a data page's header starts there
                assert h["header_size"] + h["compressed_page_size"] == size
                assert h["type"] in ("DATA_PAGE", "DATA_PAGE_V2")
    again = pqfast.index(path, cols)
    assert again.bytes_appended == 0 and again.offset_indexes == 0

    datafusion = pytest.importorskip("datafusion")
    import re

    value = table.column("id")[25000].as_py()
    cfg = datafusion.SessionConfig().set("datafusion.execution.parquet.enable_page_index", "true")
    ctx = datafusion.SessionContext(cfg)
    ctx.register_parquet("t", str(path))
    plan = str(ctx.sql(f"EXPLAIN ANALYZE SELECT count(*) FROM t WHERE id = {value}").to_arrow_table().column(1)[0])
    m = re.search(r"page_index_rows_pruned=([\d.]+) K total → ([\d.]+) K matched", plan)
    assert m and float(m.group(2)) < float(m.group(1)), plan
    assert ctx.sql(f"SELECT count(*) AS n FROM t WHERE id = {value}").to_arrow_table().column(0)[0].as_py() == \
        pc_count(table, value)


def ipc_bytes(table):
    sink = pa.BufferOutputStream()
    t = table.combine_chunks()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    return sink.getvalue().to_pybytes()


def pc_count(table, value):
    import pyarrow.compute as pc

    return pc.sum(pc.equal(table.column("id"), value)).as_py()


CRASH_CHILD = textwrap.dedent("""
    import sys
    import pqfast
    print("ready", flush=True)
    sys.stdin.readline()
    pqfast.index(sys.argv[1], ["id", "key"], threads=1)
    print("done", flush=True)
""")


def test_sigkill_at_random_points_leaves_old_or_new_file(tmp_path):
    """Kill the indexing process at random instants: the file is always the
    old one or the complete new one (byte for byte), never anything else."""
    table = lake_table(n=200_000, seed=5)
    path = tmp_path / "crash.parquet"
    pq.write_table(table, path, row_group_size=50_000, use_dictionary=False)
    old = path.read_bytes()
    ref = tmp_path / "ref" / "crash.parquet"
    ref.parent.mkdir()
    shutil.copy(path, ref)
    pqfast.index(ref, ["id", "key"], threads=1)
    new = ref.read_bytes()
    expected_table = pq.read_table(ref)
    runs = 100 if LONG else 12
    rng = random.Random(18)
    seen = {"old": 0, "new": 0}
    env = dict(os.environ)
    for _ in range(runs):
        path.write_bytes(old)
        child = subprocess.Popen([sys.executable, "-c", CRASH_CHILD, str(path)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, env=env, text=True)
        assert child.stdout.readline().strip() == "ready"
        child.stdin.write("go\n")
        child.stdin.flush()
        # Random instants over the indexing (the delays are where to kill, not measurements).
        signal_at = rng.uniform(0, 0.12)
        try:
            child.wait(timeout=signal_at)
        except subprocess.TimeoutExpired:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        now = path.read_bytes()
        assert now in (old, new), f"file is neither the old nor the new one ({len(now)} bytes)"
        seen["old" if now == old else "new"] += 1
        assert pq.read_table(path).equals(expected_table)
        for stray in tmp_path.glob(".crash.parquet.pqfast-index-*"):
            stray.unlink()  # what a killed run leaves: never the file itself
    assert sum(seen.values()) == runs
    print("sigkill outcomes:", seen)


TESTING_FILES = ["alltypes_plain.parquet", "alltypes_dictionary.parquet", "alltypes_tiny_pages_plain.parquet",
                 "byte_stream_split.zstd.parquet", "datapage_v2.snappy.parquet",
                 "datapage_v2_empty_datapage.snappy.parquet", "delta_encoding_optional_column.parquet",
                 "delta_byte_array.parquet", "fixed_length_decimal.parquet", "float16_zeros_and_nans.parquet",
                 "int32_with_null_pages.parquet", "nan_in_stats.parquet", "single_nan.parquet",
                 "int96_from_spark.parquet", "nulls.snappy.parquet", "rle_boolean_encoding.parquet"]


@pytest.mark.parametrize("name", TESTING_FILES)
def test_parquet_testing_files_index_and_read_the_same(data_dir, tmp_path, name):
    """Every leaf of parquet-testing files of many writers and encodings: the
    file reads the same, its page indexes parse and check against the file,
    its new filters hold every value pyarrow reads, a second run adds nothing."""
    from pqfast import _pqfast

    path = tmp_path / name
    shutil.copy(data_dir / name, path)
    md = pq.read_metadata(path)
    cols = [md.schema.column(i).path for i in range(md.num_columns)]
    before = pq.read_table(path)
    s = pqfast.index(path, cols)
    assert s.chunks_indexed + s.chunks_had_filter + s.chunks_unsupported == md.num_row_groups * len(cols)
    assert ipc_bytes(pq.read_table(path)) == ipc_bytes(before)
    md = pq.read_metadata(path)
    for rg in range(md.num_row_groups):
        for c in range(md.num_columns):
            _pqfast._read_page_index(os.fsencode(path), rg, c)  # parses and validates, or raises
    for d in s.details[0]["chunks"]:
        if d["action"] != "indexed" or md.schema.column(d["leaf"]).physical_type == "INT96":
            continue
        col = md.schema.column(d["leaf"]).path
        start = sum(md.row_group(g).num_rows for g in range(d["row_group"]))
        values = pq.read_table(path, columns=[col]).column(0).slice(start, md.row_group(d["row_group"]).num_rows)
        present = [v for v in values.to_pylist() if v is not None][:200]
        if not present or "." in col:
            continue
        got = pqfast.prune(path, col, present, use_statistics=False, by_value=True)
        got = got.filter(pa.compute.equal(got["row_group"], d["row_group"]))
        assert "absent" not in got["verdict"].to_pylist(), (name, col)
    again = pqfast.index(path, cols)
    assert again.bytes_appended == 0 and again.files_unchanged == 1


def test_sidecar_leaves_files_alone_and_prune_uses_it(tmp_path):
    """sidecar=True: one index file beside the lake, data files untouched;
    prune reads it (absent / maybe, reason "bloom filter (sidecar)"), with
    the tail index would append; stale entries ignored with a warning;
    a second run rewrites nothing; a corrupt sidecar is ignored, with a warning."""
    import warnings

    pytest.importorskip("polars")
    import polars as pl
    from pqfast import _sidecar

    lake = tmp_path / "lake"
    lake.mkdir()
    rng = np.random.default_rng(3)
    for i in range(4):
        ids = rng.permutation(20000) * 2 + i * 100_000
        pl.DataFrame({"id": ids, "key": [f"k{x}" for x in ids]}).write_parquet(lake / f"f{i}.parquet",
                                                                              row_group_size=5000)
    before = {p: p.read_bytes() for p in lake.glob("*.parquet")}
    s = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert s.sidecar == str(lake / "_pqfast_index")
    assert s.chunks_indexed == 2 * sum(pq.read_metadata(p).num_row_groups for p in before)
    assert {p: p.read_bytes() for p in lake.glob("*.parquet")} == before

    # The sidecar holds the bytes index would append to the file.
    copy = tmp_path / "copy.parquet"
    shutil.copy(lake / "f1.parquet", copy)
    pqfast.index(copy, ["id", "key"])
    sc = _sidecar.read(str(lake / "_pqfast_index"))
    e = sc.files["f1.parquet"]
    assert sc.blob(e) == copy.read_bytes()[e.size:]

    present = [int(x) for x in pl.read_parquet(lake / "f1.parquet")["id"][:50]]
    got = pqfast.prune(lake, "id", present, by_value=True)
    per_rg = {}
    for row in got.to_pylist():
        per_rg.setdefault((row["path"], row["row_group"], row["value"]), row["verdict"])
    f1 = pl.read_parquet(lake / "f1.parquet")["id"].to_list()
    for v in present:  # the row group holding each value is kept
        rg = f1.index(v) // 5000
        assert per_rg[(str(lake / "f1.parquet"), rg, str(v))] == "maybe"
    absent = [100_000 + 2 * k + 1 for k in range(500)]  # odd: inside f1's min/max, never written
    got = pqfast.prune(lake, "id", absent, by_value=True)
    verdicts = got["verdict"].to_pylist()
    assert verdicts.count("absent") >= 0.95 * len(verdicts)
    assert "bloom filter (sidecar)" in got["reason"].to_pylist()

    # read_table(filters=) skips the row groups the sidecar's filters rule
    # out, and returns the rows pyarrow returns.
    v = present[7]
    for f in ([("id", "=", v)], [("key", "in", [f"k{v}", "nope"])], [("id", "in", absent[:20])],
              [[("id", "=", v)], [("key", "=", f"k{present[9]}")]], [[("id", "=", v)], [("id", ">", 390_000)]],
              [("id", "!=", v)], [("key", "in", [f"k{v}", None])]):
        got, st = pqfast.read_table(lake, filters=f, stats=True)
        want = pq.read_table(lake, filters=f)
        assert sorted(got["id"].to_pylist()) == sorted(want["id"].to_pylist()), f
        assert st["files_with_sidecar"] == 4, st
        if f[0] == ("id", "=", v) or f[0] == ("id", "in", absent[:20]):
            n_rg = sum(pq.read_metadata(p).num_row_groups for p in before)
            pruned = st["row_groups_pruned_by_bloom"] + st["row_groups_pruned_by_statistics"]
            assert pruned >= n_rg - 2 and st["row_groups_pruned_by_bloom"] > 0, (f, st)
        if f in ([("id", "!=", v)], [("key", "in", [f"k{v}", None])]):
            assert st["row_groups_pruned_by_bloom"] == 0  # nothing a Bloom filter can prove

    again = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert again.chunks_indexed == 0 and again.bytes_appended == 0

    pl.DataFrame({"id": [1, 2, 3], "key": ["a", "b", "c"]}).write_parquet(lake / "f2.parquet")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = pqfast.prune(lake, "id", [2])
    assert any("changed since" in str(x.message) and "f2.parquet" in str(x.message) for x in w)
    assert got.filter(pa.compute.match_substring(got["path"], "f2"))["verdict"].to_pylist() == ["no_filter"]
    rebuilt = pqfast.index(lake, ["id", "key"], sidecar=True)
    assert rebuilt.chunks_indexed == 2 and rebuilt.bytes_appended > 0

    data = (lake / "_pqfast_index").read_bytes()
    (lake / "_pqfast_index").write_bytes(b"XXXXXXXX" + data[8:])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = pqfast.prune(lake, "id", [2])
    assert any("sidecar ignored" in str(x.message) for x in w)
    for cut in (4, 15, 40, len(data) // 2):
        (lake / "_pqfast_index").write_bytes(data[:cut])
        with pytest.raises(pqfast.FormatError):
            _sidecar.read(str(lake / "_pqfast_index"))


def test_two_indexers_of_one_file_take_turns(tmp_path):
    """Two indexers at once (threads; flock serialises them): one appends,
    the other either finds the file replaced and leaves it ("conflict") or
    comes after and adds its own column; no filter is ever lost silently."""
    from concurrent.futures import ThreadPoolExecutor

    from pqfast import _pqfast

    table = lake_table(n=200_000, seed=8)
    for trial in range(4):
        path = tmp_path / f"two{trial}.parquet"
        pq.write_table(table, path, row_group_size=50_000, use_dictionary=False)
        expected = pq.read_table(path)
        with ThreadPoolExecutor(2) as pool:
            a, b = pool.map(lambda col: _pqfast._index_file(os.fsencode(path), [col], 0.01, 0, False, False),
                            ["id", "key"])
        outcomes = sorted([a["outcome"], b["outcome"]])
        assert outcomes in (["conflict", "indexed"], ["indexed", "indexed"]), outcomes
        md = pq.read_metadata(path)
        names = [md.schema.column(i).path for i in range(md.num_columns)]
        has = {c: md.row_group(0).column(names.index(c)).bloom_filter_offset is not None for c in ("id", "key")}
        for res, col in ((a, "id"), (b, "key")):
            assert has[col] == (res["outcome"] == "indexed"), (res["outcome"], col, has)
        assert pq.read_table(path).equals(expected)


def test_cli_sidecar_then_probe(tmp_path):
    table = lake_table(n=8000, seed=12)
    lake = tmp_path / "lake"
    lake.mkdir()
    for i in range(2):
        pq.write_table(table.slice(i * 4000, 4000), lake / f"p{i}.parquet", row_group_size=2000)
    before = {p: p.read_bytes() for p in lake.glob("*.parquet")}
    out = run_cli("index", str(lake), "--columns", "id", "--sidecar").stdout
    assert "sidecar" in out and (lake / "_pqfast_index").exists()
    assert {p: p.read_bytes() for p in lake.glob("*.parquet")} == before
    present = int(table.column("id")[100].as_py())
    rows = [json.loads(line) for line in run_cli("probe", str(lake), "--column", "id", "--json",
                                                 str(present)).stdout.splitlines()]
    assert any(r["verdict"] == "maybe" and "sidecar" in r["reason"] for r in rows)
    assert not any(r["verdict"] == "no_filter" for r in rows)  # every chunk has a sidecar filter


def test_polars_dictionary_chunks_proven_by_the_offset_index(tmp_path):
    """polars writes no encoding_stats but an OffsetIndex: the data pages'
    headers found through it prove a chunk dictionary-only, and the filter
    (built from the dictionary page alone) equals the one built with the
    OffsetIndex removed (where the whole chunk is read)."""
    import polars as pl

    import footer_edit

    rng = np.random.default_rng(3)
    n = 40_000
    table = pa.table({"k": pa.array([f"key-{int(x)}" for x in rng.integers(0, 300, n)]),
                      "v": pa.array(rng.integers(0, 50, n), pa.int64())})
    src = tmp_path / "polars.parquet"
    pl.from_arrow(table).write_parquet(src, row_group_size=10_000, data_page_size=16384)
    md = pq.read_metadata(src)
    assert md.row_group(0).column(0).has_offset_index
    no_oi = tmp_path / "no_offset_index.parquet"
    head, meta = footer_edit.read_footer(src)
    for rg in meta[4][1][1]:  # FileMetaData.row_groups
        for chunk in rg[1][1][1]:  # RowGroup.columns
            for f in (4, 5):  # offset_index_offset / _length
                chunk.pop(f, None)
    footer_edit.write_footer(no_oi, head, meta)
    def rchar():  # bytes this process read through syscalls
        with open("/proc/self/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("rchar:"))

    r0 = rchar()
    a = pqfast.index(str(src), ["k", "v"], page_index=False)
    r1 = rchar()
    b = pqfast.index(str(no_oi), ["k", "v"], page_index=False)
    r2 = rchar()
    # The data pages were not read where the OffsetIndex located their headers.
    data_pages = sum(c.total_compressed_size - (c.data_page_offset - c.dictionary_page_offset)
                     for c in (md.row_group(r).column(i) for r in range(md.num_row_groups) for i in range(2)))
    assert (r2 - r1) - (r1 - r0) > data_pages // 2, (r1 - r0, r2 - r1, data_pages)
    chunks = 2 * md.num_row_groups
    assert a.chunks_indexed == b.chunks_indexed == chunks
    assert a.chunks_from_dictionary == b.chunks_from_dictionary == chunks
    for rg in range(md.num_row_groups):
        for col in ("k", "v"):
            assert filter_bytes(src, rg, col) == filter_bytes(no_oi, rg, col)
    assert pqfast.read_table(src).equals(pqfast.read_table(no_oi))
    keys = set(table.column("k").to_pylist())
    hits = pqfast.prune(str(src), "k", sorted(keys)[:20])
    assert hits.num_rows > 0


WRITERS_DIR = Path(__file__).resolve().parent.parent / "data" / "writers"


@pytest.mark.parametrize("name", sorted(p.name for p in WRITERS_DIR.glob("*.parquet")))
def test_files_of_six_writers_index_and_read_the_same(tmp_path, name):
    """Spark (parquet-java), fastparquet, chDB, DuckDB, DataFusion and polars
    files (tests/data/writers): every flat non-boolean column indexed; the
    file reads as before in pyarrow, DuckDB and pqfast; every present value
    is kept by the new filters (no false negative); a second run appends
    nothing."""
    import duckdb

    src = WRITERS_DIR / name
    path = tmp_path / name
    shutil.copy(src, path)
    f = pqfast.ParquetFile(str(path))
    cols = [c["dotted_path"] for c in f.columns
            if c["physical_type"] != "BOOLEAN" and len(c["path"]) == 1 and not c.get("max_repetition_level")]
    f.close()
    try:
        before = pq.read_table(src)
    except Exception:  # a file pyarrow itself cannot read (one DataFusion dictionary column)
        before = None
    original = src.read_bytes()
    summary = pqfast.index(str(path), cols)
    assert not summary.errors, summary.errors
    after_bytes = path.read_bytes()
    assert after_bytes[: len(original)] == original
    if before is not None:
        assert pq.read_table(path).equals(before)
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchall() == \
        con.execute(f"SELECT count(*) FROM read_parquet('{src}')").fetchall()
    if summary.chunks_indexed:
        table = pqfast.read_table(src, columns=cols)
        md = pq.read_metadata(path)
        for col in cols:
            t = table.column(col).type
            if pa.types.is_time(t) or getattr(t, "unit", None) == "ns":
                # Python's time and datetime cannot hold these values exactly
                # (nanoseconds; fastparquet's test times run past 24 h).
                continue
            values = [v for v in table.column(col).to_pylist() if v is not None][:25]
            if not values:
                continue
            try:
                got = pqfast.prune(str(path), col, values, use_statistics=False, by_value=True)
            except (pqfast.FormatError, TypeError):
                continue  # a type prune does not take values of (e.g. a polars Int128 column)
            per_value = {}
            for v, verdict in zip(got["value"].to_pylist(), got["verdict"].to_pylist()):
                per_value.setdefault(repr(v), []).append(verdict)
            assert all("absent" not in vs or "maybe" in vs for vs in per_value.values()), (col, per_value)
        assert md.num_row_groups >= 1
    again = pqfast.index(str(path), cols)
    assert again.bytes_appended == 0 and again.chunks_indexed == 0
