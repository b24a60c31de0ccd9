// Bindings: the C++ timing drivers behind `pqfast bench ...`.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>

#include "codec_floor_bench.h"
#include "common.h"
#include "delta_bench.h"
#include "delta_strings_bench.h"
#include "local_bloom_bench.h"
#include "sbbf_bench.h"

namespace pqfast::py {
namespace {

// A C++ progress callback that calls a Python callable (None: no callback).
// Benchmarks run without the GIL; the callback takes it for each message.
std::function<void(const std::string&)> progress_callback(nb::object progress) {
  if (progress.is_none()) return {};
  return [progress](const std::string& msg) {
    nb::gil_scoped_acquire gil;
    progress(msg);
  };
}

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

nb::list local_bloom_rows_to_python(const std::vector<bench::LocalBloomRow>& rows) {
  nb::list out;
  for (const auto& r : rows) {
    nb::dict d;
    d["metric"] = r.metric;
    d["mode"] = r.mode;
    d["implementation"] = r.implementation;
    d["bits_per_key"] = r.bits_per_key;
    d["value"] = r.value;
    d["unit"] = r.unit;
    d["ops"] = r.ops;
    if (r.metric == "fp_rate") d["positives"] = r.positives;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_bench(nb::module_& m) {
  // Seconds one thread spends decompressing every page of a file (best of reps).
  m.def("_bench_codec_floor", [](const std::string& path, int reps, std::vector<int> leaves, int threads) {
    Result<bench::CodecFloor> r = Error{ErrorCode::kInvalidArgument, ""};
    {
      nb::gil_scoped_release release;
      r = bench::codec_floor(path, reps, leaves, threads);
    }
    if (!r.ok()) raise(r.error());
    nb::dict d;
    d["seconds"] = r->seconds;
    d["pages"] = r->pages;
    d["compressed_bytes"] = r->compressed_bytes;
    d["uncompressed_bytes"] = r->uncompressed_bytes;
    return d;
  }, nb::arg("path"), nb::arg("reps") = 3, nb::arg("leaves") = std::vector<int>{}, nb::arg("threads") = 1);
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
    o.progress = progress_callback(progress);
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

  m.def("_bench_delta", [](size_t page_values, int iters, int reps, nb::object progress, bool strings) {
    bench::DeltaBenchOptions o;
    o.page_values = page_values;
    o.iters = iters;
    o.reps = reps;
    o.progress = progress_callback(progress);
    std::vector<bench::Row> rows;
    {
      nb::gil_scoped_release release;
      rows = strings ? bench::run_delta_strings_bench(o) : bench::run_delta_bench(o);
    }
    return rows_to_python(rows);
  }, nb::arg("page_values"), nb::arg("iters"), nb::arg("reps"), nb::arg("progress") = nb::none(),
     nb::arg("strings") = false);
  m.def("_bench_local_bloom", [](double bits_per_key, size_t keys_per_filter, size_t build_filters,
                                 uint64_t random_footprint, size_t queries, int reps,
                                 std::vector<double> fp_bits, size_t fp_filters, double fp_queries,
                                 nb::object progress) {
    bench::LocalBloomBenchOptions o;
    o.bits_per_key = bits_per_key;
    o.keys_per_filter = keys_per_filter;
    o.build_filters = build_filters;
    o.random_footprint = random_footprint;
    o.queries = queries;
    o.reps = reps;
    o.fp_bits = std::move(fp_bits);
    o.fp_filters = fp_filters;
    o.fp_queries = fp_queries;
    o.progress = progress_callback(progress);
    std::vector<bench::LocalBloomRow> rows;
    {
      nb::gil_scoped_release release;
      rows = bench::run_local_bloom_bench(o);
    }
    return local_bloom_rows_to_python(rows);
  }, nb::arg("bits_per_key"), nb::arg("keys_per_filter"), nb::arg("build_filters"),
     nb::arg("random_footprint"), nb::arg("queries"), nb::arg("reps"), nb::arg("fp_bits"),
     nb::arg("fp_filters"), nb::arg("fp_queries"), nb::arg("progress") = nb::none());
}

}  // namespace pqfast::py
