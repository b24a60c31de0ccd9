// SBBF probe timing: classic early-exit scalar loop, each implementation's
// single call, and each implementation's batched call, per filter footprint.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "timer.h"

namespace pqfast::bench {

struct SbbfBenchOptions {
  std::vector<uint64_t> footprints{uint64_t{512} << 10, uint64_t{128} << 20};
  size_t probes = size_t{1} << 22;  // hashes per timed repetition
  int reps = 5;
  // Called with a short description as each row starts (progress display).
  std::function<void(const std::string&)> progress;
};

std::vector<Row> run_sbbf_bench(const SbbfBenchOptions& options);

}  // namespace pqfast::bench
