"""`pqfast inspect FILE`: row groups, columns, encodings and Bloom filters of a Parquet file."""

from __future__ import annotations

import json

import pqfast
from .._table import format_table

NAME = "inspect"
HELP = "Show a Parquet file's row groups and columns: types, full encoding names, statistics, Bloom filters."


def add_arguments(p) -> None:
    p.add_argument("file", help="a Parquet file")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    p.add_argument("--no-bloom", action="store_true", help="do not load the Bloom filters (no size/fill)")


def _jsonable(v):
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v.hex()
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return str(v)


def describe(path: str, load_bloom: bool = True) -> dict:
    with pqfast.ParquetFile(path) as f:
        out = {
            "path": path,
            "num_rows": f.num_rows,
            "num_row_groups": f.num_row_groups,
            "num_columns": f.num_columns,
            "created_by": f.created_by,
            "format_version": f.format_version,
            "footer_bytes": f.serialized_size,
            "columns": [{
                "path": c["dotted_path"],
                "physical_type": c["physical_type"] + (f"({c['type_length']})" if c["physical_type"] == "FIXED_LEN_BYTE_ARRAY" else ""),
                "logical_type": c["logical_type"]["name"] or None,
                "converted_type": c["converted_type"],
            } for c in f.columns],
            "row_groups": [],
        }
        for i in range(f.num_row_groups):
            rg = f.row_group(i)
            cols = []
            for j in range(rg.num_columns):
                c = rg.column(j)
                st = c.statistics
                entry = {
                    "path": c.path_in_schema,
                    "physical_type": c.physical_type,
                    "encodings": list(c.encodings),
                    "compression": c.compression,
                    "num_values": c.num_values,
                    "compressed_bytes": c.total_compressed_size,
                    "min": _jsonable(st.min) if st is not None and st.has_min_max else None,
                    "max": _jsonable(st.max) if st is not None and st.has_min_max else None,
                    "null_count": st.null_count if st is not None else None,
                    "bloom_filter_offset": c.bloom_filter_offset,
                    "bloom_filter_length": c.bloom_filter_length,
                    "bloom_filter_bytes": None,
                    "bloom_filter_fill": None,
                }
                if load_bloom and c.bloom_filter_offset is not None:
                    bf = c.bloom_filter()
                    entry["bloom_filter_bytes"] = bf.num_bytes
                    entry["bloom_filter_fill"] = round(bf.fill_ratio(), 4)
                cols.append(entry)
            out["row_groups"].append({"index": i, "num_rows": rg.num_rows, "total_byte_size": rg.total_byte_size,
                                      "columns": cols})
        return out


def run(args) -> int:
    d = describe(args.file, load_bloom=not args.no_bloom)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    print(f"{d['path']}")
    print(f"  rows {d['num_rows']:,}, row groups {d['num_row_groups']}, leaf columns {d['num_columns']}, "
          f"footer {d['footer_bytes']:,} bytes")
    print(f"  created by: {d['created_by'] or '(unknown)'}\n")
    print(format_table(["column", "physical", "logical", "converted"],
                       [[c["path"], c["physical_type"], c["logical_type"] or "", c["converted_type"] or ""]
                        for c in d["columns"]]))
    for rg in d["row_groups"]:
        print(f"\nrow group {rg['index']}: {rg['num_rows']:,} rows, {rg['total_byte_size']:,} bytes")
        rows = []
        for c in rg["columns"]:
            bloom = "-"
            if c["bloom_filter_offset"] is not None:
                length = c["bloom_filter_length"] if c["bloom_filter_length"] is not None else "?"
                bloom = f"@{c['bloom_filter_offset']} len {length}"
                if c["bloom_filter_bytes"] is not None:
                    bloom += f", {c['bloom_filter_bytes']:,} B, fill {c['bloom_filter_fill']:.1%}"
            mm = "" if c["min"] is None else f"{_short(c['min'])} .. {_short(c['max'])}"
            rows.append([c["path"], c["physical_type"], ",".join(c["encodings"]), c["compression"],
                         c["num_values"], mm, bloom])
        print(format_table(["column", "type", "encodings", "codec", "values", "min .. max", "bloom filter"], rows))
    return 0


def _short(v) -> str:
    s = str(v)
    return s if len(s) <= 24 else s[:21] + "..."
