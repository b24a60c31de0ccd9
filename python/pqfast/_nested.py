"""How a nested top-level column (a list, struct or map) is read.

The C++ reader (``src/parquet/nested_*.cc``) derives the column's Arrow tree
from the Parquet schema as pyarrow does and reads each leaf with its levels;
this module picks each leaf's layout as the flat reader would (``_Plan``),
and after the import applies what the embedded Arrow schema (``ARROW:schema``)
changes: large and fixed-size lists, time zones, large strings, views.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pt

from . import _pqfast
from ._plan import _Plan, _field, dictionary_array
from ._pqfast import FormatError
from ._strings import strings_type


def _origin_children(node: dict, origin) -> list:
    """The embedded Arrow types matching `node`'s children (None where they do not match)."""
    kids = node["children"]
    none = [None] * len(kids)
    if origin is None:
        return none
    kind = node["kind"]
    if kind == "struct":
        if pt.is_struct(origin) and origin.num_fields == len(kids):
            return [origin.field(i).type for i in range(len(kids))]
        return none
    if kind == "list":
        if pt.is_list(origin) or pt.is_large_list(origin) or pt.is_fixed_size_list(origin) or \
                pt.is_list_view(origin) or pt.is_large_list_view(origin):
            return [origin.value_type]
        return none
    if kind == "map":
        if pt.is_map(origin):
            return [pa.struct([origin.key_field, origin.item_field])]
        return none
    return none


def _shape_has_map(node: dict) -> bool:
    return node["kind"] == "map" or any(_shape_has_map(c) for c in node["children"])


def _fixed_size(arr, t):
    """A list array as fixed_size_list type `t`: each valid list must hold
    list_size values; a null list gets list_size null values (as pyarrow
    reads them; a cast would leave them uninitialised)."""
    size = t.list_size
    offsets = arr.offsets.to_numpy(zero_copy_only=False)
    lengths = np.diff(offsets)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    if np.any(lengths[valid] != size):
        raise FormatError(f"a fixed_size_list<{size}> row holds a list of another size")
    idx = (offsets[:-1, None] + np.arange(size)[None, :]).reshape(-1)
    mask = np.repeat(~valid, size)
    values = arr.values.take(pa.array(idx, mask=mask)) if len(idx) else arr.values.slice(0, 0)
    return pa.FixedSizeListArray.from_arrays(values, type=t, mask=pa.array(~valid) if not valid.all() else None)


def _retype(arr, t, pages=None):
    """`arr` (as imported: offset 0 at every level) as type `t`, node by node
    on the same buffers: names, nullability, time zones and large offsets
    change without the cast kernels (which refuse a non-nullable field
    holding nulls under a null parent, as every nested read has them).
    `pages`: an iterator over the leaves' dictionary pages, in leaf order (a
    leaf read as a dictionary takes its chunk's page as pyarrow does)."""
    at = arr.type
    validity = arr.buffers()[0]
    if pt.is_struct(t) and pt.is_struct(at):
        kids = [_retype(arr.field(i), t.field(i).type, pages) for i in range(t.num_fields)]
        return pa.Array.from_buffers(t, len(arr), [validity], arr.null_count, 0, kids)
    if pt.is_map(t) and pt.is_map(at):
        entries = arr.values
        ekids = [_retype(entries.field(0), t.key_type, pages), _retype(entries.field(1), t.item_type, pages)]
        etype = t.field(0).type
        ent = pa.Array.from_buffers(etype, len(entries), [entries.buffers()[0]], entries.null_count, 0, ekids)
        return pa.Array.from_buffers(t, len(arr), [validity, arr.buffers()[1]], arr.null_count, 0, [ent])
    if pt.is_list(at) and (pt.is_list(t) or pt.is_large_list(t) or pt.is_fixed_size_list(t) or
                           pt.is_list_view(t) or pt.is_large_list_view(t)):
        values = _retype(arr.values, t.value_type, pages)
        if pt.is_fixed_size_list(t):
            return _fixed_size(pa.Array.from_buffers(pa.list_(t.value_field), len(arr),
                                                     [validity, arr.buffers()[1]], arr.null_count, 0, [values]), t)
        offsets = arr.buffers()[1]
        if pt.is_list_view(t) or pt.is_large_list_view(t):
            # A list view of the same values: offsets, and sizes from them.
            wide = pt.is_large_list_view(t)
            starts = pc.cast(arr.offsets, pa.int64()) if wide else arr.offsets
            sizes = pc.subtract(starts.slice(1), starts.slice(0, len(arr)))
            return pa.Array.from_buffers(t, len(arr), [validity, starts.buffers()[1], sizes.buffers()[1]],
                                         arr.null_count, 0, [values])
        if pt.is_large_list(t):
            offsets = pc.cast(arr.offsets, pa.int64()).buffers()[1]
        return pa.Array.from_buffers(t, len(arr), [validity, offsets], arr.null_count, 0, [values])
    page = next(pages, None) if pages is not None else None
    if pt.is_dictionary(t) and not pt.is_dictionary(at):
        return dictionary_array(arr, page, t)
    if at.equals(t):
        return arr
    return arr.cast(t)


