// Binding of the scan engine (pqfast/scan.h): files, projected columns and a
// filter in DNF in; per row group with selected rows, Arrow C Data Interface
// capsules out, with what was read. The GIL is released for the whole scan.
// python/pqfast/scan.py builds the call and assembles the pyarrow.Table.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

#include "arrow_capsules.h"
#include "common.h"
#include "parquet_common.h"
#include "prune_common.h"
#include "pqfast/scan.h"
#include "scan_filter_spec.h"
#include "sidecar_tails.h"

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

using ColumnSpec = std::tuple<std::string, std::string, std::string>;  // name, layout, format

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

namespace {

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

nb::tuple pieces_and_stats(pq::ScanResult& r, const std::vector<ColumnSpec>& columns) {
  nb::list pieces;
  for (auto& p : r.pieces) {
    nb::list caps;
    for (size_t j = 0; j < p.columns.size(); ++j) {
      auto* sc = new ArrowSchema;
      auto* a = new ArrowArray;
      std::move(p.columns[j]).export_to(a, sc, std::get<0>(columns[j]));
      caps.append(to_capsules(sc, a));
    }
    nb::object sel = nb::none();
    if (!p.selection.empty()) {
      sel = nb::bytes(reinterpret_cast<const char*>(p.selection.data()), p.selection.size() * sizeof(uint64_t));
    }
    pieces.append(nb::make_tuple(p.file, p.row_group, p.num_rows, caps, sel));
  }
  return nb::make_tuple(pieces, stats_dict(r.stats));
}

pq::ScanOptions make_options(int threads, bool use_statistics, bool use_bloom, bool use_dictionary,
                             bool use_page_index, int64_t memory_limit) {
  pq::ScanOptions o;
  o.threads = threads;
  o.memory_limit = memory_limit;
  o.use_statistics = use_statistics;
  o.use_bloom = use_bloom;
  o.use_dictionary = use_dictionary;
  o.use_page_index = use_page_index;
  return o;
}

std::vector<pq::ScanColumn> make_columns(const std::vector<ColumnSpec>& columns) {
  std::vector<pq::ScanColumn> cols;
  for (const auto& [name, layout, format] : columns) {
    pq::ScanColumn c;
    c.name = name;
    parse_read_layout(layout, format, &c.options);
    cols.push_back(std::move(c));
  }
  return cols;
}

}  // namespace

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
  // row_groups: per file the row groups to scan (an empty list: all of
  // them). sidecar + tails: a sidecar index (python/pqfast/_sidecar.py) and
  // per file (data file size, tail offset, tail length) in it, or a size
  // < 0 for a file read as it is: each file is then read with its tail
  // appended (OverlayFile), as if `pqfast index` had written it. Without
  // row_groups: every row group of every file, through scan_files (or
  // scan_files_with_sidecar) and its footer cache.
  m.def(
      "_scan_local",
      [](const std::vector<std::string>& paths, const std::vector<ColumnSpec>& columns,
         const std::optional<std::vector<std::vector<AtomSpec>>>& dnf, int threads, bool use_statistics,
         bool use_bloom, bool use_dictionary, bool use_page_index, int64_t memory_limit,
         const std::optional<std::vector<std::vector<int32_t>>>& row_groups, bool keep_selection,
         const std::optional<std::string>& sidecar, const std::optional<std::vector<SidecarTail>>& tails) {
        std::vector<pq::ScanColumn> cols = make_columns(columns);
        pq::ScanFilter filter = make_filter(dnf);
        pq::ScanOptions o = make_options(threads, use_statistics, use_bloom, use_dictionary, use_page_index,
                                         memory_limit);
        o.keep_selection = keep_selection;
        if (row_groups && row_groups->size() != paths.size()) {
          throw FormatError("invalid argument: paths and row_groups differ in length");
        }
        if (tails && (!sidecar || tails->size() != paths.size())) {
          throw FormatError("invalid argument: tails need a sidecar and one entry per path");
        }
        Result<pq::ScanResult> r = Error{ErrorCode::kInvalidArgument, "not run"};
        {
          nb::gil_scoped_release release;
          if (!row_groups && !tails) {
            r = pq::scan_files(paths, cols, filter, o);
          } else if (!row_groups) {
            // Every row group, the footers cached as scan_files caches them.
            std::vector<pq::SidecarTail> t;
            t.reserve(tails->size());
            for (const auto& [base_size, offset, length] : *tails) t.push_back({base_size, offset, length});
            r = pq::scan_files_with_sidecar(paths, *sidecar, t, cols, filter, o);
          } else {
            auto files = open_with_tails(paths, sidecar, tails);
            if (!files.ok()) {
              r = files.error();
            } else {
              std::vector<pq::RandomAccessFile*> ptrs;
              for (auto& f : *files) ptrs.push_back(f.get());
              r = pq::scan_opened(ptrs, row_groups ? *row_groups : std::vector<std::vector<int32_t>>(paths.size()),
                                  cols, filter, o);
            }
          }
        }
        if (!r.ok()) raise(r.error());
        return pieces_and_stats(*r, columns);
      },
      nb::arg("paths"), nb::arg("columns"), nb::arg("filters").none(), nb::arg("threads") = 0,
      nb::arg("use_statistics") = true, nb::arg("use_bloom") = true, nb::arg("use_dictionary") = true,
      nb::arg("use_page_index") = true, nb::arg("memory_limit") = 0, nb::arg("row_groups").none() = nb::none(),
      nb::arg("keep_selection") = false, nb::arg("sidecar").none() = nb::none(), nb::arg("tails").none() = nb::none(),
      "Scans local files: ([(file, row_group, num_rows, [(schema capsule, array capsule)], selection bytes or "
      "None)], stats dict).");
}

}  // namespace pqfast::py
