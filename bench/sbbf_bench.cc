#include "sbbf_bench.h"

#include <cstring>

#include "pqfast/sbbf.h"
#include "pqfast/simd.h"
#include "sbbf/kernels.h"

namespace pqfast::bench {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The probe every reference reader ships (Arrow C++ before 25, arrow-rs,
// Velox): eight dependent word tests with an early exit.
bool classic_check(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  const uint32_t bucket = static_cast<uint32_t>(((hash >> 32) * num_blocks) >> 32);
  const uint32_t key = static_cast<uint32_t>(hash);
  const uint32_t* block = words + size_t{bucket} * 8;
  for (int i = 0; i < 8; ++i) {
    if ((block[i] & (uint32_t{1} << ((key * kSbbfSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

// A filter at ~10 bits per inserted key (fpp about 1%), and a probe stream
// where every other hash was inserted: about 50% hits.
struct Fixture {
  Sbbf filter;
  std::vector<uint64_t> probes;
};

Fixture make_fixture(uint64_t footprint, size_t num_probes) {
  Fixture fx{*Sbbf::with_num_bytes(footprint), std::vector<uint64_t>(num_probes)};
  const uint64_t keys = footprint * 8 / 10;
  std::vector<uint64_t> chunk(1 << 16);
  for (uint64_t i = 0; i < keys; i += chunk.size()) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(chunk.size(), keys - i));
    for (size_t j = 0; j < m; ++j) chunk[j] = splitmix64(i + j);
    fx.filter.insert_hashes(chunk.data(), m);
  }
  uint64_t state = 12345;
  for (size_t i = 0; i < num_probes; ++i) {
    state = splitmix64(state);
    fx.probes[i] = (i & 1) ? splitmix64(state % keys) : state;
  }
  return fx;
}

std::string footprint_label(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%g MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%g KiB", static_cast<double>(bytes) / 1024);
  }
  return buf;
}

}  // namespace

std::vector<Row> run_sbbf_bench(const SbbfBenchOptions& options) {
  std::vector<Row> rows;
  const SimdLevel saved = simd_level();
  for (uint64_t footprint : options.footprints) {
    const std::string label = footprint_label(footprint);
    if (options.progress) options.progress("building a " + label + " filter");
    Fixture fx = make_fixture(footprint, options.probes);
    const uint32_t* words = fx.filter.view().words();
    const uint32_t blocks = fx.filter.num_blocks();
    const double n = static_cast<double>(fx.probes.size());
    auto add = [&](const char* mode, const char* impl, double ns) {
      rows.push_back(Row{"sbbf", mode, impl, footprint, label, ns, n});
    };

    if (options.progress) options.progress(label + ": classic");
    add("classic", "scalar", best_ns_per_op(options.reps, n, [&] {
          uint64_t hits = 0;
          for (uint64_t h : fx.probes) hits += classic_check(words, blocks, h);
          keep(hits);
        }));

    std::vector<uint8_t> out(fx.probes.size());
    for (SimdLevel level : available_simd_levels()) {
      (void)set_simd_level(level);
      const char* impl = simd_level_name(level);
      const SbbfView view = fx.filter.view();
      if (options.progress) options.progress(label + ": " + impl);
      add("single", impl, best_ns_per_op(options.reps, n, [&] {
            uint64_t hits = 0;
            for (uint64_t h : fx.probes) hits += view.check_hash(h);
            keep(hits);
          }));
      add("batched", impl, best_ns_per_op(options.reps, n, [&] {
            view.check_hashes(fx.probes.data(), fx.probes.size(), out.data());
            keep(out[out.size() / 2]);
          }));
    }
  }
  (void)set_simd_level(saved);
  return rows;
}

}  // namespace pqfast::bench
