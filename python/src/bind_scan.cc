// What the scan engine (pqfast/scan.h) shares with Python: a filter in DNF
// as the bindings take it (make_filter: the streaming scanner's binding,
// bind_stream.cc, runs the engine per unit with it), and the byte ranges of
// row groups named from a file's tail (_row_group_ranges). The engine has
// no call of its own from Python: every read goes through the scanner.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

#include "common.h"
#include "parquet_common.h"
#include "prune_common.h"
#include "pqfast/scan.h"
#include "scan_filter_spec.h"

namespace pqfast::py {

namespace pq = pqfast::parquet;

namespace {

pq::FilterOp parse_op(const std::string& op) {
  static const std::pair<const char*, pq::FilterOp> kOps[] = {
      {"eq", pq::FilterOp::kEq}, {"ne", pq::FilterOp::kNe}, {"lt", pq::FilterOp::kLt}, {"le", pq::FilterOp::kLe},
      {"gt", pq::FilterOp::kGt}, {"ge", pq::FilterOp::kGe}, {"in", pq::FilterOp::kIn}, {"is_null", pq::FilterOp::kIsNull}};
  for (const auto& [name, v] : kOps) {
    if (op == name) return v;
  }
  throw FormatError("invalid argument: unknown filter operator '" + op + "'");
}

}  // namespace

// (declared in scan_filter_spec.h: the streaming scanner's binding takes the same filters)
pq::ScanFilter make_filter(const std::optional<std::vector<std::vector<AtomSpec>>>& dnf) {
  pq::ScanFilter f;
  if (!dnf) return f;
  f.active = true;
  for (const auto& conj : *dnf) {
    std::vector<pq::FilterAtom> atoms;
    for (const auto& [column, op, negate, type, type_length, data, offsets, has_null, scale] : conj) {
      pq::FilterAtom a;
      a.decimal_scale = scale;
      a.column = column;
      a.op = parse_op(op);
      a.negate = negate;
      a.set_has_null = has_null;
      if (a.op != pq::FilterOp::kIsNull) {
        if (type == "BOOLEAN") {
          a.values.type = PhysicalType::kBoolean;
          ByteView d = byte_view(data);
          a.values.data.assign(d.data, d.data + d.size);
        } else {
          a.values = probe_values_from_py(type, type_length, data, offsets);
        }
      }
      atoms.push_back(std::move(a));
    }
    f.any_of.push_back(std::move(atoms));
  }
  return f;
}

void bind_scan(nb::module_& m) {
  m.def(
      "_row_group_ranges",
      [](nb::object tail, uint64_t size, const std::vector<int32_t>& row_groups, bool page_index) {
        ByteView v = byte_view(tail);
        if (v.size < 8) throw FormatError("invalid argument: a tail of fewer than 8 bytes");
        auto footer_len = pq::parse_trailer(v.data + v.size - 8, size);
        if (!footer_len.ok()) raise(footer_len.error());
        const uint64_t need = uint64_t{*footer_len} + 8;
        nb::list ranges;
        if (need > v.size) return nb::make_tuple(need, ranges);
        auto meta = pq::parse_file_metadata(v.data + v.size - need, *footer_len, size - need);
        if (!meta.ok()) raise(meta.error());
        for (int32_t rg : row_groups) {
          if (rg < 0 || static_cast<size_t>(rg) >= meta->row_groups.size()) {
            throw FormatError("invalid argument: no row group " + std::to_string(rg));
          }
          int64_t lo = INT64_MAX, hi = 0;
          for (const auto& c : meta->row_groups[static_cast<size_t>(rg)].columns) {
            if (page_index) {
              // The chunk's ColumnIndex and OffsetIndex (where it has them).
              for (auto [off, len] : {std::pair<int64_t, int64_t>{c.column_index_offset, c.column_index_length},
                                      std::pair<int64_t, int64_t>{c.offset_index_offset, c.offset_index_length}}) {
                if (off < 0 || len <= 0 || static_cast<uint64_t>(off) > size) continue;
                lo = std::min(lo, off);
                hi = std::max(hi, off + len);
              }
              continue;
            }
            int64_t start = c.data_page_offset;
            if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < start) start = c.dictionary_page_offset;
            // Hostile offsets and sizes: outside the object, the scan words the error.
            if (start < 0 || c.total_compressed_size < 0 || static_cast<uint64_t>(start) > size ||
                static_cast<uint64_t>(c.total_compressed_size) > size) {
              continue;
            }
            lo = std::min(lo, start);
            hi = std::max(hi, start + c.total_compressed_size);
          }
          if (lo < 0 || hi <= lo || static_cast<uint64_t>(hi) > size) continue;  // the scan words the error
          ranges.append(nb::make_tuple(lo, hi - lo));
        }
        return nb::make_tuple(need, ranges);
      },
      nb::arg("tail"), nb::arg("size"), nb::arg("row_groups"), nb::arg("page_index") = false,
      "(footer bytes + 8 needed from the end, [(start, length)] of the row groups' chunks, or with page_index=True "
      "of their page indexes) from a file's tail.");
}

}  // namespace pqfast::py
