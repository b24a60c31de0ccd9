"""The Parquet layer: footers against pyarrow, bad and mutated files, Bloom
verdicts against DuckDB's parquet_bloom_probe, min/max verdicts against the
footer statistics, and the CLI."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
import os
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from conftest import DATA, run_cli

BAD = DATA.parent / "bad_data"
ALL_DATA_FILES = sorted(p for p in DATA.rglob("*") if p.is_file()) if DATA.exists() else []
# pyarrow refuses these for what the schema means (e.g. "Map keys must be annotated as required").
SCHEMA_ONLY_REJECTS = {"incorrect_map_schema.parquet"}
BLOOM_WORDS = ["Hello", "This is", "a", "test", "How", "are you", "doing ", "today", "the quick",
               "brown fox", "jumps", "over", "the lazy", "dog"]


def _pyarrow_metadata(path: Path):
    try:
        return pq.read_metadata(path)
    except Exception:  # noqa: BLE001 - pyarrow refuses the file
        return None


# ---- footers -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_DATA_FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_footer_matches_pyarrow(path: Path):
    """Every file of parquet-testing/data: pqfast parses what pyarrow parses, equal field by field,
    and rejects the rest with a FormatError."""
    want = _pyarrow_metadata(path)
    if path.name in SCHEMA_ONLY_REJECTS:
        # pyarrow rejects the schema's meaning (not its bytes); the footer itself is sound.
        assert pqfast.ParquetFile(path).num_columns > 0
        return
    if want is None:
        with pytest.raises(pqfast.FormatError):
            pqfast.ParquetFile(path)
        return
    got = pqfast.ParquetFile(path)
    assert got.num_rows == want.num_rows
    assert got.num_row_groups == want.num_row_groups
    assert got.num_columns == want.num_columns
    assert got.created_by == (want.created_by or "")
    if path.name.endswith(".encrypted"):
        # A plaintext footer over encrypted columns: pyarrow 26 aborts the process when its
        # column metadata is touched without keys, so only the file level is compared.
        assert [got.row_group(i).num_rows for i in range(got.num_row_groups)] == \
            [want.row_group(i).num_rows for i in range(want.num_row_groups)]
        return
    for i in range(want.num_row_groups):
        wr, gr = want.row_group(i), got.row_group(i)
        assert gr.num_rows == wr.num_rows
        assert gr.num_columns == wr.num_columns
        assert gr.total_byte_size == wr.total_byte_size
        for j in range(wr.num_columns):
            wc, gc = wr.column(j), gr.column(j)
            where = f"rg {i} col {j}"
            assert gc.path_in_schema == wc.path_in_schema, where
            assert gc.physical_type == wc.physical_type, where
            assert gc.encodings == wc.encodings, where
            # pyarrow names codecs by Arrow's enum: Parquet's LZ4_RAW is its "LZ4" and
            # Parquet's (Hadoop-framed) LZ4 its "UNKNOWN"; pqfast uses parquet.thrift's names.
            assert {"LZ4_RAW": "LZ4", "LZ4": "UNKNOWN"}.get(gc.compression, gc.compression) == wc.compression, where
            assert gc.num_values == wc.num_values, where
            assert gc.data_page_offset == wc.data_page_offset, where
            assert gc.total_compressed_size == wc.total_compressed_size, where
            assert gc.total_uncompressed_size == wc.total_uncompressed_size, where
            assert gc.file_offset == wc.file_offset, where
            if wc.has_dictionary_page:
                assert gc.dictionary_page_offset == wc.dictionary_page_offset, where
            assert gc.bloom_filter_offset == wc.bloom_filter_offset, where
            assert gc.bloom_filter_length == wc.bloom_filter_length, where
            assert gc.has_column_index == wc.has_column_index, where
            assert gc.has_offset_index == wc.has_offset_index, where
            ws, gs = wc.statistics, gc.statistics
            if ws is None:
                continue
            assert gs is not None, where
            if ws.null_count is not None and ws.has_null_count:
                assert gs.null_count == ws.null_count, where
            if ws.has_distinct_count:
                assert gs.distinct_count == ws.distinct_count, where
            if ws.has_min_max:
                assert gs.has_min_max, where
                _assert_stat_equal(gs.min, ws.min, where + " min")
                _assert_stat_equal(gs.max, ws.max, where + " max")


def _assert_stat_equal(got, want, where):
    if isinstance(want, float) and isinstance(got, float) and np.isnan(want):
        assert np.isnan(got), where
        return
    if isinstance(want, dt.datetime) and isinstance(got, dt.datetime):
        assert got.replace(tzinfo=None) == want.replace(tzinfo=None), where
        return
    assert got == want, where


def test_column_descriptors_and_levels(data_dir):
    f = pqfast.ParquetFile(data_dir / "nested_structs.rust.parquet")
    want = pq.ParquetFile(data_dir / "nested_structs.rust.parquet").schema
    assert [c["dotted_path"] for c in f.columns] == [want.column(i).path for i in range(len(want))]
    assert [c["max_definition_level"] for c in f.columns] == [want.column(i).max_definition_level for i in range(len(want))]
    assert [c["max_repetition_level"] for c in f.columns] == [want.column(i).max_repetition_level for i in range(len(want))]


def test_bloom_location_without_and_with_length(data_dir):
    a = pqfast.ParquetFile(data_dir / "data_index_bloom_encoding_stats.parquet").row_group(0).column(0)
    assert (a.bloom_filter_offset, a.bloom_filter_length) == (192, None)
    b = pqfast.ParquetFile(data_dir / "data_index_bloom_encoding_with_length.parquet").row_group(0).column(0)
    assert (b.bloom_filter_offset, b.bloom_filter_length) == (253, 2064)
    fa, fb = a.bloom_filter(), b.bloom_filter()
    assert (fa.num_bytes, fb.num_bytes) == (1024, 2048)
    for f in (fa, fb):
        assert f.check(BLOOM_WORDS, "BYTE_ARRAY").all()
        assert not f.check(["NOT_EXISTS", "Hello_Not_Exists", "doing"], "BYTE_ARRAY").any()


@pytest.mark.parametrize("name", ["data_index_bloom_encoding_stats.parquet",
                                  "data_index_bloom_encoding_with_length.parquet"])
def test_prune_parquet_testing_bloom_files(data_dir, name):
    path = data_dir / name
    t = pqfast.prune(path, "String", BLOOM_WORDS, by_value=True)
    assert t["verdict"].to_pylist() == ["maybe"] * len(BLOOM_WORDS)
    for absent in ["NOT_EXISTS", "Hello_Not_Exists", "doing"]:
        t = pqfast.prune(path, "String", [absent])
        assert t.to_pylist() == [{"path": str(path), "row_group": 0, "verdict": "absent", "reason": "bloom filter"}]
    # Below the minimum: min/max decide without the filter.
    t = pqfast.prune(path, "String", ["AAA"])
    assert t["verdict"].to_pylist() == ["absent"] and t["reason"].to_pylist() == ["min/max"]


def test_encrypted_footer_is_a_clear_error(data_dir):
    with pytest.raises(pqfast.FormatError, match="encrypted"):
        pqfast.ParquetFile(data_dir / "uniform_encryption.parquet.encrypted")


def test_not_parquet_is_a_clear_error(data_dir):
    with pytest.raises(pqfast.FormatError, match="PAR1"):
        pqfast.ParquetFile(data_dir / "bloom_filter.xxhash.bin")


def test_file_objects_and_filesystems(data_dir):
    import pyarrow.fs as pafs

    path = data_dir / "data_index_bloom_encoding_stats.parquet"
    want = pqfast.prune(path, "String", ["Hello", "nope"], by_value=True)["verdict"].to_pylist()
    with open(path, "rb") as fh:
        f = pqfast.ParquetFile(fh)
        assert f.num_rows == 14
        assert f.row_group(0).column(0).bloom_filter().num_bytes == 1024
    f = pqfast.ParquetFile(io.BytesIO(path.read_bytes()))
    assert f.row_group(0).column(0).statistics.max == "today"
    fs = pafs.LocalFileSystem()
    assert pqfast.ParquetFile(str(path), filesystem=fs).num_rows == 14
    got = pqfast.prune(str(path), "String", ["Hello", "nope"], filesystem=fs, by_value=True)
    assert got["verdict"].to_pylist() == want
    fsspec = pytest.importorskip("fsspec")
    got = pqfast.prune(str(path), "String", ["Hello", "nope"], filesystem=fsspec.filesystem("file"), by_value=True)
    assert got["verdict"].to_pylist() == want


# ---- bad, truncated and corrupted files ----------------------------------------------------------


@pytest.mark.parametrize("path", sorted(BAD.glob("*")) if BAD.exists() else [], ids=lambda p: p.name)
def test_bad_data(path: Path):
    """Each bad file: a clear FormatError, or (when only its pages are bad) a footer equal to pyarrow's."""
    want = _pyarrow_metadata(path)
    try:
        got = pqfast.ParquetFile(path)
    except pqfast.FormatError as e:
        assert str(e) and str(path) in str(e)
        return
    assert want is not None, "pqfast accepted a footer pyarrow rejects"
    assert got.num_rows == want.num_rows and got.num_row_groups == want.num_row_groups
    # Page headers: walk every chunk; errors must be FormatErrors.
    for i in range(got.num_row_groups):
        for j in range(got.num_columns):
            try:
                got.page_headers(i, j)
            except pqfast.FormatError:
                pass


