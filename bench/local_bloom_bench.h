// `pqfast bench local-bloom`: our own filter_bench for RocksDB's FastLocalBloom.
//
// Like RocksDB's filter_bench (-quick -net_includes_hashing): 24-byte keys,
// hashing included in every figure, filters of ~10k keys.
//   build    ns per key: hash + size + insert, over many 10k-key filters
//   single   ns per query against one filter (hot in cache): keys that were
//            inserted (inside), never inserted (outside), alternating (mixed)
//   batched  ns per query, the same mixed queries handed over as an array
//   random   ns per query, each against a random filter of a ~200 MB set
//            (cold lines): one call per query ("single", RocksDB's Get), or
//            arrays across filters ("batched", a MultiGet)
//   fp_rate  percent of never-inserted keys reported present, per bits/key
// Each figure is the best of `reps` repetitions (the machine is shared; the
// Python side reports the median over --runs). The loops are templates over an implementation so the RocksDB peer driver
// (bench/peers/local_bloom_rocksdb.cc) times RocksDB with the same code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "pqfast/local_bloom.h"
#include "timer.h"

namespace pqfast::bench {

struct LocalBloomRow {
  std::string metric;          // build, single, batched, random, fp_rate
  std::string mode;            // inside / outside / mixed (single), single / batched (random)
  std::string implementation;  // scalar, avx2, avx512, rocksdb
  double bits_per_key = 0;
  double value = 0;            // ns per key/query, or percent for fp_rate
  std::string unit;            // "ns" or "%"
  double ops = 0;              // keys or queries behind the value
  double positives = 0;        // fp_rate: false positives counted
};

struct LocalBloomBenchOptions {
  double bits_per_key = 10.0;
  size_t keys_per_filter = 10000;
  size_t build_filters = 100;                   // filters timed for "build"
  uint64_t random_footprint = uint64_t{200} << 20;  // bytes of filters for "random"
  size_t queries = size_t{1} << 22;             // per timed repetition
  int reps = 5;
  std::vector<double> fp_bits{6, 8, 10, 12, 16, 24, 50};
  size_t fp_filters = 50;
  double fp_queries = 2e8;  // upper bound of outside queries per bits/key setting
  std::function<void(const std::string&)> progress;
};

// pqfast rows: every SIMD implementation this CPU supports.
std::vector<LocalBloomRow> run_local_bloom_bench(const LocalBloomBenchOptions& options);

// ---- shared by pqfast and the peer drivers ---------------------------------

inline constexpr size_t kBenchKeyBytes = 24;

inline uint64_t bench_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Key `id` as 24 bytes: the id and two words derived from it. Inside keys of
// filter f are ids (f << 32) | i; outside keys have bit 63 set.
inline void bench_key(uint64_t id, uint8_t* out) {
  const uint64_t a = bench_mix(id), b = bench_mix(id ^ 0x5555);
  std::memcpy(out, &id, 8);
  std::memcpy(out + 8, &a, 8);
  std::memcpy(out + 16, &b, 8);
}
inline uint64_t inside_id(uint64_t filter, uint64_t i) { return (filter << 32) | i; }
inline uint64_t outside_id(uint64_t q) { return (uint64_t{1} << 63) | q; }

inline std::vector<uint8_t> bench_keys(size_t n, const std::function<uint64_t(size_t)>& id_of) {
  std::vector<uint8_t> keys(n * kBenchKeyBytes);
  for (size_t i = 0; i < n; ++i) bench_key(id_of(i), keys.data() + i * kBenchKeyBytes);
  return keys;
}

// Median of a few values (noise on a shared machine is high).
inline double bench_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

// The fixture every implementation is timed on (key ids only; bytes are
// generated outside the timed loops).
struct LocalBloomQueries {
  std::vector<uint8_t> build_keys;   // build_filters * keys_per_filter keys
  std::vector<uint8_t> inside;       // `queries` keys inserted in filter 0
  std::vector<uint8_t> outside;      // `queries` keys never inserted
  std::vector<uint8_t> mixed;        // alternating inside / outside
  std::vector<uint8_t> random_keys;  // `queries` keys, half inserted in their filter
  std::vector<uint32_t> random_filter;  // the filter each random query goes to
  size_t random_filters = 0;
};

LocalBloomQueries make_local_bloom_queries(const LocalBloomBenchOptions& o);

// Times one implementation. Impl provides
//   using Filter = ...;
//   Filter build(const uint8_t* keys24, size_t n, double bits_per_key);
//   static bool check(const Filter&, const uint8_t* key24);           // one query
//   void check_batch(const Filter&, const uint8_t* keys24, size_t n, uint8_t* out);
//   void check_random_batch(const std::vector<Filter>&, const uint32_t* filter,
//                           const uint8_t* keys24, size_t n, uint8_t* out);  // optional
//   void rebind(std::vector<Filter>&);  // before timing the random set
//   static constexpr bool kHasRandomBatch;
// and its name. Rows are appended to `rows`.
template <class Impl>
void time_local_bloom(Impl& impl, const std::string& name, const LocalBloomBenchOptions& o,
                      const LocalBloomQueries& q, std::vector<typename Impl::Filter>& random_set,
                      std::vector<LocalBloomRow>& rows) {
  using Filter = typename Impl::Filter;
  const double bpk = o.bits_per_key;
  auto add = [&](const char* metric, const char* mode, double ns, double ops) {
    rows.push_back(LocalBloomRow{metric, mode, name, bpk, ns, "ns", ops, 0});
  };
  auto note = [&](const std::string& what) {
    if (o.progress) o.progress(name + ": " + what);
  };

  note("build");
  {
    const size_t k = o.keys_per_filter;
    const double keys = static_cast<double>(o.build_filters * k);
    std::vector<Filter> built;
    built.reserve(o.build_filters);
    add("build", "", best_ns_per_op(o.reps, keys, [&] {
          built.clear();
          for (size_t f = 0; f < o.build_filters; ++f) {
            built.push_back(impl.build(q.build_keys.data() + f * k * kBenchKeyBytes, k, bpk));
          }
        }), keys);
  }

  note("single filter");
  const Filter one = impl.build(q.build_keys.data(), o.keys_per_filter, bpk);
  const size_t n = q.inside.size() / kBenchKeyBytes;
  const double nq = static_cast<double>(n);
  for (auto [mode, keys] : {std::pair<const char*, const std::vector<uint8_t>*>{"inside", &q.inside},
                            {"outside", &q.outside},
                            {"mixed", &q.mixed}}) {
    add("single", mode, best_ns_per_op(o.reps, nq, [&] {
          // Locals, so the loop reloads nothing through the closure after
          // each (opaque) query call: the harness costs both sides the same.
          const uint8_t* const base = keys->data();
          const size_t count = n;
          const Filter& filter = one;
          uint64_t hits = 0;
          for (size_t i = 0; i < count; ++i) hits += Impl::check(filter, base + i * kBenchKeyBytes);
          keep(hits);
        }), nq);
  }
  std::vector<uint8_t> out(n);
  add("batched", "mixed", best_ns_per_op(o.reps, nq, [&] {
        impl.check_batch(one, q.mixed.data(), n, out.data());
        keep(out[n / 2]);
      }), nq);

  if (!random_set.empty()) {
    note("random filter");
    impl.rebind(random_set);
    const size_t rn = q.random_keys.size() / kBenchKeyBytes;
    const double rq = static_cast<double>(rn);
    add("random", "single", best_ns_per_op(o.reps, rq, [&] {
          const Filter* const set = random_set.data();
          const uint32_t* const which = q.random_filter.data();
          const uint8_t* const base = q.random_keys.data();
          const size_t count = rn;
          uint64_t hits = 0;
          for (size_t i = 0; i < count; ++i) hits += Impl::check(set[which[i]], base + i * kBenchKeyBytes);
          keep(hits);
        }), rq);
    if constexpr (Impl::kHasRandomBatch) {
      std::vector<uint8_t> rout(rn);
      add("random", "batched", best_ns_per_op(o.reps, rq, [&] {
            impl.check_random_batch(random_set, q.random_filter.data(), q.random_keys.data(), rn,
                                    rout.data());
            keep(rout[rn / 2]);
          }), rq);
    }
  }
}

// Builds the ~random_footprint set of filters for "random" (keys generated
// per filter, untimed).
template <class Impl>
std::vector<typename Impl::Filter> build_random_set(Impl& impl, const LocalBloomBenchOptions& o,
                                                    size_t num_filters) {
  std::vector<typename Impl::Filter> set;
  set.reserve(num_filters);
  std::vector<uint8_t> keys(o.keys_per_filter * kBenchKeyBytes);
  for (size_t f = 0; f < num_filters; ++f) {
    for (size_t i = 0; i < o.keys_per_filter; ++i) {
      bench_key(inside_id(f + 1000, i), keys.data() + i * kBenchKeyBytes);
    }
    set.push_back(impl.build(keys.data(), o.keys_per_filter, o.bits_per_key));
  }
  return set;
}

// The probe count RocksDB used when it published its FP table (PR #6007,
// 2019: int(0.69 * bits/key)); RocksDB 6.x+ chooses fewer at >= 16 bits/key.
inline int pr6007_num_probes(double bits_per_key) {
  const int p = static_cast<int>(bits_per_key * 0.69);
  return p < 1 ? 1 : (p > 30 ? 30 : p);
}

// FP rate at each bits/key: fp_filters filters of keys_per_filter keys, and
// outside keys spread over them; the query count aims at ~20k false
// positives, capped by fp_queries. `scale` shrinks it (slow peers). Mode
// "rocksdb_probes" is RocksDB 7.8's num_probes choice (what build() does);
// with `pr6007` also rows with the 2019 probe counts ("pr6007_probes"),
// for Impls that have build_with_probes().
template <class Impl>
void measure_fp_rates(Impl& impl, const std::string& name, const LocalBloomBenchOptions& o,
                      double scale, std::vector<LocalBloomRow>& rows, bool pr6007 = false) {
  // Roughly RocksDB's published rates (a fit), to size the sample.
  auto expected = [](double b) { return 0.6 * std::exp(-0.38 * b) + 3e-7; };
  std::vector<uint8_t> keys(o.keys_per_filter * kBenchKeyBytes);
  for (int variant = 0; variant < (pr6007 ? 2 : 1); ++variant)
  for (double b : o.fp_bits) {
    if constexpr (requires { impl.num_probes_for(1.0); }) {
      if (variant == 1 && impl.num_probes_for(b) == pr6007_num_probes(b)) continue;  // same filter
    }
    if (o.progress) o.progress(name + ": FP rate at " + std::to_string(static_cast<int>(b)) + " bits/key");
    std::vector<typename Impl::Filter> filters;
    for (size_t f = 0; f < o.fp_filters; ++f) {
      for (size_t i = 0; i < o.keys_per_filter; ++i) {
        bench_key(inside_id(f + 5000, i), keys.data() + i * kBenchKeyBytes);
      }
      if constexpr (requires { impl.build_with_probes(keys.data(), size_t{1}, 1.0, 1); }) {
        if (variant == 1) {
          filters.push_back(impl.build_with_probes(keys.data(), o.keys_per_filter, b, pr6007_num_probes(b)));
          continue;
        }
      }
      filters.push_back(impl.build(keys.data(), o.keys_per_filter, b));
    }
    const double want = std::min(o.fp_queries, std::max(1e6, 2e4 / expected(b))) * scale;
    const size_t per_filter = static_cast<size_t>(want / static_cast<double>(o.fp_filters)) + 1;
    constexpr size_t kChunk = 4096;
    std::vector<uint8_t> chunk(kChunk * kBenchKeyBytes), out(kChunk);
    uint64_t positives = 0, total = 0, next = 0;
    for (size_t f = 0; f < filters.size(); ++f) {
      for (size_t done = 0; done < per_filter; done += kChunk) {
        const size_t m = std::min(kChunk, per_filter - done);
        for (size_t i = 0; i < m; ++i) bench_key(outside_id(next++), chunk.data() + i * kBenchKeyBytes);
        impl.check_batch(filters[f], chunk.data(), m, out.data());
        for (size_t i = 0; i < m; ++i) positives += out[i];
        total += m;
      }
    }
    rows.push_back(LocalBloomRow{"fp_rate", variant == 0 ? "rocksdb_probes" : "pr6007_probes", name, b,
                                 100.0 * static_cast<double>(positives) / static_cast<double>(total),
                                 "%", static_cast<double>(total), static_cast<double>(positives)});
  }
}

// ---- pqfast as a timed implementation (also used by the peer drivers) ----

inline constexpr size_t kBenchHashChunk = 1024;  // keys hashed per step of a batched call

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
    uint64_t hashes[kBenchHashChunk];
    for (size_t i = 0; i < n; i += kBenchHashChunk) {
      const size_t m = std::min(kBenchHashChunk, n - i);
      for (size_t j = 0; j < m; ++j) {
        hashes[j] = rocksdb_hash64(keys + (i + j) * kBenchKeyBytes, kBenchKeyBytes);
      }
      local_bloom_check_many(refs.data(), filter + i, hashes, m, out + i);
    }
  }
};

}  // namespace pqfast::bench
