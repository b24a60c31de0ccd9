// Internal: the local_bloom kernels shared by the x86 SIMD units (AVX2,
// AVX-512), which differ only in how one cache line is tested. Include it
// from an ISA translation unit after defining the line test; everything here
// has internal linkage.
#pragma once

#include <immintrin.h>

#include "local_bloom/kernels.h"

namespace pqfast::local_bloom {
namespace {

// LineTest provides
//   static bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed);
template <class LineTest>
struct X86LineKernels {
  static void prefetch_line(const uint8_t* line) {
    _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T0);
    // A payload parsed in place need not be 64-byte aligned: its line may span two.
    if ((reinterpret_cast<uintptr_t>(line) & 63) != 0) {
      _mm_prefetch(reinterpret_cast<const char*>(line + 63), _MM_HINT_T0);
    }
  }

  static bool check_hash(const uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash) {
    return LineTest::check_in_line(line_of(data, num_lines, hash), num_probes, probe_seed(hash));
  }

  static void check_hashes(const uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
                    size_t n, uint8_t* out) {
    size_t i = 0;
    const bool prefetch = num_lines > kPrefetchMinLines;
    const size_t prefetched_end = prefetch && n > kPrefetchDistance ? n - kPrefetchDistance : 0;
    for (; i < prefetched_end; ++i) {
      prefetch_line(line_of(data, num_lines, hashes[i + kPrefetchDistance]));
      out[i] = check_hash(data, num_lines, num_probes, hashes[i]);
    }
    for (; i < n; ++i) out[i] = check_hash(data, num_lines, num_probes, hashes[i]);
  }

  // Word-level OR: bit b of the 512-bit line is bit b & 31 of 32-bit word
  // b >> 5 on a little-endian host, so each probe is one shift and one OR.
  static void insert_hash(uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash) {
    uint32_t* line = reinterpret_cast<uint32_t*>(data + size_t{line_index(hash, num_lines)} * kLocalBloomLineBytes);
    uint32_t h = probe_seed(hash);
    for (int p = 0; p < num_probes; ++p, h *= kProbeMultiplier) {
      line[h >> 28] |= 1u << ((h >> 23) & 31);
    }
  }

  static void insert_hashes(uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
                     size_t n) {
    size_t i = 0;
    // Filters that fit in L2 gain nothing from prefetching (measured).
    const bool prefetch = num_lines > kPrefetchMinLines;
    const size_t prefetched_end = prefetch && n > kPrefetchDistance ? n - kPrefetchDistance : 0;
    for (; i < prefetched_end; ++i) {
      prefetch_line(line_of(data, num_lines, hashes[i + kPrefetchDistance]));
      insert_hash(data, num_lines, num_probes, hashes[i]);
    }
    for (; i < n; ++i) insert_hash(data, num_lines, num_probes, hashes[i]);
  }

  static bool check_ref(const LocalBloomRef& f, uint64_t hash) {
    return f.num_lines != 0 && check_hash(f.payload, f.num_lines, f.num_probes, hash);
  }

  static void prefetch_query(const LocalBloomRef* filters, const uint32_t* filter_index,
                             const uint64_t* hashes, size_t j) {
    const LocalBloomRef& f = filters[filter_index[j]];
    if (f.num_lines != 0) {
      // An asm prefetch: GCC 12 -O3 deleted _mm_prefetch here (checked in the
      // generated code), costing 4x on cold filters.
      const char* line = reinterpret_cast<const char*>(line_of(f.payload, f.num_lines, hashes[j]));
      asm volatile("prefetcht0 %0" : : "m"(*line));
      if ((reinterpret_cast<uintptr_t>(line) & 63) != 0) asm volatile("prefetcht0 %0" : : "m"(line[63]));
    }
  }

  static void check_many(const LocalBloomRef* filters, const uint32_t* filter_index, const uint64_t* hashes,
                  size_t n, uint8_t* out) {
    // Each query is a likely cache (and TLB) miss in another filter: keep
    // kManyPrefetchDistance lines in flight.
    const size_t ahead = n < kManyPrefetchDistance ? n : kManyPrefetchDistance;
    for (size_t j = 0; j < ahead; ++j) prefetch_query(filters, filter_index, hashes, j);
    size_t i = 0;
    for (; i + kManyPrefetchDistance < n; ++i) {
      prefetch_query(filters, filter_index, hashes, i + kManyPrefetchDistance);
      out[i] = check_ref(filters[filter_index[i]], hashes[i]);
    }
    for (; i < n; ++i) out[i] = check_ref(filters[filter_index[i]], hashes[i]);
  }

  static constexpr LocalBloomKernels table() {
    return {check_hash, check_hashes, insert_hashes, check_key_with<check_hash>,
            check_keys_with<check_hashes>, check_many};
  }
};

}  // namespace
}  // namespace pqfast::local_bloom