def _mutation_inputs(data_dir):
    names = ["alltypes_plain.parquet", "data_index_bloom_encoding_stats.parquet",
             "nested_structs.rust.parquet", "delta_binary_packed.parquet", "nulls.snappy.parquet"]
    return [(data_dir / n).read_bytes() for n in names]


def test_truncated_files_never_crash(data_dir):
    for blob in _mutation_inputs(data_dir):
        n = len(blob)
        cuts = sorted({0, 1, 4, 7, 8, 11, 12, n // 2, n - 9, n - 8, n - 5, n - 1} | set(range(max(0, n - 400), n, 7)))
        for cut in cuts:
            with pytest.raises(pqfast.FormatError):
                pqfast.ParquetFile(io.BytesIO(blob[:cut]))


def test_corrupted_footers_never_crash(data_dir):
    rng = random.Random(2026)
    for blob in _mutation_inputs(data_dir):
        footer_len = int.from_bytes(blob[-8:-4], "little")
        start = len(blob) - 8 - footer_len
        for _ in range(300):
            b = bytearray(blob)
            for _ in range(rng.choice([1, 1, 2, 4, 16])):
                pos = rng.randrange(start, len(blob) - 8)
                b[pos] = rng.randrange(256)
            try:
                f = pqfast.ParquetFile(io.BytesIO(bytes(b)))
                # Whatever parses must be usable.
                for i in range(f.num_row_groups):
                    for j in range(f.num_columns):
                        c = f.row_group(i).column(j)
                        _ = (c.encodings, c.statistics, c.path_in_schema)
            except pqfast.FormatError as e:
                assert str(e)
        # A footer length beyond the file.
        b = bytearray(blob)
        b[-8:-4] = (len(blob) + 100).to_bytes(4, "little")
        with pytest.raises(pqfast.FormatError, match="footer length"):
            pqfast.ParquetFile(io.BytesIO(bytes(b)))


def test_hostile_list_sizes_are_bounded():
    # FileMetaData{1: version=1, 2: schema=list<struct> announcing 2^31 elements}.
    footer = bytes([0x15, 0x02, 0x19, 0xFC, 0x80, 0x80, 0x80, 0x80, 0x08])
    blob = b"PAR1" + footer + len(footer).to_bytes(4, "little") + b"PAR1"
    with pytest.raises(pqfast.FormatError, match="list announces"):
        pqfast.ParquetFile(io.BytesIO(blob))


# ---- lakes written by pyarrow 26 and DuckDB 2.0 --------------------------------------------


@pytest.fixture(scope="session")
def pyarrow_lake(tmp_path_factory):
    d = tmp_path_factory.mktemp("pyarrow_lake")
    rng = np.random.default_rng(7)
    for k in range(4):
        n = 3000
        ids = rng.choice(1 << 40, size=n, replace=False).astype(np.int64)
        t = pa.table({
            "id": pa.array(ids),
            "name": pa.array([f"user-{x}" for x in ids % 100000]),
            "small": pa.array((ids % 1000).astype(np.int32)),
            "score": pa.array((ids % 997).astype(np.float64) / 7.0),
            "day": pa.array((ids % 3000).astype(np.int32), pa.int32()).cast(pa.date32()),
            "flag": pa.array(ids % 2 == 0),
            "nobloom": pa.array(ids),
        })
        pq.write_table(t, d / f"part-{k}.parquet", row_group_size=700,
                       bloom_filter_options={"id": {"ndv": n, "fpp": 0.01}, "name": {"ndv": n, "fpp": 0.05},
                                             "small": True, "score": True, "day": True})
    return d


@pytest.fixture(scope="session")
def duckdb_lake(tmp_path_factory):
    duckdb = pytest.importorskip("duckdb")
    d = tmp_path_factory.mktemp("duckdb_lake")
    con = duckdb.connect()
    for k in range(3):
        con.sql(f"""COPY (SELECT (range * 7 + {k})::BIGINT AS id, 'k' || ((range * 13 + {k}) % 300)::VARCHAR AS s,
                          ((range + {k}) % 50)::INTEGER AS small
                        FROM range({5000 + 1000 * k}))
                   TO '{d}/part-{k}.parquet' (FORMAT parquet, ROW_GROUP_SIZE 2048)""")
    return d


def _duckdb_excludes(con, path, column, value):
    rows = con.execute("SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?) ORDER BY 1",
                       [str(path), column, value]).fetchall()
    return [bool(r[1]) for r in rows]


def _bloom_verdicts(path, column, values):
    """Per value, per row group: True when the Bloom filter alone excludes it."""
    t = pqfast.prune(path, column, values, by_value=True, use_statistics=False)
    nv = len(values)
    v = t["verdict"].to_pylist()
    ngroups = len(v) // nv
    return [[v[g * nv + i] == "absent" for g in range(ngroups)] for i in range(nv)]


def _check_against_duckdb(lake, column, values):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    checked = 0
    for path in sorted(lake.glob("*.parquet")):
        ours = _bloom_verdicts(path, column, values)
        for i, value in enumerate(values):
            theirs = _duckdb_excludes(con, path, column, value)
            assert ours[i] == theirs, f"{path.name} {column}={value!r}"
            checked += len(theirs)
    assert checked > 0


def _lake_values(lake, column, n_present=40, absent=()):
    t = pq.read_table(sorted(lake.glob("*.parquet"))[0], columns=[column])
    present = t.column(0).to_pylist()[::max(1, t.num_rows // n_present)][:n_present]
    return present + list(absent)


@pytest.mark.parametrize("column,absent", [
    ("id", [-1, 12345, 1 << 41]),
    ("name", ["nobody", "", "user-"]),
    ("small", [-5, 5000]),
    ("score", [-1.5, 1e9]),
])
def test_bloom_verdicts_equal_duckdb_on_pyarrow_lake(pyarrow_lake, column, absent):
    _check_against_duckdb(pyarrow_lake, column, _lake_values(pyarrow_lake, column, absent=absent))


@pytest.mark.parametrize("column,absent", [("s", ["k300", "zzz", "k-1"]), ("id", [-7, 3]), ("small", [99])])
def test_bloom_verdicts_equal_duckdb_on_duckdb_lake(duckdb_lake, column, absent):
    _check_against_duckdb(duckdb_lake, column, _lake_values(duckdb_lake, column, absent=absent))


def test_bloom_verdicts_equal_duckdb_on_parquet_testing(data_dir):
    for name in ["data_index_bloom_encoding_stats.parquet", "data_index_bloom_encoding_with_length.parquet"]:
        _check_against_duckdb_file(data_dir / name, "String", BLOOM_WORDS + ["NOT_EXISTS", "Hello_Not_Exists", "doing"])


def _check_against_duckdb_file(path, column, values):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    ours = _bloom_verdicts(path, column, values)
    for i, value in enumerate(values):
        assert ours[i] == _duckdb_excludes(con, path, column, value), value


def _true_membership(path, column, values):
    """Per value, per row group: does the row group really hold it?"""
    f = pq.ParquetFile(path)
    out = []
    groups = [set(f.read_row_group(g, columns=[column]).column(0).to_pylist()) for g in range(f.num_row_groups)]
    for v in values:
        out.append([v in g for g in groups])
    return out


@pytest.mark.parametrize("column", ["id", "name", "small", "score", "day", "nobloom"])
def test_no_false_negatives_and_stats_verdicts(pyarrow_lake, column):
    """A row group that holds a value is never 'absent'; min/max verdicts follow the footer statistics."""
    values = _lake_values(pyarrow_lake, column, absent={
        "id": [-1, 1 << 45], "name": ["a", "zzz"], "small": [-1, 10**6], "score": [-2.0, 1e12],
        "day": [dt.date(1960, 1, 1), dt.date(2100, 1, 1)], "nobloom": [-3]}[column])
    for path in sorted(pyarrow_lake.glob("*.parquet")):
        t = pqfast.prune(path, column, values, by_value=True)
        verdicts = t["verdict"].to_pylist()
        reasons = t["reason"].to_pylist()
        truth = _true_membership(path, column, values)
        meta = pq.read_metadata(path)
        ci = [meta.schema.column(j).path for j in range(meta.num_columns)].index(column)
        nv = len(values)
        for g in range(meta.num_row_groups):
            st = meta.row_group(g).column(ci).statistics
            for i, v in enumerate(values):
                verdict, reason = verdicts[g * nv + i], reasons[g * nv + i]
                if truth[i][g]:
                    assert verdict != "absent", (path.name, g, v)
                outside = st.has_min_max and (v < st.min or v > st.max)
                assert (reason == "min/max") == outside, (path.name, g, v, st.min, st.max)
                if column == "nobloom" and not outside:
                    assert verdict == "no_filter"


def test_prune_many_files_and_glob(pyarrow_lake):
    t = pqfast.prune(str(pyarrow_lake / "*.parquet"), "id", [12345])
    assert t.num_rows == 4 * 5  # 4 files x 5 row groups (3000 rows / 700)
    assert set(t["verdict"].to_pylist()) <= {"absent", "maybe"}
    assert t.column_names == ["path", "row_group", "verdict", "reason"]
    # Threads give the same answer as one thread.
    t1 = pqfast.prune(str(pyarrow_lake), "id", [12345, 7], threads=1)
    t2 = pqfast.prune(str(pyarrow_lake), "id", [12345, 7], threads=4)
    assert t1.equals(t2)


def test_prune_table_made_in_cpp_equals_the_assembled_one(pyarrow_lake):
    # prune's table comes from C++ as one Arrow record batch; by_value's from
    # flat arrays assembled in Python. Collapsing by_value's rows per row
    # group gives back the same verdicts, in the same order, and the schema
    # is exactly the documented one.
    import gc

    paths = sorted(str(p) for p in pyarrow_lake.glob("*.parquet"))
    (pyarrow_lake / "broken.parquet").write_bytes(b"PAR1 not a footer PAR1")
    try:
        values = [12345, 7, int(pq.read_table(paths[1], columns=["id"])["id"][5].as_py())]
        t = pqfast.prune(paths + [str(pyarrow_lake / "broken.parquet")], "id", values, on_error="skip")
    finally:
        (pyarrow_lake / "broken.parquet").unlink()
    assert t.schema == pa.schema([("path", pa.string()), ("row_group", pa.int32()), ("verdict", pa.string()),
                                  ("reason", pa.string())])
    t.validate(full=True)  # offsets, UTF-8 and lengths of the buffers made in C++
    per_value = pqfast.prune(paths, "id", values, by_value=True)
    rows = {}
    for path, g, verdict in zip(*(per_value[c].to_pylist() for c in ("path", "row_group", "verdict"))):
        rows.setdefault((path, g), set()).add(verdict)
    expected = [(path, g, "maybe" if "maybe" in vs else "absent") for (path, g), vs in rows.items()]
    assert list(zip(*(t[c].to_pylist() for c in ("path", "row_group", "verdict")))) == expected
    assert len(expected) == 4 * 5
    # The batch owns its buffers: a column kept alone outlives the table.
    reasons = t.column("reason")
    want = reasons.to_pylist()
    del t
    gc.collect()
    assert reasons.to_pylist() == want
    assert all(r == "min/max" or r.startswith(("bloom filter", "min/max + bloom")) for r in want)


def test_glob_matches_python_glob(tmp_path):
    # The C++ expansion (glob(3)) gives what sorted(glob.glob()) gives, on awkward names.
    import glob as pyglob

    from pqfast import _pqfast

    names = ["a.parquet", "b.parquet", ".hidden.parquet", "[x].parquet", "x.parquet", "sp ace.parquet",
             "back\\slash.parquet", "ünï.parquet", "B.parquet", "a.parquet.tmp", "z?.parquet"]
    for n in names:
        (tmp_path / n).write_bytes(b"")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.parquet").write_bytes(b"")
    os.mkdir(os.fsencode(tmp_path) + b"/raw")
    with open(os.fsencode(tmp_path) + b"/raw/\xff\xfe.parquet", "wb"):
        pass  # a name that is not UTF-8
    base = str(tmp_path)
    patterns = ["*.parquet", "*", "?.parquet", "[ab].parquet", "[!a]*.parquet", "[x]*", "*/*.parquet",
                "*\\*", "raw/*", ".*", "nothing*", "sub/c.parquet", "[[]x].parquet",
                # stars only (matched without glob(3)): pieces in order, leftmost first
                "*.*", "a*", "*a*.parquet", "*.parquet*", "b*t", "*p*r*q*", "a*a*", "*.p*t", "x*.parquet",
                "sub/*", "*/c*", ".h*", "*.parquet.tmp*"]
    for pat in patterns:
        full = os.path.join(base, pat)
        assert _pqfast._glob(os.fsencode(full)) == sorted(pyglob.glob(full)), pat
    assert pqfast.parquet.expand_paths(os.path.join(base, "*.parquet")) == sorted(pyglob.glob(os.path.join(base, "*.parquet")))
    # The same list kept in C++ for prune (_PathList): a sequence of the same str.
    kept = _pqfast._glob_paths(os.fsencode(os.path.join(base, "raw", "*")))
    assert kept.to_list() == list(kept) == sorted(pyglob.glob(os.path.join(base, "raw", "*")))
    assert len(kept) == 1 and kept[-1] == kept[0] and kept[0].endswith("\udcff\udcfe.parquet")
    with pytest.raises(IndexError):
        kept[1]
    assert len(pqfast.parquet.expand_paths(os.path.join(base, "*.parquet"))) == 9


def test_float16_min_max_and_bloom(tmp_path):
    # FLOAT16 (FIXED_LEN_BYTE_ARRAY(2)): min/max compared as half floats
    # (-0.0 == +0.0, NaN never excludes); no row group holding a value is absent.
    data = np.array([1.5, -2.0, 0.0, 3.25, 100.0, -0.0, np.nan, 7.0], dtype=np.float16)
    path = tmp_path / "f16.parquet"
    pq.write_table(pa.table({"h": pa.array(data)}), path, row_group_size=2,
                   bloom_filter_options={"h": {"ndv": 16, "fpp": 0.01}})
    probes = [-2.0, 0.0, -0.0, 3.25, 5.0, 200.0, -3.0, 1.5, 7.0]
    t = pqfast.prune(path, "h", probes, by_value=True)
    rows = list(zip(t["row_group"].to_pylist(), t["value"].to_pylist(), t["verdict"].to_pylist(),
                    t["reason"].to_pylist()))
    assert len(rows) == 4 * len(probes)
    meta = pq.read_metadata(path)
    by_stats = 0
    for g, label, verdict, reason in rows:
        v = probes[[repr(float(p)) for p in probes].index(label)]
        group = data[2 * g: 2 * g + 2].astype(np.float64)
        holds = any(x == v for x in group)  # -0.0 == 0.0
        if holds:
            assert verdict != "absent", (g, v)
        st = meta.row_group(g).column(0).statistics
        lo, hi = (np.frombuffer(st.min, np.float16)[0], np.frombuffer(st.max, np.float16)[0])
        outside = v < lo or v > hi
        assert (reason == "min/max") == bool(outside), (g, v, lo, hi, reason)
        by_stats += reason == "min/max"
    assert by_stats >= 8  # 200.0 and -3.0 everywhere, and more


def test_read_pruned_equals_filtered_scan(pyarrow_lake):
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    values = _lake_values(pyarrow_lake, "name", n_present=3, absent=["nobody"])
    got = pqfast.read_pruned(str(pyarrow_lake / "*.parquet"), "name", values, columns=["id", "name"])
    full = ds.dataset(str(pyarrow_lake)).to_table(columns=["id", "name"])
    want = full.filter(pc.is_in(full["name"], value_set=pa.array(values)))
    assert sorted(got["id"].to_pylist()) == sorted(want["id"].to_pylist())


def test_value_typing_errors(pyarrow_lake):
    path = sorted(pyarrow_lake.glob("*.parquet"))[0]
    with pytest.raises(pqfast.FormatError, match="integers"):
        pqfast.prune(path, "id", ["abc"])
    with pytest.raises(pqfast.FormatError, match="out of range"):
        pqfast.prune(path, "small", [1 << 40])
    with pytest.raises(pqfast.FormatError, match="str or bytes"):
        pqfast.prune(path, "name", [5])
    with pytest.raises(pqfast.FormatError, match="BOOLEAN"):
        pqfast.prune(path, "flag", [True])
    with pytest.raises(pqfast.FormatError, match="no column 'nope'"):
        pqfast.prune(path, "nope", [1])
    with pytest.raises(pqfast.FormatError, match="date"):
        pqfast.prune(path, "day", [dt.datetime(2020, 1, 1)])
    # Dates are typed by the column's logical type.
    t = pqfast.prune(path, "day", [dt.date(1970, 1, 5)])
    assert t.num_rows == 5


def test_logical_types_and_decimals(tmp_path):
    t = pa.table({
        "d": pa.array([decimal.Decimal("1.25"), decimal.Decimal("-3.50")], pa.decimal128(9, 2)),
        "d38": pa.array([decimal.Decimal("12345678901234567890.5")] * 2, pa.decimal128(38, 1)),
        "ts": pa.array([dt.datetime(2024, 1, 1, 12), dt.datetime(2024, 6, 1)], pa.timestamp("us")),
        "u8": pa.array([3, 250], pa.uint8()),
        "u64": pa.array([1, (1 << 64) - 1], pa.uint64()),
    })
    path = tmp_path / "typed.parquet"
    pq.write_table(t, path, store_decimal_as_integer=True,
                   bloom_filter_options={c: True for c in t.column_names})
    f = pqfast.ParquetFile(path)
    want = pq.read_metadata(path)
    for j in range(want.num_columns):
        ws, gs = want.row_group(0).column(j).statistics, f.row_group(0).column(j).statistics
        assert gs.min == ws.min and gs.max == ws.max, t.column_names[j]
    cases = {"d": ([decimal.Decimal("1.25")], [decimal.Decimal("1.26")]),
             "d38": ([decimal.Decimal("12345678901234567890.5")], [decimal.Decimal("1")]),
             "ts": ([dt.datetime(2024, 1, 1, 12)], [dt.datetime(2024, 1, 1, 13)]),
             "u8": ([250], [251]),
             "u64": ([(1 << 64) - 1], [7])}
    for col, (present, absent) in cases.items():
        assert pqfast.prune(path, col, present)["verdict"].to_pylist() == ["maybe"], col
        assert pqfast.prune(path, col, absent)["verdict"].to_pylist() == ["absent"], col
    # Unsigned order: 250 > 3 even though it is negative as a signed byte pattern.
    assert pqfast.prune(path, "u64", [2], use_bloom=False)["verdict"].to_pylist() == ["no_filter"]
    with pytest.raises(pqfast.FormatError, match="decimal places"):
        pqfast.prune(path, "d", [decimal.Decimal("1.255")])


def test_float_zero_matches_both_signs(tmp_path):
    path = tmp_path / "z.parquet"
    pq.write_table(pa.table({"x": pa.array([-0.0, 1.0, 2.0])}), path, bloom_filter_options={"x": True})
    # The filter hashed -0.0's bytes; 0.0 == -0.0, so the row group may hold 0.0.
    assert pqfast.prune(path, "x", [0.0])["verdict"].to_pylist() == ["maybe"]


# ---- CLI ------------------------------------------------------------------------------------


def test_cli_inspect(data_dir):
    out = run_cli("inspect", str(data_dir / "data_index_bloom_encoding_with_length.parquet")).stdout
    assert "RLE_DICTIONARY" in out and "253" in out and "2064" in out
    js = json.loads(run_cli("inspect", "--json", str(data_dir / "data_index_bloom_encoding_stats.parquet")).stdout)
    col = js["row_groups"][0]["columns"][0]
    assert col["bloom_filter_offset"] == 192 and col["bloom_filter_length"] is None
    assert col["bloom_filter_bytes"] == 1024 and 0 < col["bloom_filter_fill"] < 1


def test_cli_probe_json(pyarrow_lake, data_dir):
    proc = run_cli("probe", str(pyarrow_lake / "*.parquet"), "--column", "name", "--json", "nobody", "user-1")
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 20
    for r in rows:
        assert set(r) >= {"path", "row_group", "verdict", "reason"}
        assert r["verdict"] in ("absent", "maybe", "no_filter")
    proc = run_cli("probe", str(data_dir / "data_index_bloom_encoding_stats.parquet"), "--column", "String", "doing")
    assert "absent" in proc.stdout
    bad = run_cli("probe", str(pyarrow_lake / "*.parquet"), "--column", "id", "xyz", check=False)
    assert bad.returncode == 1 and "integers" in bad.stderr


def test_cli_probe_bad_file_is_clear(tmp_path):
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"PAR1garbagePAR1")
    proc = run_cli("inspect", str(p), check=False)
    assert proc.returncode == 1 and "error:" in proc.stderr and "Traceback" not in proc.stderr


# ---- Arrow C++ (libparquet from the pyarrow wheel) as a second reference -------------------


def _arrow_peer():
    build = os.environ.get("PQFAST_BUILD_DIR") or str(Path(__file__).resolve().parents[2] / "build" / "dev")
    exe = Path(build) / "peers" / "pqfast_peer_arrow_bloom"
    if not exe.exists():
        pytest.skip("Arrow C++ peer driver not built (configure with -DPQFAST_PEERS=ON)")
    return exe


def _check_against_arrow(path, column, values, physical):
    import subprocess

    exe = _arrow_peer()
    leaf = [c["dotted_path"] for c in pqfast.ParquetFile(path).columns].index(column)
    proc = subprocess.run([str(exe), str(path), str(leaf), physical, *[str(v) for v in values]],
                          capture_output=True, text=True, check=True)
    arrow = [json.loads(line) for line in proc.stdout.splitlines()]
    ours = pqfast.prune(path, column, values, by_value=True, use_statistics=False)
    verdicts = ours["verdict"].to_pylist()
    assert len(arrow) == len(verdicts)
    for a, v in zip(arrow, verdicts):
        want = "no_filter" if a["maybe"] is None else ("maybe" if a["maybe"] else "absent")
        assert v == want, (path, column, values[a["value"]], a["row_group"])


@pytest.mark.parametrize("column,physical,absent", [
    ("id", "INT64", [-1, 12345]), ("name", "BYTE_ARRAY", ["nobody", "user-"]),
    ("small", "INT32", [-5, 5000]), ("score", "DOUBLE", [-1.5, 1e9]), ("nobloom", "INT64", [3]),
])
def test_bloom_verdicts_equal_arrow_cpp(pyarrow_lake, column, physical, absent):
    values = _lake_values(pyarrow_lake, column, n_present=20, absent=absent)
    if physical == "DOUBLE":
        values = [float(v) for v in values]
        values = [v for v in values if repr(v) == str(v)]  # exact round trip through argv
    for path in sorted(pyarrow_lake.glob("*.parquet"))[:2]:
        _check_against_arrow(path, column, values, physical)
        # Few values: local files are read by blocks (header, then the blocks
        # the hashes pick), not whole filters; the verdicts must not change.
        for few in (values[:1], values[-1:], values[:3] + values[-2:]):
            _check_against_arrow(path, column, few, physical)


def test_bloom_verdicts_equal_arrow_cpp_on_duckdb_and_parquet_testing(duckdb_lake, data_dir):
    for path in sorted(duckdb_lake.glob("*.parquet"))[:2]:
        values = _lake_values(duckdb_lake, "s", n_present=20, absent=["zzz"])
        _check_against_arrow(path, "s", values, "BYTE_ARRAY")
        _check_against_arrow(path, "s", values[:2] + values[-1:], "BYTE_ARRAY")  # read by blocks
    for name in ["data_index_bloom_encoding_stats.parquet", "data_index_bloom_encoding_with_length.parquet"]:
        _check_against_arrow(data_dir / name, "String", BLOOM_WORDS + ["NOT_EXISTS", "doing"], "BYTE_ARRAY")
        _check_against_arrow(data_dir / name, "String", ["NOT_EXISTS", "doing", BLOOM_WORDS[0]], "BYTE_ARRAY")


def test_prune_through_pyarrow_filesystem_equals_local(pyarrow_lake):
    import pyarrow.fs as pafs

    values = _lake_values(pyarrow_lake, "name", n_present=5, absent=["nobody"])
    local = pqfast.prune(str(pyarrow_lake / "*.parquet"), "name", values, by_value=True)
    remote = pqfast.prune(str(pyarrow_lake / "*.parquet"), "name", values, by_value=True,
                          filesystem=pafs.LocalFileSystem())
    assert remote.equals(local)
    remote_dir = pqfast.prune(str(pyarrow_lake), "name", values, filesystem=pafs.LocalFileSystem())
    assert remote_dir.num_rows == local.num_rows // len(values)


def test_footer_cache_is_validated(tmp_path):
    path = tmp_path / "c.parquet"
    pq.write_table(pa.table({"k": pa.array([1, 2, 3], pa.int64())}), path, bloom_filter_options={"k": True})
    pqfast.clear_footer_cache()
    first = pqfast.prune(path, "k", [2, 10], by_value=True, cache=True)
    assert first["verdict"].to_pylist() == ["maybe", "absent"]
    again = pqfast.prune(path, "k", [2, 10], by_value=True, cache=True)
    assert again.equals(first)
    # Rewrite the file: other values, other size and mtime; the cache must not answer for the old one.
    pq.write_table(pa.table({"k": pa.array([10, 11, 12, 13], pa.int64())}), path, bloom_filter_options={"k": True})
    os.utime(path, ns=(1, 1))
    after = pqfast.prune(path, "k", [2, 10], by_value=True, cache=True)
    assert after["verdict"].to_pylist() == ["absent", "maybe"]
    pqfast.clear_footer_cache()


def test_small_lists_encode_as_the_general_path(pyarrow_lake):
    """Few plain ints or str (a user's lookups) take a short path in
    encode_values: the same bytes as the general one, and its errors."""
    from pqfast._encode import _encode_small_list
    from pqfast.parquet import encode_values

    pf = pqfast.ParquetFile(sorted(pyarrow_lake.glob("*.parquet"))[0])
    desc = {c["dotted_path"]: c for c in pf.columns}

    def general(d, values):  # a tuple skips the short path
        return encode_values(d, tuple(values))

    cases = [("id", [0, 1, -1, (1 << 63) - 1, -(1 << 63), 12345]), ("small", [0, -1, (1 << 31) - 1, -(1 << 31)]),
             ("name", ["", "user-1", "ünï", "x" * 300])]
    for col, values in cases:
        fast = _encode_small_list(desc[col], desc[col]["physical_type"], list(values))
        assert fast is not None, col
        slow = general(desc[col], values)
        assert fast[0] == slow[0] and fast[1] == slow[1]
        assert bytes(fast[2]) == bytes(slow[2])
        assert (fast[3] is None and slow[3] is None) or list(fast[3]) == list(slow[3])
    # What the short path leaves to the general one: its errors and conversions.
    for col, values in [("small", [1 << 31]), ("id", [1 << 63]), ("id", [True]), ("id", [np.int64(5)]),
                        ("id", ["5"]), ("name", [b"x"]), ("name", [5]), ("day", [3]), ("name", ["\udc80"]),
                        ("id", list(range(65))), ("id", [])]:
        assert _encode_small_list(desc[col], desc[col]["physical_type"], values) is None, (col, values)
    with pytest.raises(UnicodeEncodeError):
        encode_values(desc["name"], ["\udc80"])  # a lone surrogate: str.encode's error, as ever
    with pytest.raises(pqfast.FormatError, match="out of range"):
        encode_values(desc["small"], [1 << 31])
    assert bytes(encode_values(desc["id"], [np.int64(5)])[2]) == (5).to_bytes(8, "little")


def test_a_lookup_in_one_native_call_equals_the_general_path(pyarrow_lake, tmp_path):
    """prune() with a few plain values takes one native call (_prune_local:
    expansion, typing, pruning, the table); a tuple of the same values takes
    the general path. Same tables, same errors, for patterns, lists, threads,
    caches and the values the native call hands back (None)."""
    from pqfast import _pqfast

    files = sorted(str(p) for p in pyarrow_lake.glob("*.parquet"))
    pattern = str(pyarrow_lake / "*.parquet")
    name0 = pq.read_table(files[2], columns=["name"])["name"][3].as_py()
    id0 = int(pq.read_table(files[1], columns=["id"])["id"][7].as_py())
    for target in (pattern, files, files[1:3]):
        for column, values in [("id", [id0, 5]), ("name", [name0, "nobody"]), ("small", [3, -1]),
                               ("nobloom", [id0])]:
            for kw in ({}, {"threads": 1}, {"cache": True}, {"use_statistics": False}, {"use_bloom": False}):
                fast = pqfast.prune(target, column, values, **kw)
                general = pqfast.prune(target, column, tuple(values), **kw)
                assert fast.equals(general), (target, column, values, kw)
    pqfast.clear_footer_cache()
    # The native call answers for these, and hands back the rest.
    assert _pqfast._prune_local(os.fsencode(pattern), "id", [id0]) is not None
    assert _pqfast._prune_local(files, "name", [name0]) is not None
    for target, column, values in [(files, "day", [3]), (files, "id", [True]), (files, "id", [np.int64(1)]),
                                   (files, "nope", [1]), ([str(tmp_path / "missing.parquet")], "id", [1]),
                                   (os.fsencode(str(tmp_path / "*.parquet")), "id", [1]), ([], "id", [1])]:
        assert _pqfast._prune_local(target, column, values) is None, (target, column, values)
    # Errors: a bad file after a good one, raised or skipped alike.
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 20 + b"PAR1")
    mixed = [files[0], str(bad)]
    with pytest.raises(pqfast.FormatError) as fast_error:
        pqfast.prune(mixed, "id", [id0])
    with pytest.raises(pqfast.FormatError) as general_error:
        pqfast.prune(mixed, "id", (id0,))
    assert str(fast_error.value) == str(general_error.value)
    assert pqfast.prune(mixed, "id", [id0], on_error="skip").equals(pqfast.prune(mixed, "id", (id0,), on_error="skip"))
    # A first file that cannot type the values: the general path's error.
    with pytest.raises(pqfast.FormatError, match="no column 'nope'"):
        pqfast.prune(pattern, "nope", [1])


def test_glob_sees_every_change_to_a_listed_directory(tmp_path):
    """The directory listings kept for star patterns follow the directory:
    files added, removed or renamed show at once, even when the directory's
    mtime is set back to what it was (ctime still moves)."""
    from pqfast import _pqfast

    d = tmp_path / "lake"
    d.mkdir()
    for i in range(5):
        (d / f"part-{i}.parquet").write_bytes(b"")
    old = 1_000_000_000
    os.utime(d, (old, old))  # settled long ago: the listing is kept
    pat = os.fsencode(str(d / "part-*.parquet"))

    def names():
        return [os.path.basename(p) for p in _pqfast._glob(pat)]

    assert names() == [f"part-{i}.parquet" for i in range(5)]
    assert names() == [f"part-{i}.parquet" for i in range(5)]  # from the kept listing
    (d / "part-5.parquet").write_bytes(b"")
    assert names()[-1] == "part-5.parquet"
    os.utime(d, (old, old))
    assert len(names()) == 6
    (d / "part-0.parquet").unlink()
    os.utime(d, (old, old))  # mtime as before: the ctime tells
    assert names() == [f"part-{i}.parquet" for i in range(1, 6)]
    (d / "part-1.parquet").rename(d / "other.parquet")
    os.utime(d, (old, old))
    assert names() == [f"part-{i}.parquet" for i in range(2, 6)]
    assert [os.path.basename(p) for p in _pqfast._glob(os.fsencode(str(d / "*.parquet")))][0] == "other.parquet"


def test_directory_listing_as_pyarrow_dataset(tmp_path):
    """A directory source lists the *.parquet files under it at any depth,
    sorted, as pyarrow.dataset finds them: names starting with "." or "_"
    below it are skipped with all they hold (_delta_log/, _SUCCESS), a
    directory named *.parquet (Spark's output) is searched, not listed, a
    symbolic link to a directory followed, other files left out."""
    from pqfast.parquet import expand_paths

    for d in ("a/b", ".hidden", "c.parquet", "d", "_delta_log", "a/_temporary"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("x.parquet", ".y.parquet", "_z.parquet", "a/z.parquet", "a/b/q.parquet", ".hidden/w.parquet",
              "c.parquet/p.parquet", "d/n.txt", "d/n.parquet.tmp", "_delta_log/0.checkpoint.parquet",
              "a/_temporary/t.parquet"):
        (tmp_path / f).write_bytes(b"")
    (tmp_path / "d" / "link").symlink_to(tmp_path / "a")
    for root in (str(tmp_path), str(tmp_path) + "/"):
        got = [os.path.relpath(p, root) for p in expand_paths(root)]
        assert got == ["a/b/q.parquet", "a/z.parquet", "c.parquet/p.parquet", "d/link/b/q.parquet",
                       "d/link/z.parquet", "x.parquet"]
