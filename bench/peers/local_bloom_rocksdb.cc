// pqfast_peer_local_bloom: RocksDB 7.8.3's FastLocalBloom timed with the
// loops of `pqfast bench local-bloom` (bench/local_bloom_bench.h), in the
// same process as pqfast's active implementation and interleaved with it
// (--interleave rounds, median of each), so the ratios see the same machine
// load. Prints one JSON row per line; implementations "rocksdb" and
// "pqfast_<simd level>".
//
//   build    RocksDB's builder (AddKey per key, Finish), from its public
//            FilterPolicy::GetBuilderWithContext
//   single   FilterBitsReader::MayMatch(key) (what a Get does)
//   batched  FilterBitsReader::MayMatch(n, keys, out) in batches of 32
//            (MultiGet's batch size; RocksDB hashes and prefetches the batch)
//   random   MayMatch(key) on a random filter of the ~200 MB set; RocksDB's
//            readers read the very blocks pqfast built and queries (the bytes
//            are identical to RocksDB's, see tests/cpp/local_bloom_test.cc),
//            so both read the same memory
//   fp_rate  RocksDB's filters and reader
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "local_bloom_bench.h"
#include "pqfast/local_bloom.h"
#include "pqfast/simd.h"
#include "rocksdb_filter_peer.h"

namespace pqfast::bench {
namespace {

struct RocksDbImpl {
  struct Filter {
    std::string block;  // empty when the reader reads pqfast's bytes
    std::unique_ptr<rocksdb::FilterBitsReader> reader;
  };
  static constexpr bool kHasRandomBatch = false;
  std::map<double, std::unique_ptr<peer::RocksDbFilter>> policies;

  peer::RocksDbFilter& policy(double bpk) {
    auto& p = policies[bpk];
    if (!p) p = std::make_unique<peer::RocksDbFilter>(bpk);
    return *p;
  }

  Filter build(const uint8_t* keys, size_t n, double bpk) {
    peer::Keys k;
    k.data.assign(reinterpret_cast<const char*>(keys), n * kBenchKeyBytes);
    k.offsets.resize(n + 1);
    for (size_t i = 0; i <= n; ++i) k.offsets[i] = static_cast<int64_t>(i * kBenchKeyBytes);
    Filter f;
    f.block = policy(bpk).build(k);
    f.reader = policy(bpk).reader(f.block);
    return f;
  }
  void rebind(std::vector<Filter>&) {}
  static bool check(const Filter& f, const uint8_t* key) {
    return f.reader->MayMatch(rocksdb::Slice(reinterpret_cast<const char*>(key), kBenchKeyBytes));
  }
  static void check_batch(const Filter& f, const uint8_t* keys, size_t n, uint8_t* out) {
    constexpr int kBatch = 32;  // MultiGetContext::MAX_BATCH_SIZE
    rocksdb::Slice slices[kBatch];
    rocksdb::Slice* ptrs[kBatch];
    bool may[kBatch];
    for (size_t i = 0; i < n; i += kBatch) {
      const int m = static_cast<int>(std::min<size_t>(kBatch, n - i));
      for (int j = 0; j < m; ++j) {
        slices[j] = rocksdb::Slice(reinterpret_cast<const char*>(keys + (i + j) * kBenchKeyBytes),
                                   kBenchKeyBytes);
        ptrs[j] = &slices[j];
      }
      f.reader->MayMatch(m, ptrs, may);
      for (int j = 0; j < m; ++j) out[i + j] = may[j];
    }
  }
  void check_random_batch(const std::vector<Filter>&, const uint32_t*, const uint8_t*, size_t,
                          uint8_t*) {}
};

void print(const LocalBloomRow& r) {
  std::printf(
      "{\"metric\": \"%s\", \"mode\": \"%s\", \"implementation\": \"%s\", \"bits_per_key\": %g, "
      "\"value\": %.9g, \"unit\": \"%s\", \"ops\": %.17g, \"positives\": %.17g}\n",
      r.metric.c_str(), r.mode.c_str(), r.implementation.c_str(), r.bits_per_key, r.value,
      r.unit.c_str(), r.ops, r.positives);
}

}  // namespace
}  // namespace pqfast::bench

int main(int argc, char** argv) {
  using namespace pqfast::bench;
  LocalBloomBenchOptions o;
  int interleave = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const char* v = argv[i + 1];
    if (a == "--bits-per-key") o.bits_per_key = std::atof(v);
    else if (a == "--keys-per-filter") o.keys_per_filter = std::strtoull(v, nullptr, 10);
    else if (a == "--build-filters") o.build_filters = std::strtoull(v, nullptr, 10);
    else if (a == "--random-footprint") o.random_footprint = std::strtoull(v, nullptr, 10);
    else if (a == "--queries") o.queries = std::strtoull(v, nullptr, 10);
    else if (a == "--reps") o.reps = std::atoi(v);
    else if (a == "--fp-filters") o.fp_filters = std::strtoull(v, nullptr, 10);
    else if (a == "--fp-queries") o.fp_queries = std::atof(v);
    else if (a == "--interleave") interleave = std::atoi(v);
    else if (a == "--fp-bits") {
      o.fp_bits.clear();
      for (const char* p = v; *p;) {
        char* end;
        const double b = std::strtod(p, &end);
        if (end == p) break;
        o.fp_bits.push_back(b);
        p = *end == ',' ? end + 1 : end;
      }
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "options come in pairs: --name value\n");
    return 2;
  }
  const LocalBloomQueries q = make_local_bloom_queries(o);
  PqfastImpl pq(std::max(o.keys_per_filter, o.queries));
  RocksDbImpl impl;
  std::vector<PqfastFilter> pq_set;
  std::vector<RocksDbImpl::Filter> random_set;
  if (o.random_footprint > 0) {
    pq_set = build_random_set(pq, o, q.random_filters);
    auto& pol = impl.policy(o.bits_per_key);
    random_set.reserve(pq_set.size());
    for (const auto& f : pq_set) {
      RocksDbImpl::Filter rf;
      rf.reader = std::unique_ptr<rocksdb::FilterBitsReader>(
          pol.policy().GetFilterBitsReader(rocksdb::Slice(reinterpret_cast<const char*>(f.filter.block()),
                                                          f.filter.block_bytes())));
      random_set.push_back(std::move(rf));
    }
  }
  const std::string pq_name = std::string("pqfast_") + pqfast::simd_level_name(pqfast::simd_level());
  std::vector<std::vector<LocalBloomRow>> rounds;
  for (int r = 0; r < std::max(1, interleave); ++r) {
    std::vector<LocalBloomRow> rows;
    time_local_bloom(pq, pq_name, o, q, pq_set, rows);
    time_local_bloom(impl, "rocksdb", o, q, random_set, rows);
    rounds.push_back(std::move(rows));
  }
  std::vector<LocalBloomRow> rows = rounds[0];
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> v;
    for (const auto& round : rounds) v.push_back(round[i].value);
    rows[i].value = bench_median(v);
  }
  if (!o.fp_bits.empty()) measure_fp_rates(impl, "rocksdb", o, 1.0, rows);
  for (const auto& r : rows) print(r);
  return 0;
}
