// SBBF timing: the seed's table (classic early-exit scalar, each
// implementation's single call and batched call) plus the multi-filter
// product, value -> verdict with hashing, and build, per filter footprint.
// Peers (Arrow C++) hook in through `peer` to time their calls on the same
// filters and hashes in the same process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pqfast/sbbf.h"
#include "timer.h"

namespace pqfast::bench {

// What a footprint's rows are measured on, handed to peers.
struct SbbfFixtureView {
  uint64_t footprint_bytes = 0;
  std::string label;
  // The filters probes go to: one, or eight (footprints above 128 MiB, one
  // chosen at random per probe through filter_ids).
  std::vector<SbbfRef> filters;
  const uint32_t* filter_ids = nullptr;  // nullptr with one filter
  const uint64_t* probes = nullptr;      // XXH64 of `values`; half inserted
  const int64_t* values = nullptr;
  size_t num_probes = 0;  // length of probes/values/filter_ids
  int passes = 1;         // times a timed repetition walks them
  const uint64_t* build_keys = nullptr;  // fresh hashes for build timing
  size_t num_build_keys = 0;
  size_t build_bytes = 0;                // size of the filter a build fills
};

// Adds one row: mode, implementation, ns per op.
using AddRow = std::function<void(const char* mode, const char* implementation, double ns)>;

struct SbbfBenchOptions {
  // 0.5 MiB (in cache), 128 MiB, 1 GiB (= eight 128 MiB filters).
  std::vector<uint64_t> footprints{uint64_t{512} << 10, uint64_t{128} << 20, uint64_t{1} << 30};
  size_t probes = size_t{1} << 22;  // probes per timed repetition
  // Footprints that fit in cache (<= 8 MiB) probe from an array of this many hashes, walked repeatedly,
  // so hashes come from cache as in a reader's batch and the rows measure
  // the probe, not the bandwidth of streaming a 32 MiB hash array.
  size_t in_cache_window = size_t{1} << 16;
  int reps = 5;                     // repetitions per row; the best counts
  // Footprints above this are filled with random bits (50% density) plus the
  // member probes instead of inserting ~10 bits' worth of keys.
  uint64_t insert_keys_up_to = uint64_t{8} << 20;
  size_t prefetch_distance = kSbbfAutoPrefetch;
  // Called with a short description as each row starts (progress display).
  std::function<void(const std::string&)> progress;
  // Called once per footprint after our rows, to add a peer's rows.
  std::function<void(const SbbfFixtureView&, const AddRow&)> peer;
  // Receives notes (huge-page coverage of the filters, fill method).
  std::vector<std::string>* notes = nullptr;
};

std::vector<Row> run_sbbf_bench(const SbbfBenchOptions& options);

// Fraction (0..1) of [p, p + bytes) that Linux backs with transparent huge
// pages (AnonHugePages in /proc/self/smaps); -1 where unknown.
double huge_page_fraction(const void* p, size_t bytes);

// Rows as JSON lines (the format peers print and `pqfast bench` reads).
std::string rows_to_json_lines(const std::vector<Row>& rows);

}  // namespace pqfast::bench