def scanner_dictionary(p) -> bool:
    """Whether leaf plan `p` is read by the streaming scanner as a dictionary
    (a ``dictionary:<layout>`` leaf spec: int32 indices over its chunk's
    dictionary page, then the values of pages the writer did not
    dictionary-encode, as pyarrow builds it): a string or binary leaf the
    embedded schema says is dictionary-encoded."""
    return p.dictionary is not None and p.extension is None and p.layout == "binary"


def _read_type(node: dict, plans, scanner: bool = False):
    """The Arrow type the C++ assembly gives `node` (``assemble_nested``, as
    pyarrow imports it): the shape's names and nullability, each leaf in its
    plan's read type (`plans`: an iterator over the leaf plans, in order);
    ``scanner``: as the streaming scanner reads it (a dictionary leaf as
    dictionary<int32, its values>, :func:`scanner_dictionary`)."""
    kind = node["kind"]
    if kind == "leaf":
        p = next(plans)
        return pa.dictionary(pa.int32(), p.read_type) if scanner and scanner_dictionary(p) else p.read_type
    kids = [_field(c["name"], _read_type(c, plans, scanner), c["nullable"]) for c in node["children"]]
    if kind == "struct":
        return pa.struct(kids)
    if kind == "list":
        return pa.list_(kids[0])
    if kind == "map":
        entries = kids[0].type
        return pa.map_(entries.field(0), entries.field(1))
    raise FormatError(f"unknown nested kind {kind}")


def _has_map(t) -> bool:
    """Whether Arrow type `t` holds a map at any depth."""
    if pt.is_map(t):
        return True
    if pt.is_struct(t):
        return any(_has_map(t.field(i).type) for i in range(t.num_fields))
    if pt.is_list(t) or pt.is_large_list(t):
        return _has_map(t.value_type)
    return False


def with_map_names(table, schema):
    """`table` (imported from the streaming scanner) with the map entries'
    names of `schema`: Arrow's C Data import names every map's entries
    "entries", pyarrow's reader names them after the map field. Each chunk
    (a whole row group: offset 0 at every level) retyped on the same
    buffers; columns without a map are left as they are."""
    cols, changed = [], False
    for col, f in zip(table.columns, schema):
        if _has_map(f.type):
            col = pa.chunked_array([_retype(c, f.type) for c in col.chunks], type=f.type)
            changed = True
        cols.append(col)
    return pa.Table.from_arrays(cols, schema=schema) if changed else table


def batches_with_map_names(batches, schema):
    """The native stream's `batches` (a generator; closed when this one is)
    with the map entries' names of `schema` (the scan's output schema, as
    pyarrow names them): Arrow's C Data import names every map's entries
    "entries". Each map column is a zero-copy view as its type (the same
    layout under other names), so batches sliced from a row group keep their
    offsets. `batches` itself when no column holds a map."""
    maps = [_has_map(f.type) for f in schema]
    if not any(maps):
        return batches

    def named():
        try:
            for b in batches:
                cols = [c.view(f.type) if m else c for c, f, m in zip(b.columns, schema, maps)]
                yield pa.RecordBatch.from_arrays(cols, schema=schema)
        finally:
            batches.close()

    return named()


