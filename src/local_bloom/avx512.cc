// local_bloom kernels for AVX-512: the whole 64-byte line is one register and
// sixteen probes one step. The probe hashes are seed * g^0..g^15 (one
// vpmulld); vpermd by each hash's top 4 bits fetches the addressed word, a
// variable shift builds each probe's bit, and one masked vptestnm answers.
// Up to 16 probes (every setting RocksDB chooses below 32 bits/key) take a
// single branch-free step; up to 8 take it in 256-bit registers (vpermt2d
// over both halves of the line). Build ORs one 32-bit word per probe (a vector
// line mask measured slower: probes scatter into the line).
// GCC 12 flags its own _mm512_*_epi32 shift intrinsics (an intentionally
// undefined source vector) as uninitialised: a false positive.
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include "local_bloom/kernels.h"

namespace pqfast::local_bloom {
namespace {

inline __m512i probe_powers() {
  return _mm512_setr_epi32(
      static_cast<int>(probe_power(0)), static_cast<int>(probe_power(1)),
      static_cast<int>(probe_power(2)), static_cast<int>(probe_power(3)),
      static_cast<int>(probe_power(4)), static_cast<int>(probe_power(5)),
      static_cast<int>(probe_power(6)), static_cast<int>(probe_power(7)),
      static_cast<int>(probe_power(8)), static_cast<int>(probe_power(9)),
      static_cast<int>(probe_power(10)), static_cast<int>(probe_power(11)),
      static_cast<int>(probe_power(12)), static_cast<int>(probe_power(13)),
      static_cast<int>(probe_power(14)), static_cast<int>(probe_power(15)));
}

inline __mmask16 active_lanes(int remaining) {
  return remaining >= 16 ? static_cast<__mmask16>(0xffff)
                         : static_cast<__mmask16>((1u << remaining) - 1);
}

// The 16 probes from `seed` against the line: a mask of the lanes (among
// `active`) whose bit is clear.
inline __mmask16 missing_probes(__m512i line, uint32_t seed, __mmask16 active) {
  const __m512i h = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(seed)), probe_powers());
  const __m512i word = _mm512_srli_epi32(h, 28);  // vpermd uses the low 4 bits
  const __m512i value = _mm512_permutexvar_epi32(word, line);
  const __m512i mask =
      _mm512_sllv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(_mm512_slli_epi32(h, 4), 27));
  return _mm512_mask_testn_epi32_mask(active, value, mask);
}

// More than 16 probes (RocksDB chooses 17..24 above 32 bits/key): out of
// line so the common case keeps a light frame.
[[gnu::noinline]] bool check_in_line_many(const uint8_t* line, int num_probes, uint32_t seed) {
  const __m512i value_line = _mm512_loadu_si512(line);
  int remaining = num_probes;
  for (;;) {
    const __mmask16 missing = missing_probes(value_line, seed, active_lanes(remaining));
    if (remaining <= 16) return missing == 0;
    if (missing != 0) return false;
    seed *= probe_power(16);
    remaining -= 16;
  }
}

// Up to 8 probes (RocksDB's choice through 14 bits/key) in 256-bit lanes:
// vpermt2d picks each probe's word from both halves of the line at once
// (measured ~10% faster than the 512-bit step on the AMD EPYC we bench on).
inline bool check_in_line_8(const uint8_t* line, int num_probes, uint32_t seed) {
  const __m256i powers = _mm256_setr_epi32(
      static_cast<int>(probe_power(0)), static_cast<int>(probe_power(1)),
      static_cast<int>(probe_power(2)), static_cast<int>(probe_power(3)),
      static_cast<int>(probe_power(4)), static_cast<int>(probe_power(5)),
      static_cast<int>(probe_power(6)), static_cast<int>(probe_power(7)));
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  const __m256i h = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(seed)), powers);
  const __m256i value = _mm256_permutex2var_epi32(lo, _mm256_srli_epi32(h, 28), hi);
  const __m256i mask =
      _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(_mm256_slli_epi32(h, 4), 27));
  const __mmask8 active = static_cast<__mmask8>((1u << num_probes) - 1);
  return _mm256_mask_testn_epi32_mask(active, value, mask) == 0;
}

inline bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed) {
  if (num_probes <= 8) return check_in_line_8(line, num_probes, seed);
  if (num_probes > 16) return check_in_line_many(line, num_probes, seed);
  return missing_probes(_mm512_loadu_si512(line), seed, active_lanes(num_probes)) == 0;
}

inline void prefetch_line(const uint8_t* line) {
  _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T0);
  // A payload parsed in place need not be 64-byte aligned: its line may span two.
  if ((reinterpret_cast<uintptr_t>(line) & 63) != 0) {
    _mm_prefetch(reinterpret_cast<const char*>(line + 63), _MM_HINT_T0);
  }
}

bool check_hash(const uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash) {
  return check_in_line(line_of(data, num_lines, hash), num_probes, probe_seed(hash));
}

void check_hashes(const uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
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
inline void insert_hash(uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash) {
  uint32_t* line = reinterpret_cast<uint32_t*>(data + size_t{line_index(hash, num_lines)} * kLocalBloomLineBytes);
  uint32_t h = probe_seed(hash);
  for (int p = 0; p < num_probes; ++p, h *= kProbeMultiplier) {
    line[h >> 28] |= 1u << ((h >> 23) & 31);
  }
}

void insert_hashes(uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
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

inline bool check_ref(const LocalBloomRef& f, uint64_t hash) {
  return f.num_lines != 0 && check_hash(f.payload, f.num_lines, f.num_probes, hash);
}

inline void prefetch_query(const LocalBloomRef* filters, const uint32_t* filter_index,
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

void check_many(const LocalBloomRef* filters, const uint32_t* filter_index, const uint64_t* hashes,
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

}  // namespace

const LocalBloomKernels kAvx512LocalBloomKernels = {
    check_hash, check_hashes, insert_hashes, check_key_with<check_hash>,
    check_keys_with<check_hashes>, check_many};

}  // namespace pqfast::local_bloom
