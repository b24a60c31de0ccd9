// Binding of the scan engine (pqfast/scan.h): files, projected columns and a
// filter in DNF in; per row group with selected rows, Arrow C Data Interface
// capsules out, with what was read. The GIL is released for the whole scan.
// python/pqfast/scan.py builds the call and assembles the pyarrow.Table.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <tuple>
#include <vector>

#include "arrow_capsules.h"
#include "common.h"
#include "prune_common.h"
#include "pqfast/scan.h"

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

// (column, op, negate, physical type, type_length, data, offsets or None, set_has_null, decimal scale or -1)
using AtomSpec = std::tuple<std::string, std::string, bool, std::string, int32_t, nb::object, nb::object, bool, int32_t>;
using ColumnSpec = std::tuple<std::string, std::string, std::string>;  // name, layout, format

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

nb::dict stats_dict(const pq::ScanStats& s) {
  nb::dict d;
  d["files"] = s.files;
  d["files_read"] = s.files_read;
  d["row_groups"] = s.row_groups;
  d["row_groups_pruned_by_statistics"] = s.row_groups_pruned_by_statistics;
  d["row_groups_pruned_by_bloom"] = s.row_groups_pruned_by_bloom;
  d["row_groups_pruned_by_dictionary"] = s.row_groups_pruned_by_dictionary;
  d["row_groups_pruned_by_page_index"] = s.row_groups_pruned_by_page_index;
  d["row_groups_read"] = s.row_groups_read;
  d["row_groups_matched"] = s.row_groups_matched;
  d["pages_read"] = s.pages_read;
  d["pages_skipped"] = s.pages_skipped;
  d["bytes_read"] = s.bytes_read;
  d["reads"] = s.reads;
  d["rows"] = s.rows;
  return d;
}

}  // namespace

void bind_scan(nb::module_& m) {
  m.def(
      "_scan_local",
      [](const std::vector<std::string>& paths, const std::vector<ColumnSpec>& columns,
         const std::optional<std::vector<std::vector<AtomSpec>>>& dnf, int threads, bool use_statistics,
         bool use_bloom, bool use_dictionary, bool use_page_index) {
        std::vector<pq::ScanColumn> cols;
        for (const auto& [name, layout, format] : columns) {
          pq::ScanColumn c;
          c.name = name;
          if (!pq::parse_arrow_layout(layout, &c.options.layout)) {
            throw FormatError("invalid argument: unknown Arrow layout '" + layout + "'");
          }
          c.options.format = format;
          cols.push_back(std::move(c));
        }
        pq::ScanFilter filter = make_filter(dnf);
        pq::ScanOptions o;
        o.threads = threads;
        o.use_statistics = use_statistics;
        o.use_bloom = use_bloom;
        o.use_dictionary = use_dictionary;
        o.use_page_index = use_page_index;
        Result<pq::ScanResult> r = Error{ErrorCode::kInvalidArgument, "not run"};
        {
          nb::gil_scoped_release release;
          r = pq::scan_files(paths, cols, filter, o);
        }
        if (!r.ok()) raise(r.error());
        nb::list pieces;
        for (auto& p : r->pieces) {
          nb::list caps;
          for (size_t j = 0; j < p.columns.size(); ++j) {
            auto* s = new ArrowSchema;
            auto* a = new ArrowArray;
            std::move(p.columns[j]).export_to(a, s, std::get<0>(columns[j]));
            caps.append(to_capsules(s, a));
          }
          pieces.append(nb::make_tuple(p.file, p.row_group, p.num_rows, caps));
        }
        return nb::make_tuple(pieces, stats_dict(r->stats));
      },
      nb::arg("paths"), nb::arg("columns"), nb::arg("filters").none(), nb::arg("threads") = 0,
      nb::arg("use_statistics") = true, nb::arg("use_bloom") = true, nb::arg("use_dictionary") = true,
      nb::arg("use_page_index") = true,
      "Scans local files: ([(file, row_group, num_rows, [(schema capsule, array capsule)])], stats dict).");
}

}  // namespace pqfast::py
