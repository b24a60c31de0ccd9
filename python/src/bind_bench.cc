// Bindings: the C++ timing drivers behind `pqfast bench ...`.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "delta_bench.h"
#include "sbbf_bench.h"

namespace pqfast::py {
namespace {

nb::list rows_to_python(const std::vector<bench::Row>& rows) {
  nb::list out;
  for (const auto& r : rows) {
    nb::dict d;
    d["family"] = r.family;
    d["mode"] = r.mode;
    d["implementation"] = r.implementation;
    d["footprint_bytes"] = r.footprint_bytes;
    d["label"] = r.label;
    d["ns_per_op"] = r.ns_per_op;
    d["ops"] = r.ops;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_bench(nb::module_& m) {
  // Returns (rows, notes).
  m.def("_bench_sbbf", [](std::vector<uint64_t> footprints, size_t probes, int reps,
                          nb::object progress, int64_t prefetch_distance, uint64_t insert_keys_up_to) {
    bench::SbbfBenchOptions o;
    o.footprints = std::move(footprints);
    o.probes = probes;
    o.reps = reps;
    if (prefetch_distance >= 0) o.prefetch_distance = static_cast<size_t>(prefetch_distance);
    o.insert_keys_up_to = insert_keys_up_to;
    std::vector<std::string> notes;
    o.notes = &notes;
    if (!progress.is_none()) {
      o.progress = [progress](const std::string& msg) {
        nb::gil_scoped_acquire gil;
        progress(msg);
      };
    }
    std::vector<bench::Row> rows;
    {
      nb::gil_scoped_release release;
      rows = bench::run_sbbf_bench(o);
    }
    nb::list py_notes;
    for (const auto& note : notes) py_notes.append(nb::str(note.c_str()));
    return nb::make_tuple(rows_to_python(rows), py_notes);
  }, nb::arg("footprints"), nb::arg("probes"), nb::arg("reps"), nb::arg("progress") = nb::none(),
     nb::arg("prefetch_distance") = -1, nb::arg("insert_keys_up_to") = uint64_t{8} << 20);

  m.def("_bench_delta", [](size_t page_values, int iters, int reps, nb::object progress) {
    bench::DeltaBenchOptions o;
    o.page_values = page_values;
    o.iters = iters;
    o.reps = reps;
    if (!progress.is_none()) {
      o.progress = [progress](const std::string& msg) {
        nb::gil_scoped_acquire gil;
        progress(msg);
      };
    }
    std::vector<bench::Row> rows;
    {
      nb::gil_scoped_release release;
      rows = bench::run_delta_bench(o);
    }
    return rows_to_python(rows);
  }, nb::arg("page_values"), nb::arg("iters"), nb::arg("reps"), nb::arg("progress") = nb::none());
}

}  // namespace pqfast::py
