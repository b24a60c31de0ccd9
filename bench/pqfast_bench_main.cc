// Standalone benchmark driver for engine developers without Python:
//   pqfast_bench sbbf [--quick]
// (The Python CLI `pqfast bench ...` runs the same C++ loops and adds peers,
// JSON and charts.)
#include <cstdio>
#include <cstring>
#include <string>

#include "pqfast/simd.h"
#include "sbbf_bench.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "sbbf") != 0) {
    std::fprintf(stderr, "usage: %s sbbf [--quick]\n", argv[0]);
    return 2;
  }
  if (!pqfast::simd_status().ok()) {
    std::fprintf(stderr, "error: %s\n", pqfast::simd_status().error().message.c_str());
    return 2;
  }
  const bool quick = argc > 2 && std::strcmp(argv[2], "--quick") == 0;
  pqfast::bench::SbbfBenchOptions options;
  if (quick) {
    options.probes = size_t{1} << 20;
    options.reps = 3;
  }
  const auto rows = pqfast::bench::run_sbbf_bench(options);
  std::printf("%-10s %-8s %-8s %10s\n", "footprint", "mode", "impl", "ns/probe");
  for (const auto& r : rows) {
    std::printf("%-10s %-8s %-8s %10.2f\n", r.label.c_str(), r.mode.c_str(), r.implementation.c_str(),
                r.ns_per_op);
  }
  return 0;
}
