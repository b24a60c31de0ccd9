// DELTA_BINARY_PACKED decode timing: G values/s per width class for INT32
// and INT64 pages of 64K values, each implementation, next to memcpy of the
// output bytes. The pages come from one generator shared with the Arrow C++
// side-by-side driver (bench/peers/arrow_delta_bench.cc), so both decode the
// same bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "timer.h"

namespace pqfast::bench {

struct DeltaPage {
  bool int64 = true;
  std::string type;         // "INT32" / "INT64"
  std::string width_class;  // "0", "1-8", "9-16", "17-32", "33-64"
  int width_lo = 0, width_hi = 0;
  size_t values = 0;
  std::vector<uint8_t> bytes;
  bool arrow_readable = true;  // INT32 miniblocks wider than 32 bits are not (DuckDB writes them)
};

// INT32 pages use Arrow's 128 / 4 geometry, INT64 pages 256 / 4. Miniblock k
// of a page in class lo-hi is (lo + k % (hi - lo + 1)) bits wide.
std::vector<DeltaPage> make_delta_pages(size_t page_values);

// Median over `reps` of (decode the page `iters` times) in ns per value.
template <class Body>
double median_ns_per_value(int reps, int iters, double values, Body&& body) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ns();
    for (int i = 0; i < iters; ++i) body();
    t.push_back((now_ns() - t0) / (values * iters));
  }
  for (size_t i = 1; i < t.size(); ++i) {  // insertion sort: a handful of reps
    for (size_t j = i; j > 0 && t[j] < t[j - 1]; --j) std::swap(t[j], t[j - 1]);
  }
  return t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
}

struct DeltaBenchOptions {
  size_t page_values = size_t{1} << 16;
  int iters = 16;  // page decodes per timed repetition
  int reps = 7;
  std::function<void(const std::string&)> progress;
};

// Rows: family "delta", mode = type, label = width class, implementation =
// scalar / avx2 / avx512 / memcpy, ns_per_op = ns per value.
std::vector<Row> run_delta_bench(const DeltaBenchOptions& options);

}  // namespace pqfast::bench
