// AVX2 levels: 32 levels per compare, movemask into the bitmap.
#include <immintrin.h>

#include "levels/kernels.h"
#include "levels/word_kernels.h"

namespace pqfast::levels {

namespace {

void ge_mask(const uint8_t* levels, size_t n, uint8_t threshold, uint64_t* out) {
  // levels >= t  <=>  max(levels, t) == levels (unsigned bytes).
  const __m256i t = _mm256_set1_epi8(static_cast<char>(threshold));
  size_t i = 0, w = 0;
  for (; i + 64 <= n; i += 64, ++w) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(levels + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(levels + i + 32));
    const uint32_t lo = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(a, t), a)));
    const uint32_t hi = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(b, t), b)));
    out[w] = uint64_t{lo} | uint64_t{hi} << 32;
  }
  if (i < n) {
    uint64_t bits = 0;
    for (size_t k = 0; i + k < n; ++k) bits |= uint64_t{levels[i + k] >= threshold} << k;
    out[w] = bits;
  }
}

uint8_t max_level(const uint8_t* levels, size_t n) {
  __m256i m = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) m = _mm256_max_epu8(m, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(levels + i)));
  alignas(32) uint8_t lanes[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), m);
  uint8_t r = 0;
  for (uint8_t v : lanes) r = v > r ? v : r;
  for (; i < n; ++i) r = levels[i] > r ? levels[i] : r;
  return r;
}

}  // namespace

const LevelKernels kAvx2LevelKernels = {ge_mask, max_level, compress_pext, count_words, offsets_of};

}  // namespace pqfast::levels
