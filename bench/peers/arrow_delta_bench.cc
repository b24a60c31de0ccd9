// Arrow C++ 26's DELTA_BINARY_PACKED decoder on the same pages as
// `pqfast bench delta` (same generator, same timing). Prints one JSON object
// per line: type, width_class, implementation "arrow", ns_per_value,
// gvalues_per_s. Usage: arrow_delta_bench [--quick] [--values N]
#include <parquet/encoding.h>
#include <parquet/exception.h>
#include <parquet/types.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "delta_bench.h"

namespace {

template <class DType>
double time_arrow(const pqfast::bench::DeltaPage& p, int reps, int iters) {
  using T = typename DType::c_type;
  auto decoder = parquet::MakeTypedDecoder<DType>(parquet::Encoding::DELTA_BINARY_PACKED);
  std::vector<T> out(p.values);
  const int n = static_cast<int>(p.values);
  // Check once that Arrow reads the page (and our encoder's output) as we do.
  decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
  if (decoder->Decode(out.data(), n) != n) return -1;
  return pqfast::bench::median_ns_per_value(reps, iters, p.values, [&] {
    decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
    decoder->Decode(out.data(), n);
    pqfast::bench::keep(static_cast<uint64_t>(out[p.values - 1]));
  });
}

}  // namespace

int main(int argc, char** argv) {
  pqfast::bench::DeltaBenchOptions o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      o.iters = 4;
      o.reps = 3;
    } else if (std::strcmp(argv[i], "--values") == 0 && i + 1 < argc) {
      o.page_values = std::stoul(argv[++i]);
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      o.reps = std::stoi(argv[++i]);
    }
  }
  for (const auto& p : pqfast::bench::make_delta_pages(o.page_values)) {
    if (!p.arrow_readable) continue;
    double ns = -1;
    try {
      ns = p.int64 ? time_arrow<parquet::Int64Type>(p, o.reps, o.iters)
                   : time_arrow<parquet::Int32Type>(p, o.reps, o.iters);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "arrow_delta_bench: %s %s: %s\n", p.type.c_str(), p.width_class.c_str(), e.what());
      continue;
    }
    if (ns <= 0) continue;
    std::printf("{\"type\": \"%s\", \"width_class\": \"%s\", \"implementation\": \"arrow\", "
                "\"ns_per_value\": %.6f, \"gvalues_per_s\": %.6f}\n",
                p.type.c_str(), p.width_class.c_str(), ns, 1.0 / ns);
  }
  return 0;
}
