#include "local_bloom_bench.h"

#include "pqfast/local_bloom.h"
#include "pqfast/simd.h"
#include "local_bloom/kernels.h"

namespace pqfast::bench {
namespace {

constexpr size_t kChunk = 1024;  // keys hashed per step of a batched call

// A filter and its view (a reader holds a view per filter; the view binds
// the active SIMD implementation, so rebind() refreshes it per level).
struct PqfastFilter {
  LocalBloom filter;
  LocalBloomView view;
};

struct PqfastImpl {
  using Filter = PqfastFilter;
  static constexpr bool kHasRandomBatch = true;
  std::vector<int64_t> offsets;  // fixed 24-byte keys: 0, 24, 48, ...
  std::vector<LocalBloomRef> refs;

  explicit PqfastImpl(size_t max_keys) : offsets(max_keys + 1) {
    for (size_t i = 0; i <= max_keys; ++i) offsets[i] = static_cast<int64_t>(i * kBenchKeyBytes);
  }

  Filter build(const uint8_t* keys, size_t n, double bits_per_key) const {
    Filter f{std::move(*LocalBloom::build_from_keys(keys, n * kBenchKeyBytes, offsets.data(), n,
                                                    bits_per_key)),
             {}};
    f.view = f.filter.view();
    return f;
  }
  static int num_probes_for(double bits_per_key) {
    return local_bloom_num_probes(*local_bloom_millibits_per_key(bits_per_key));
  }
  // A filter with a given probe count (RocksDB's sizing otherwise).
  Filter build_with_probes(const uint8_t* keys, size_t n, double bits_per_key, int probes) const {
    std::vector<uint64_t> hashes(n);
    (void)rocksdb_hash64_keys(keys, n * kBenchKeyBytes, offsets.data(), n, hashes.data());
    const size_t bytes = local_bloom_payload_bytes(n, *local_bloom_millibits_per_key(bits_per_key));
    Filter f{std::move(*LocalBloom::with_shape(bytes, probes)), {}};
    f.filter.insert_hashes(hashes.data(), n);
    f.view = f.filter.view();
    return f;
  }
  void rebind(std::vector<Filter>& set) {
    refs.clear();
    for (auto& f : set) {
      f.view = f.filter.view();
      refs.push_back(LocalBloomRef{f.filter.block(), f.filter.num_lines(), f.filter.num_probes()});
    }
  }
  static bool check(const Filter& f, const uint8_t* key) {
    return f.view.check_key(key, kBenchKeyBytes);
  }
  void check_batch(const Filter& f, const uint8_t* keys, size_t n, uint8_t* out) const {
    (void)f.view.check_keys(keys, n * kBenchKeyBytes, offsets.data(), n, out);
  }
  // A MultiGet across files: hash a chunk, then probe it with lines prefetched.
  void check_random_batch(const std::vector<Filter>&, const uint32_t* filter, const uint8_t* keys,
                          size_t n, uint8_t* out) const {
    uint64_t hashes[kChunk];
    for (size_t i = 0; i < n; i += kChunk) {
      const size_t m = std::min(kChunk, n - i);
      for (size_t j = 0; j < m; ++j) {
        hashes[j] = rocksdb_hash64(keys + (i + j) * kBenchKeyBytes, kBenchKeyBytes);
      }
      local_bloom_check_many(refs.data(), filter + i, hashes, m, out + i);
    }
  }
};

}  // namespace

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
