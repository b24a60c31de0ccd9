#include "local_bloom_bench.h"

#include "pqfast/local_bloom.h"
#include "pqfast/simd.h"
#include "local_bloom/kernels.h"

namespace pqfast::bench {
LocalBloomQueries make_local_bloom_queries(const LocalBloomBenchOptions& o) {
  LocalBloomQueries q;
  const size_t k = o.keys_per_filter;
  q.build_keys = bench_keys(o.build_filters * k, [k](size_t i) { return inside_id(i / k, i % k); });
  q.inside = bench_keys(o.queries, [k](size_t i) { return inside_id(0, bench_mix(i) % k); });
  q.outside = bench_keys(o.queries, [](size_t i) { return outside_id(i); });
  q.mixed = bench_keys(o.queries, [k](size_t i) {
    return (i & 1) ? inside_id(0, bench_mix(i) % k) : outside_id(i);
  });
  // ~random_footprint bytes of filters at bits_per_key.
  const size_t per_filter = local_bloom_payload_bytes(k, *local_bloom_millibits_per_key(o.bits_per_key)) +
                            kLocalBloomTrailerBytes;
  q.random_filters = std::max<size_t>(1, o.random_footprint / per_filter);
  q.random_filter.resize(o.queries);
  q.random_keys.resize(o.queries * kBenchKeyBytes);
  for (size_t i = 0; i < o.queries; ++i) {
    const uint64_t r = bench_mix(i * 7 + 3);
    const uint32_t f = static_cast<uint32_t>(r % q.random_filters);
    q.random_filter[i] = f;
    // Half the queries were inserted in their filter (ids match build_random_set).
    bench_key((i & 1) ? inside_id(f + 1000, (r >> 32) % k) : outside_id(i),
              q.random_keys.data() + i * kBenchKeyBytes);
  }
  return q;
}

std::vector<LocalBloomRow> run_local_bloom_bench(const LocalBloomBenchOptions& o) {
  std::vector<LocalBloomRow> rows;
  const SimdLevel saved = simd_level();
  if (o.progress) o.progress("generating keys");
  const LocalBloomQueries q = make_local_bloom_queries(o);
  PqfastImpl impl(std::max(o.keys_per_filter, o.queries));
  std::vector<PqfastFilter> random_set;
  if (o.random_footprint > 0) {
    if (o.progress) {
      o.progress("building " + std::to_string(q.random_filters) + " filters (" +
                 std::to_string(o.random_footprint >> 20) + " MiB)");
    }
    random_set = build_random_set(impl, o, q.random_filters);  // same bytes on every ISA
  }
  const auto& tables = local_bloom::local_bloom_kernel_tables();
  for (SimdLevel level : available_simd_levels()) {
    if (tables.by_level[static_cast<int>(level)] == nullptr) continue;  // no table of its own
    (void)set_simd_level(level);
    time_local_bloom(impl, simd_level_name(level), o, q, random_set, rows);
  }
  (void)set_simd_level(saved);
  if (!o.fp_bits.empty()) measure_fp_rates(impl, simd_level_name(saved), o, 1.0, rows, /*pr6007=*/true);
  return rows;
}

}  // namespace pqfast::bench
