"""``pqfast.index`` on ``s3://`` objects: the plan from ranged GETs, then the
new object by a multipart upload whose first parts copy the old bytes on the
server (UploadPartCopy: nothing of the data is downloaded or uploaded) and
whose last part is the appended tail.

Concurrency: every step is conditional on the ETag read at the start. The
plan's ranged GETs carry If-Match (a change while planning fails them), the
copy parts carry x-amz-copy-source-if-match, and CompleteMultipartUpload
carries If-Match, so an object another writer replaced at any point is left
as that writer made it (outcome "conflict"; the upload is aborted). Until
CompleteMultipartUpload succeeds, readers see the old object; after, the new
one: S3 replaces objects atomically. Objects under the 5 MiB part minimum are
downloaded and put back whole (PutObject with If-Match).

Requests are signed by botocore (SigV4) and sent by its client: obstore,
used for reading, has no UploadPartCopy.
"""

from __future__ import annotations

import threading
from typing import Any

from . import _optional, _pqfast
from .remote import normalise_options, _truthy

MIN_PART = 5 * 1024 * 1024
MAX_PART = 5 * 1024 * 1024 * 1024


def make_client(storage_options: dict | None):
    """A botocore S3 client from pqfast's storage_options (endpoint, region,
    credentials; unset ones from the environment as botocore reads them)."""
    botocore_config = _optional.load("botocore.config")
    botocore_session = _optional.load("botocore.session")

    conf = normalise_options(storage_options)
    kw: dict[str, Any] = {}
    if conf.get("endpoint"):
        kw["endpoint_url"] = conf["endpoint"]
    kw["region_name"] = conf.get("region") or "us-east-1"
    if conf.get("access_key_id"):
        kw["aws_access_key_id"] = conf["access_key_id"]
        kw["aws_secret_access_key"] = conf.get("secret_access_key")
        if conf.get("session_token"):
            kw["aws_session_token"] = conf["session_token"]
    style = "virtual" if _truthy(conf.get("virtual_hosted_style_request", False)) else "path"
    cfg = botocore_config.Config(s3={"addressing_style": style}, retries={"max_attempts": int(conf.get("max_retries", 6)),
                                                                          "mode": "standard"})
    if _truthy(conf.get("skip_signature", False)):
        cfg = cfg.merge(botocore_config.Config(signature_version=_optional.load("botocore").UNSIGNED))
    return botocore_session.get_session().create_client("s3", config=cfg, **kw)


class Conflict(Exception):
    """The object changed (its ETag) while it was being indexed."""


def _precondition_failed(e: Exception) -> bool:
    code = getattr(e, "response", {}).get("Error", {}).get("Code", "")
    status = getattr(e, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in ("PreconditionFailed", "412") or status == 412


def index_object(client, bucket: str, key: str, url: str, cols: list[str], fpp: float, ndv: int,
                 page_index: bool, dry_run: bool, threads: int = 1) -> dict:
    """Plans and commits one object; returns the same dict as _index_file."""
    head = client.head_object(Bucket=bucket, Key=key)
    size, etag = int(head["ContentLength"]), head["ETag"]
    requests = {"get": 0, "get_bytes": 0}
    changed: list = []
    read_at = object_reader(client, bucket, key, etag, requests, changed)
    try:
        summary, tail = _pqfast._plan_index(read_at, size, url, cols, fpp, ndv, page_index, threads)
    except _pqfast.FormatError:
        if changed:
            return _conflict(size, url)
        raise
    summary.update(bytes_copied=0, cloned=False, message="", bytes_uploaded=0, **requests)
    if not tail:
        summary.update(outcome="unchanged", bytes_appended=0)
        return summary
    summary.update(outcome="indexed", bytes_appended=len(tail))
    if dry_run:
        return summary
    try:
        if size >= MIN_PART:
            _multipart_copy_and_append(client, bucket, key, size, etag, tail)
            summary["bytes_uploaded"] = len(tail)
        else:
            old = client.get_object(Bucket=bucket, Key=key, IfMatch=etag)["Body"].read()
            summary["get"] += 1
            summary["get_bytes"] += len(old)
            client.put_object(Bucket=bucket, Key=key, Body=old + bytes(tail), IfMatch=etag)
            summary["bytes_uploaded"] = len(old) + len(tail)
    except Exception as e:  # noqa: BLE001
        if _precondition_failed(e) or isinstance(e, Conflict):
            return _conflict(size, url)
        raise
    return summary


def object_reader(client, bucket: str, key: str, etag: str, requests: dict, changed: list):
    """read_at(offset, n) -> bytes over ranged GETs of the object as it was
    at `etag` (If-Match): a changed object appends to `changed` and raises
    Conflict. GETs and their bytes are counted into `requests`."""
    lock = threading.Lock()

    def read_at(offset: int, n: int) -> bytes:
        if n == 0:
            return b""
        try:
            body = client.get_object(Bucket=bucket, Key=key, Range=f"bytes={offset}-{offset + n - 1}",
                                     IfMatch=etag)["Body"].read()
        except Exception as e:  # noqa: BLE001 - a changed object is a conflict, the rest is reported
            if _precondition_failed(e):
                changed.append(True)
                raise Conflict() from e
            raise
        with lock:
            requests["get"] += 1
            requests["get_bytes"] += len(body)
        return body

    return read_at


def _conflict(size: int, url: str) -> dict:
    return {"outcome": "conflict", "message": f"{url}: changed by another writer while it was indexed; left as it is",
            "old_size": size, "bytes_appended": 0, "bytes_copied": 0, "cloned": False, "bytes_uploaded": 0,
            "chunks_indexed": 0, "chunks_had_filter": 0, "chunks_unsupported": 0, "chunks_from_dictionary": 0,
            "offset_indexes": 0, "column_indexes": 0, "chunks": []}


def _multipart_copy_and_append(client, bucket: str, key: str, size: int, etag: str, tail: bytes) -> None:
    upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    try:
        parts = []
        count = -(-size // MAX_PART)  # parts of at most 5 GiB, each >= 5 MiB (size >= 5 MiB)
        for i in range(count):
            lo, hi = size * i // count, size * (i + 1) // count
            r = client.upload_part_copy(Bucket=bucket, Key=key, UploadId=upload, PartNumber=i + 1,
                                        CopySource={"Bucket": bucket, "Key": key},
                                        CopySourceRange=f"bytes={lo}-{hi - 1}", CopySourceIfMatch=etag)
            parts.append({"PartNumber": i + 1, "ETag": r["CopyPartResult"]["ETag"]})
        r = client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=count + 1, Body=bytes(tail))
        parts.append({"PartNumber": count + 1, "ETag": r["ETag"]})
        client.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload,
                                         MultipartUpload={"Parts": parts}, IfMatch=etag)
    except BaseException:
        try:
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload)
        except Exception:  # noqa: BLE001 - the original error matters
            pass
        raise
