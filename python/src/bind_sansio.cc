// Bindings of the sans-IO pruning core (pqfast/prune_sansio.h): a query
// (column, typed values, options, hashed once) and one pruner per file that
// says which byte ranges it needs and takes them. python/pqfast/sansio.py
// and the remote driver (python/pqfast/remote.py) build on these.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "common.h"
#include "parquet/prune_footer.h"
#include "pqfast/prune_sansio.h"
#include "prune_common.h"

namespace pqfast::py {

namespace pq = pqfast::parquet;

namespace {

struct PyQuery {
  std::shared_ptr<const pq::PruneQuery> q;
};

// Keeps its query alive: the pruner points into it.
struct PyPruner {
  std::shared_ptr<const pq::PruneQuery> q;
  pq::FilePruner p;
  PyPruner(std::shared_ptr<const pq::PruneQuery> query, std::string name, uint64_t size, size_t tail)
      : q(std::move(query)), p(*q, std::move(name), size, tail) {}
  PyPruner(std::shared_ptr<const pq::PruneQuery> query, std::string name, uint64_t size,
           std::shared_ptr<const pq::PruneFooter> footer)
      : q(std::move(query)), p(*q, std::move(name), size, std::move(footer)) {}
};

// A file's footer as a pruner decoded it for one column (with the Bloom
// filter layouts its block probes learned), for later pruners of the same
// unchanged file: they ask for the blocks alone.
struct PyFooter {
  std::shared_ptr<const pq::PruneFooter> f;
};

}  // namespace

void bind_sansio(nb::module_& m) {
  nb::class_<PyQuery>(m, "_PruneQuery")
      .def_prop_ro("num_values", [](const PyQuery& q) { return q.q->values().size(); })
      .def_prop_ro("per_value", [](const PyQuery& q) { return q.q->options().per_value; })
      .def_prop_ro("column", [](const PyQuery& q) { return q.q->column(); })
      .def("file", [](const PyQuery& q, const std::string& name, uint64_t size, size_t tail_bytes) {
        return new PyPruner(q.q, name, size, tail_bytes);
      }, nb::arg("name"), nb::arg("size"), nb::arg("tail_bytes") = pq::kDefaultTailBytes)
      // A pruner starting from a footer kept by an earlier one of the same
      // file (the caller knows the file unchanged: same size and version).
      .def("file_from", [](const PyQuery& q, const std::string& name, uint64_t size, const PyFooter& footer) {
        if (!footer.f) throw FormatError("invalid argument: an empty footer");
        if (footer.f->column.dotted_path != q.q->column()) {
          throw FormatError("invalid argument: a footer kept for column '" + footer.f->column.dotted_path +
                            "' given to a query on '" + q.q->column() + "'");
        }
        return new PyPruner(q.q, name, size, footer.f);
      }, nb::arg("name"), nb::arg("size"), nb::arg("footer"));

  nb::class_<PyFooter>(m, "_PruneFooter");

  nb::class_<PyPruner>(m, "_FilePruner")
      .def_prop_ro("done", [](const PyPruner& p) { return p.p.done(); })
      .def_prop_ro("needs", [](const PyPruner& p) {
        nb::list l;
        for (const auto& r : p.p.needs()) l.append(nb::make_tuple(r.offset, r.length));
        return l;
      })
      .def_prop_ro("footer_length", [](const PyPruner& p) { return p.p.footer_length(); })
      .def_prop_ro("filter_span", [](const PyPruner& p) { return p.p.filter_span(); })
      .def_prop_ro("ok", [](const PyPruner& p) { return p.p.result().ok; })
      .def_prop_ro("error", [](const PyPruner& p) {
        return p.p.result().ok ? nb::none() : nb::cast(printable_utf8(p.p.result().error.to_string()));
      })
      .def_prop_ro("name", [](const PyPruner& p) { return p.p.result().path; })
      // (row groups, ruled out by min/max, ruled out by the Bloom filter) of a finished file.
      .def_prop_ro("counts", [](const PyPruner& p) {
        if (!p.p.done()) throw FormatError("invalid argument: the file's pruner is not done");
        const pq::FilePruneResult& r = p.p.result();
        size_t by_stats = 0, by_bloom = 0;
        for (const auto& g : r.row_groups) {
          by_stats += g.verdict == pq::Verdict::kAbsentByStats;
          by_bloom += g.verdict == pq::Verdict::kAbsentByBloom;
        }
        return nb::make_tuple(r.row_groups.size(), by_stats, by_bloom);
      })
      // A finished file's row groups that may hold a value (not ruled out by
      // min/max or the Bloom filter), ascending; None when it failed.
      .def_prop_ro("kept", [](const PyPruner& p) -> nb::object {
        if (!p.p.done()) throw FormatError("invalid argument: the file's pruner is not done");
        const pq::FilePruneResult& r = p.p.result();
        if (!r.ok) return nb::none();
        nb::list l;
        for (size_t g = 0; g < r.row_groups.size(); ++g) {
          const pq::Verdict v = r.row_groups[g].verdict;
          if (v != pq::Verdict::kAbsentByStats && v != pq::Verdict::kAbsentByBloom) l.append(g);
        }
        return l;
      })
      .def("feed", [](PyPruner& p, uint64_t offset, nb::handle data) {
        ByteView v = byte_view(data);
        p.p.feed(offset, v.data, v.size);
      }, nb::arg("offset"), nb::arg("data"))
      .def("keep_footer", [](PyPruner& p) { p.p.keep_footer(); },
           "Keep the decoded footer (and the filter layouts probes learn) for footer.")
      .def_prop_ro("footer", [](const PyPruner& p) -> nb::object {
        auto f = p.p.footer();
        if (!f) return nb::none();
        return nb::cast(PyFooter{std::move(f)});
      })
      .def("fail", [](PyPruner& p, const std::string& message) {
        p.p.fail(Error{ErrorCode::kIoError, message});
      }, nb::arg("message"));

  m.def("_prune_query", [](const std::string& column, const std::string& type_name, int32_t type_length,
                           nb::handle data, nb::handle offsets, bool per_value, bool use_stats, bool use_bloom,
                           uint32_t coalesce_gap, bool block_reads) {
    pq::PruneOptions o;
    // Block reads with the blocks guessed from the filter's length: header
    // and blocks in one request (object storage).
    o.block_reads = block_reads;
    o.predict_blocks = block_reads;
    o.per_value = per_value;
    o.use_statistics = use_stats;
    o.use_bloom = use_bloom;
    o.coalesce_gap = coalesce_gap;
    return PyQuery{unwrap(pq::PruneQuery::make(column, probe_values_from_py(type_name, type_length, data, offsets),
                                               o))};
  }, nb::arg("column"), nb::arg("type_name"), nb::arg("type_length"), nb::arg("data"),
     nb::arg("offsets").none(), nb::arg("per_value") = false, nb::arg("use_stats") = true,
     nb::arg("use_bloom") = true, nb::arg("coalesce_gap") = 1u << 20, nb::arg("block_reads") = false);

  // Results of finished pruners (in the list's order) as prune's flat arrays.
  m.def("_pruner_results", [](const std::vector<PyPruner*>& ps, size_t nv, bool per_value) {
    std::vector<pq::FilePruneResult> rs;
    rs.reserve(ps.size());
    for (PyPruner* p : ps) {
      if (!p->p.done()) throw FormatError("invalid argument: a file's pruner is not done");
      rs.push_back(p->p.result());
    }
    return prune_results_to_dict(rs, nv, per_value);
  });
}

}  // namespace pqfast::py
