// local_bloom kernels for AVX2: eight probes per step. The eight probe
// hashes are seed * g^0..g^7 (one vpmulld); each one's top 4 bits pick a
// 32-bit word of the line and the next 5 a bit of it. The line sits in two
// registers: vpermd fetches the addressed word from each half and the top
// address bit blends the two, so the test is one vptest, branch-free for up
// to 8 probes (9..16 take a second step, and so on).
#include <immintrin.h>

#include "local_bloom/kernels.h"

namespace pqfast::local_bloom {
namespace {

inline bool check_in_line(const uint8_t* line, int num_probes, uint32_t seed) {
  const __m256i powers = _mm256_setr_epi32(
      static_cast<int>(probe_power(0)), static_cast<int>(probe_power(1)),
      static_cast<int>(probe_power(2)), static_cast<int>(probe_power(3)),
      static_cast<int>(probe_power(4)), static_cast<int>(probe_power(5)),
      static_cast<int>(probe_power(6)), static_cast<int>(probe_power(7)));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  int remaining = num_probes;
  for (;;) {
    const __m256i h = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(seed)), powers);
    const __m256i word = _mm256_srli_epi32(h, 28);
    const __m256i from_lo = _mm256_permutevar8x32_epi32(lo, word);
    const __m256i from_hi = _mm256_permutevar8x32_epi32(hi, word);
    const __m256i value = _mm256_blendv_epi8(from_lo, from_hi, _mm256_srai_epi32(h, 31));
    const __m256i bit = _mm256_srli_epi32(_mm256_slli_epi32(h, 4), 27);
    // Lanes at or beyond the remaining probe count test nothing.
    const __m256i active = _mm256_cmpgt_epi32(_mm256_set1_epi32(remaining), lane);
    const __m256i mask = _mm256_and_si256(_mm256_sllv_epi32(_mm256_set1_epi32(1), bit), active);
    const bool all_set = _mm256_testc_si256(value, mask) != 0;  // (~value & mask) == 0
    if (remaining <= 8) return all_set;
    if (!all_set) return false;
    seed *= probe_power(8);
    remaining -= 8;
  }
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

const LocalBloomKernels kAvx2LocalBloomKernels = {
    check_hash, check_hashes, insert_hashes, check_key_with<check_hash>,
    check_keys_with<check_hashes>, check_many};

}  // namespace pqfast::local_bloom
