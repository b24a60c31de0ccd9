"""pqfast.index on s3:// against SeaweedFS (behind the counting proxy): the
object ends byte for byte as the same file indexed locally; the old bytes are
copied on the server (UploadPartCopy), not uploaded; small objects are put
back whole; a second run changes nothing; an object replaced meanwhile is
left as the other writer made it; a dictionary-only chunk is read by its
dictionary page, not its data pages."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pqfast

from s3_fixtures import opts, proxy, s3  # noqa: F401

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def big_table(n=400_000, seed=2):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n).astype(np.int64)
    return pa.table({"id": ids, "key": pa.array([f"key-{i:09d}-{i * 7919 % 100000}" for i in ids]),
                     "cat": pa.array([f"c{i % 50}" for i in ids])})


def client_for(server):
    from pqfast._index_s3 import make_client

    return make_client(server.storage_options())


def upload(server, local, key):
    client_for(server).put_object(Bucket=server.bucket, Key=key, Body=local.read_bytes())


def download(server, key) -> bytes:
    return client_for(server).get_object(Bucket=server.bucket, Key=key)["Body"].read()


def test_s3_object_equals_the_local_index_and_old_bytes_are_copied_on_the_server(s3, proxy, opts, tmp_path):  # noqa: F811
    src = tmp_path / "big.parquet"
    pq.write_table(big_table(), src, row_group_size=100_000, use_dictionary=["cat"], compression="none")
    old = src.read_bytes()
    assert len(old) > 5 * 2**20  # the multipart path
    upload(s3, src, "idx/big.parquet")
    local = tmp_path / "local" / "big.parquet"
    local.parent.mkdir()
    shutil.copy(src, local)
    want = pqfast.index(local, ["id", "key", "cat"])

    proxy.reset()
    got = pqfast.index(f"s3://{s3.bucket}/idx/big.parquet", ["id", "key", "cat"], storage_options=opts)
    st = proxy.stats()
    assert got.files_changed == 1 and got.chunks_indexed == want.chunks_indexed
    assert got.bytes_appended == want.bytes_appended
    assert download(s3, "idx/big.parquet") == local.read_bytes()
    # Uploaded: the tail; the old bytes were copied by the server.
    assert got.bytes_uploaded == got.bytes_appended
    assert st["bytes_in"] < got.bytes_appended + 256 * 1024, st
    assert st["methods"].get("PUT", 0) >= 2  # UploadPartCopy and UploadPart

    proxy.reset()
    again = pqfast.index(f"s3://{s3.bucket}/idx/", ["id", "key", "cat"], storage_options=opts)
    assert again.files_unchanged == 1 and again.bytes_appended == 0
    assert proxy.stats()["methods"].get("PUT", 0) == 0 and proxy.stats()["methods"].get("POST", 0) == 0


def test_small_objects_are_put_back_whole(s3, opts, tmp_path):  # noqa: F811
    src = tmp_path / "small.parquet"
    pq.write_table(big_table(20_000), src, row_group_size=5000)
    upload(s3, src, "idx/small.parquet")
    local = tmp_path / "l.parquet"
    shutil.copy(src, local)
    pqfast.index(local, ["id", "key"])
    got = pqfast.index(f"s3://{s3.bucket}/idx/small.parquet", ["id", "key"], storage_options=opts)
    assert got.files_changed == 1
    assert got.bytes_uploaded == local.stat().st_size
    assert download(s3, "idx/small.parquet") == local.read_bytes()
    dry = pqfast.index(f"s3://{s3.bucket}/idx/small.parquet", ["cat"], storage_options=opts, dry_run=True)
    assert dry.chunks_indexed == 4 and dry.bytes_uploaded == 0
    assert download(s3, "idx/small.parquet") == local.read_bytes()


def test_an_object_replaced_meanwhile_is_left_alone(s3, opts, tmp_path, monkeypatch):  # noqa: F811
    from pqfast import _index_s3

    src = tmp_path / "c.parquet"
    pq.write_table(big_table(), src, row_group_size=100_000, compression="none")
    upload(s3, src, "idx/conflict.parquet")
    other = tmp_path / "other.parquet"  # another writer's version of the object
    pq.write_table(big_table(seed=9), other, row_group_size=100_000, compression="none")
    theirs = other.read_bytes()
    real = _index_s3._multipart_copy_and_append

    def replaced_first(client, bucket, key, size, etag, tail):
        client.put_object(Bucket=bucket, Key=key, Body=theirs)
        return real(client, bucket, key, size, etag, tail)

    monkeypatch.setattr(_index_s3, "_multipart_copy_and_append", replaced_first)
    got = pqfast.index(f"s3://{s3.bucket}/idx/conflict.parquet", ["id"], storage_options=opts)
    assert got.files_conflict == 1 and got.files_changed == 0
    assert download(s3, "idx/conflict.parquet") == theirs


def test_dictionary_only_chunks_are_read_by_their_dictionary_page(s3, proxy, opts, tmp_path):  # noqa: F811
    src = tmp_path / "d.parquet"
    pq.write_table(big_table(), src, row_group_size=100_000, use_dictionary=["cat"], compression="none")
    upload(s3, src, "idx/dict.parquet")
    md = pq.read_metadata(src)
    names = [md.schema.column(i).path for i in range(md.num_columns)]
    chunks = [md.row_group(g).column(names.index("cat")) for g in range(md.num_row_groups)]
    dict_bytes = sum(c.data_page_offset - c.dictionary_page_offset for c in chunks)
    proxy.reset()
    got = pqfast.index(f"s3://{s3.bucket}/idx/dict.parquet", ["cat"], storage_options=opts,
                       page_index=False, dry_run=True)
    assert got.chunks_from_dictionary == md.num_row_groups
    # One GET for the footer (16 KiB tail), then one per chunk of exactly
    # its dictionary page: no byte of a data page.
    tail = min(16 * 1024, src.stat().st_size)
    assert got.bytes_downloaded == tail + dict_bytes
    assert proxy.stats()["methods"].get("GET", 0) == 1 + md.num_row_groups