class NestedPlan:
    """One nested top-level column: its shape, its leaves' plans, then its final type."""

    def __init__(self, meta, name: str, field_index: int, descs: list, arrow_field, leaves: list | None = None,
                 strings=None):
        self.name = name
        self.field_index = field_index
        shape = _pqfast._nested_field(meta, field_index)
        self.nullable = shape["nullable"]
        self.field_metadata = arrow_field.metadata if arrow_field is not None else None
        self.origin = arrow_field.type if arrow_field is not None else None
        self.shape = shape
        self.leaf_plans: list = []
        # strings= (see _strings.STRING_LAYOUTS): each string leaf is read in that layout.
        self.strings = strings
        self._collect(shape, self.origin, descs, _Plan)
        self.leaves = [p.leaf for p in self.leaf_plans]
        self.ref = None
        # Maps: Arrow's C Data import names a map's entries "entries"; pyarrow
        # names them after the map field. The type pyarrow derives for the
        # column is set here by the reader (pyarrow_type) and cast to.
        self.has_map = _shape_has_map(shape)
        self.pyarrow_type = None

    def set_field_ref(self, fields: list, path: str) -> None:
        """Read the struct field at `fields` below the column ("s.a"), named as its
        last part, with the parents' nulls, as pyarrow's read_table(columns=["s.a"])."""
        node = self.shape
        for f in fields:
            kids = [c for c in node["children"] if c["name"] == f] if node["kind"] == "struct" else []
            if not kids:
                raise KeyError(f"{path}: no column {'.'.join([self.name] + fields)!r}")
            node = kids[0]
        self.ref = fields

    def _collect(self, node: dict, origin, descs: list, plan_class) -> None:
        if node["kind"] == "leaf":
            leaf = node["leaf"]
            f = pa.field(node["name"], origin) if origin is not None else None
            self.leaf_plans.append(plan_class(node["name"], leaf, descs[leaf], f, self.strings))
            return
        for child, oc in zip(node["children"], _origin_children(node, origin)):
            self._collect(child, oc, descs, plan_class)

    def nested_spec(self, rg: int):
        return (rg, self.field_index, [(p.layout, p.format) for p in self.leaf_plans])

    def scanner_spec(self):
        """The column as the streaming scanner takes a nested field: its name
        and each leaf's (layout, format), in schema order (a dictionary
        leaf's layout ``dictionary:<layout>``)."""
        return (self.name, [("dictionary:" + p.layout if scanner_dictionary(p) else p.layout, p.format)
                            for p in self.leaf_plans])

    def assembled_type(self):
        """The column's type as the streaming scanner's assembly gives it
        (before :meth:`finish`)."""
        return _read_type(self.shape, iter(self.leaf_plans), scanner=True)

    def scanner_type(self, target=None):
        """The column's type in the streaming scanner's batches (the C++
        assembly of the leaves as read), when no retyping is left for after
        the read: equal to `target` (a dataset's type for the column) or,
        without one, to what :meth:`finish` gives. None otherwise (a struct
        field reference, an extension leaf, a dictionary leaf the scanner
        does not read as one or of another index type, large, fixed-size or
        view lists the embedded schema asks for, a map whose pyarrow type is
        not set): the read finishes it after (:meth:`finish`)."""
        if self.ref is not None or any(p.extension is not None or (p.dictionary is not None and
                                                                   not scanner_dictionary(p))
                                       for p in self.leaf_plans):
            return None
        t = _read_type(self.shape, iter(self.leaf_plans), scanner=True)
        if target is None:
            if self.pyarrow_type is not None:
                target = strings_type(self.pyarrow_type, self.strings)
            elif self.has_map:
                return None
            else:
                target = self._final(t, self.shape, self.origin, iter(self.leaf_plans))
        # (the target's own names where Arrow's type equality ignores them: a
        # map's entries, which pyarrow names after the map field)
        return target if t.equals(target) else None

    def _final(self, t, node: dict, origin, plans):
        """The type the column ends with: `t` (as read) with the embedded schema's changes."""
        kind = node["kind"]
        if kind == "leaf":
            p = next(plans)
            if p.dictionary is not None:  # (a leaf the embedded schema says is dictionary-encoded)
                return p.dictionary
            return p.final_type if p.extension is None else p.extension
        kids = node["children"]
        ocs = _origin_children(node, origin)
        if kind == "struct":
            fields = []
            changed = False
            for i, (c, oc) in enumerate(zip(kids, ocs)):
                f = t.field(i)
                ft = self._final(f.type, c, oc, plans)
                changed |= not ft.equals(f.type)
                fields.append(f.with_type(ft))
            return pa.struct(fields) if changed else t
        if kind == "list":
            vf = t.value_field
            ct = self._final(vf.type, kids[0], ocs[0], plans)
            vf = vf.with_type(ct)
            if origin is not None and pt.is_large_list(origin):
                return pa.large_list(vf)
            if origin is not None and pt.is_fixed_size_list(origin):
                return pa.list_(vf, origin.list_size)
            if origin is not None and pt.is_list_view(origin):
                return pa.list_view(vf)
            if origin is not None and pt.is_large_list_view(origin):
                return pa.large_list_view(vf)
            return t if ct.equals(t.value_type) else pa.list_(vf)
        if kind == "map":
            entries = kids[0]
            ocs2 = _origin_children(entries, ocs[0])
            kt = self._final(t.key_type, entries["children"][0], ocs2[0], plans)
            it = self._final(t.item_type, entries["children"][1], ocs2[1], plans)
            if kt.equals(t.key_type) and it.equals(t.item_type):
                return t
            sorted_keys = bool(origin.keys_sorted) if origin is not None and pt.is_map(origin) else False
            return pa.map_(t.key_field.with_type(kt), t.item_field.with_type(it), sorted_keys)
        raise FormatError(f"column '{self.name}': unknown nested kind {kind}")

    def finish(self, chunks: list, leaf_pages: list | None = None):
        """The column from its chunks (one per row group); `leaf_pages`: per
        leaf (in leaf order), None or per chunk its dictionary page."""
        if not chunks:
            # A file without row groups: the type pyarrow derives (the reader sets it).
            if self.pyarrow_type is None:
                raise FormatError(f"column '{self.name}': no row groups to read a nested column's type from")
            t = self.pyarrow_type
            for f in self.ref or []:
                self._ref_field = t.field(f)
                t = self._ref_field.type
            return pa.chunked_array([], type=t)
        arr = pa.chunked_array(chunks)
        final = self._final(arr.type, self.shape, self.origin, iter(self.leaf_plans))
        if self.pyarrow_type is not None and self.ref is None:
            final = strings_type(self.pyarrow_type, self.strings)
        if not final.equals(arr.type) or self.pyarrow_type is not None:
            try:
                def pages_of(i):
                    if leaf_pages is None:
                        return None
                    # (A read of no row group has one empty chunk and no pages.)
                    return iter([None if lp is None or i >= len(lp) else lp[i] for lp in leaf_pages])

                arr = pa.chunked_array([_retype(c, final, pages_of(i)) for i, c in enumerate(arr.chunks)],
                                       type=final)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise FormatError(f"column '{self.name}': cannot read as {final}: {e}") from None
        if self.ref is not None:
            t = arr.type
            for f in self.ref:
                self._ref_field = t.field(f)
                t = self._ref_field.type
            arr = pc.struct_field(arr, self.ref)
        return arr

    def field(self, arr):
        if self.ref is not None:
            return self._ref_field.with_type(arr.type)
        return pa.field(self.name, arr.type, nullable=self.nullable, metadata=self.field_metadata)
