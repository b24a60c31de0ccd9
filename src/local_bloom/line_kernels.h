// Internal: the local_bloom kernels shared by the SIMD units (AVX2, AVX-512,
// NEON), which differ only in how one cache line is tested. Include it from
// an ISA translation unit after defining the line test; everything here has
// internal linkage.
#pragma once

#include <cstring>

#include "local_bloom/kernels.h"

namespace pqfast::local_bloom {
namespace {

// LineTest provides
//   static bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed);
// A read prefetch into L1 that the compiler cannot drop: GCC 12 -O3 deleted
// _mm_prefetch / __builtin_prefetch in check_many's loop (checked in the
// generated code), costing 4x on cold filters.
inline void prefetch_l1_asm(const char* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*p));
#elif defined(__aarch64__)
  asm volatile("prfm pldl1keep, [%0]" : : "r"(p));
#else
  __builtin_prefetch(p, 0, 3);
#endif
}

template <class LineTest>
struct LineKernels {
  static void prefetch_line(const uint8_t* line) {
    __builtin_prefetch(line, 0, 3);  // _mm_prefetch(_MM_HINT_T0) on x86, prfm pldl1keep on AArch64
    // A payload parsed in place need not be 64-byte aligned: its line may span two.
    if ((reinterpret_cast<uintptr_t>(line) & 63) != 0) __builtin_prefetch(line + 63, 0, 3);
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
  // b >> 5 on a little-endian host (x86, AArch64), so each probe is one
  // shift and one OR. Scattered single-bit stores: no SIMD form beats it.
  // The words go through memcpy (one plain load and store on both): the
  // payload is bytes and need not be 4-byte aligned.
  static void insert_hash(uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash) {
    uint8_t* line = data + size_t{line_index(hash, num_lines)} * kLocalBloomLineBytes;
    uint32_t h = probe_seed(hash);
    for (int p = 0; p < num_probes; ++p, h *= kProbeMultiplier) {
      uint8_t* at = line + 4 * (h >> 28);
      uint32_t word;
      std::memcpy(&word, at, sizeof word);
      word |= 1u << ((h >> 23) & 31);
      std::memcpy(at, &word, sizeof word);
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
      const char* line = reinterpret_cast<const char*>(line_of(f.payload, f.num_lines, hashes[j]));
      prefetch_l1_asm(line);
      if ((reinterpret_cast<uintptr_t>(line) & 63) != 0) prefetch_l1_asm(line + 63);
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
