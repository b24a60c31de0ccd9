// pqfast.index: Bloom filters appended to existing files (pqfast/index.h).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "parquet_common.h"
#include "pqfast/index.h"
#include "pqfast/page_index.h"
#include "sidecar_tails.h"

namespace pqfast::py {

namespace {

const char* action_name(pq::ChunkAction a) {
  switch (a) {
    case pq::ChunkAction::kIndexed: return "indexed";
    case pq::ChunkAction::kHadFilter: return "had_filter";
    case pq::ChunkAction::kUnsupported: return "unsupported";
  }
  return "?";
}

nb::dict plan_dict(const pq::IndexPlan& plan) {
  nb::dict d;
  d["old_size"] = plan.old_size;
  d["chunks_indexed"] = plan.chunks_indexed;
  d["chunks_had_filter"] = plan.chunks_had_filter;
  d["chunks_unsupported"] = plan.chunks_unsupported;
  d["chunks_from_dictionary"] = plan.chunks_from_dictionary;
  d["offset_indexes"] = plan.offset_indexes;
  d["column_indexes"] = plan.column_indexes;
  nb::list chunks;
  for (const auto& c : plan.chunks) {
    nb::dict cd;
    cd["row_group"] = c.row_group;
    cd["leaf"] = c.leaf;
    cd["action"] = action_name(c.action);
    cd["from_dictionary"] = c.from_dictionary;
    cd["ndv"] = c.ndv;
    cd["filter_bytes"] = c.filter_bytes;
    cd["bloom_filter_offset"] = c.bloom_filter_offset;
    cd["offset_index"] = c.offset_index;
    cd["column_index"] = c.column_index;
    cd["reason"] = c.reason;
    chunks.append(cd);
  }
  d["chunks"] = chunks;
  return d;
}

// The options every index binding takes alike.
pq::IndexOptions index_options(std::vector<std::string> columns, double fpp, uint64_t ndv, bool page_index,
                               int threads) {
  pq::IndexOptions opt;
  opt.columns = std::move(columns);
  opt.fpp = fpp;
  opt.ndv = ndv;
  opt.page_index = page_index;
  opt.threads = threads;
  return opt;
}

// (summary dict, the bytes to append: empty when nothing to add).
nb::tuple plan_tuple(const pq::IndexPlan& plan) {
  nb::bytes tail(reinterpret_cast<const char*>(plan.tail.data()), plan.tail.size());
  return nb::make_tuple(plan_dict(plan), tail);
}

}  // namespace

void bind_index(nb::module_& m) {
  // path (os.fsencode'd) -> a dict describing what was done. Errors of the
  // file (bad footer, missing column...) raise FormatError; a file changed by
  // another process meanwhile is outcome "conflict", not an error.
  m.def(
      "_index_file",
      [](nb::bytes path, std::vector<std::string> columns, double fpp, uint64_t ndv, bool dry_run, bool page_index,
         int threads) {
        pq::IndexOptions opt = index_options(std::move(columns), fpp, ndv, page_index, threads);
        opt.dry_run = dry_run;
        std::string p(path.c_str(), path.size());
        Result<pq::IndexFileResult> r = Error{};
        {
          nb::gil_scoped_release release;
          r = pq::index_local_file(p, opt);
        }
        pq::IndexFileResult res = unwrap(std::move(r));
        nb::dict d = plan_dict(res.plan);
        d["outcome"] = pq::index_outcome_name(res.outcome);
        d["message"] = res.message;
        d["bytes_appended"] = res.bytes_appended;
        d["bytes_copied"] = res.bytes_copied;
        d["cloned"] = res.cloned;
        return d;
      },
      nb::arg("path"), nb::arg("columns"), nb::arg("fpp"), nb::arg("ndv"), nb::arg("dry_run"), nb::arg("page_index") = true,
      nb::arg("threads") = 1);

  // The plan over any file read through read_at(offset, n) -> bytes (object
  // stores): (summary dict, the bytes to append: empty when nothing to add).
  m.def(
      "_plan_index",
      [](nb::object read_at, uint64_t size, std::string name, std::vector<std::string> columns, double fpp,
         uint64_t ndv, bool page_index, int threads) {
        pq::IndexOptions opt = index_options(std::move(columns), fpp, ndv, page_index, threads);
        PyFile file(std::move(read_at), size, std::move(name));
        Result<pq::IndexPlan> r = Error{};
        {
          nb::gil_scoped_release release;
          r = pq::plan_index(file, opt);
        }
        return plan_tuple(unwrap(std::move(r)));
      },
      nb::arg("read_at"), nb::arg("size"), nb::arg("name"), nb::arg("columns"), nb::arg("fpp"), nb::arg("ndv"),
      nb::arg("page_index"), nb::arg("threads") = 1);

  // The same plan over a local file (os.fsencode'd path), for the sidecar
  // writer: nothing is written. With sidecar and tail (as LocalScan reads them), the
  // file is planned with the tail the sidecar holds for it appended: what is
  // planned then goes after that tail.
  m.def(
      "_plan_index_path",
      [](nb::bytes path, std::vector<std::string> columns, double fpp, uint64_t ndv, bool page_index,
         const std::optional<std::string>& sidecar, const std::optional<SidecarTail>& tail, int threads) {
        pq::IndexOptions opt = index_options(std::move(columns), fpp, ndv, page_index, threads);
        std::vector<std::string> paths{std::string(path.c_str(), path.size())};
        std::optional<std::vector<SidecarTail>> tails;
        if (tail) tails = std::vector<SidecarTail>{*tail};
        Result<pq::IndexPlan> r = Error{};
        {
          nb::gil_scoped_release release;
          auto files = open_with_tails(paths, sidecar, tails);
          r = files.ok() ? pq::plan_index(*files->front(), opt) : Result<pq::IndexPlan>(files.error());
        }
        return plan_tuple(unwrap(std::move(r)));
      },
      nb::arg("path"), nb::arg("columns"), nb::arg("fpp"), nb::arg("ndv"), nb::arg("page_index"),
      nb::arg("sidecar").none() = nb::none(), nb::arg("tail").none() = nb::none(), nb::arg("threads") = 1);

  // The ColumnIndex and OffsetIndex of one chunk as pqfast parses them (for
  // tests): None for a structure the chunk lacks. The OffsetIndex is checked
  // against the file (validate_offset_index).
  m.def("_read_page_index", [](nb::bytes path, int row_group, int leaf) {
    std::string p(path.c_str(), path.size());
    auto file = unwrap(pq::LocalFile::open(p));
    auto meta = unwrap(pq::read_file_metadata(*file));
    if (row_group < 0 || static_cast<size_t>(row_group) >= meta.row_groups.size() || leaf < 0 ||
        static_cast<size_t>(leaf) >= meta.row_groups[static_cast<size_t>(row_group)].columns.size()) {
      throw nb::index_error("no such column chunk");
    }
    const auto& c = meta.row_groups[static_cast<size_t>(row_group)].columns[static_cast<size_t>(leaf)];
    auto read = [&](int64_t off, int32_t len) {
      if (off < 0 || len <= 0 || static_cast<uint64_t>(off) > file->size() ||
          static_cast<uint64_t>(len) > file->size() - static_cast<uint64_t>(off)) {
        raise(make_error(ErrorCode::kCorrupt, p + ": page index outside the file"));
      }
      std::vector<uint8_t> b(static_cast<size_t>(len));
      throw_if_error(file->read_at(static_cast<uint64_t>(off), b.size(), b.data()));
      return b;
    };
    nb::dict d;
    d["column_index"] = nb::none();
    d["offset_index"] = nb::none();
    if (c.column_index_offset >= 0) {
      auto b = read(c.column_index_offset, c.column_index_length);
      auto ci = unwrap(pq::parse_column_index(b.data(), b.size(), static_cast<size_t>(c.column_index_offset)));
      nb::dict x;
      nb::list nulls, mins, maxs, counts;
      for (bool v : ci.null_pages) nulls.append(v);
      for (const auto& v : ci.min_values) mins.append(nb::bytes(v.data(), v.size()));
      for (const auto& v : ci.max_values) maxs.append(nb::bytes(v.data(), v.size()));
      for (int64_t v : ci.null_counts) counts.append(v);
      x["null_pages"] = nulls;
      x["min_values"] = mins;
      x["max_values"] = maxs;
      x["boundary_order"] = ci.boundary_order;
      x["null_counts"] = counts;
      d["column_index"] = x;
    }
    if (c.offset_index_offset >= 0) {
      auto b = read(c.offset_index_offset, c.offset_index_length);
      auto oi = unwrap(pq::parse_offset_index(b.data(), b.size(), static_cast<size_t>(c.offset_index_offset)));
      throw_if_error(
          pq::validate_offset_index(oi, file->size(), meta.row_groups[static_cast<size_t>(row_group)].num_rows, p));
      nb::list locs;
      for (const auto& l : oi.page_locations) {
        locs.append(nb::make_tuple(l.offset, l.compressed_page_size, l.first_row_index));
      }
      d["offset_index"] = locs;
    }
    return d;
  });
}

}  // namespace pqfast::py
