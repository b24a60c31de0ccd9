// pqfast.index: Bloom filters appended to existing files (pqfast/index.h).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "pqfast/index.h"

namespace pqfast::py {

namespace pq = pqfast::parquet;

namespace {

const char* action_name(pq::ChunkAction a) {
  switch (a) {
    case pq::ChunkAction::kIndexed: return "indexed";
    case pq::ChunkAction::kHadFilter: return "had_filter";
    case pq::ChunkAction::kUnsupported: return "unsupported";
  }
  return "?";
}

}  // namespace

void bind_index(nb::module_& m) {
  // path (os.fsencode'd) -> a dict describing what was done. Errors of the
  // file (bad footer, missing column...) raise FormatError; a file changed by
  // another process meanwhile is outcome "conflict", not an error.
  m.def(
      "_index_file",
      [](nb::bytes path, std::vector<std::string> columns, double fpp, uint64_t ndv, bool dry_run) {
        pq::IndexOptions opt;
        opt.columns = std::move(columns);
        opt.fpp = fpp;
        opt.ndv = ndv;
        opt.dry_run = dry_run;
        std::string p(path.c_str(), path.size());
        Result<pq::IndexFileResult> r = Error{};
        {
          nb::gil_scoped_release release;
          r = pq::index_local_file(p, opt);
        }
        pq::IndexFileResult res = unwrap(std::move(r));
        nb::dict d;
        d["outcome"] = pq::index_outcome_name(res.outcome);
        d["message"] = res.message;
        d["old_size"] = res.plan.old_size;
        d["bytes_appended"] = res.bytes_appended;
        d["bytes_copied"] = res.bytes_copied;
        d["cloned"] = res.cloned;
        d["chunks_indexed"] = res.plan.chunks_indexed;
        d["chunks_had_filter"] = res.plan.chunks_had_filter;
        d["chunks_unsupported"] = res.plan.chunks_unsupported;
        d["chunks_from_dictionary"] = res.plan.chunks_from_dictionary;
        nb::list chunks;
        for (const auto& c : res.plan.chunks) {
          nb::dict cd;
          cd["row_group"] = c.row_group;
          cd["leaf"] = c.leaf;
          cd["action"] = action_name(c.action);
          cd["from_dictionary"] = c.from_dictionary;
          cd["ndv"] = c.ndv;
          cd["filter_bytes"] = c.filter_bytes;
          cd["bloom_filter_offset"] = c.bloom_filter_offset;
          cd["reason"] = c.reason;
          chunks.append(cd);
        }
        d["chunks"] = chunks;
        return d;
      },
      nb::arg("path"), nb::arg("columns"), nb::arg("fpp"), nb::arg("ndv"), nb::arg("dry_run"));
}

}  // namespace pqfast::py
