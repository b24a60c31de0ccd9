// AVX-512 levels: 64 levels per compare straight into a mask register.
#include <immintrin.h>

#include "levels/kernels.h"
#include "levels/word_kernels.h"

namespace pqfast::levels {

namespace {

void ge_mask(const uint8_t* levels, size_t n, uint8_t threshold, uint64_t* out) {
  const __m512i t = _mm512_set1_epi8(static_cast<char>(threshold));
  size_t i = 0, w = 0;
  for (; i + 64 <= n; i += 64, ++w) {
    out[w] = _mm512_cmpge_epu8_mask(_mm512_loadu_si512(levels + i), t);  // levels[i..i+64) >= t
  }
  if (i < n) {
    const __mmask64 live = _bzhi_u64(~uint64_t{0}, static_cast<unsigned>(n - i));
    out[w] = _mm512_mask_cmpge_epu8_mask(live, _mm512_maskz_loadu_epi8(live, levels + i), t);
  }
}

uint8_t max_level(const uint8_t* levels, size_t n) {
  __m512i m = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) m = _mm512_max_epu8(m, _mm512_loadu_si512(levels + i));
  if (i < n) {
    const __mmask64 live = _bzhi_u64(~uint64_t{0}, static_cast<unsigned>(n - i));
    m = _mm512_max_epu8(m, _mm512_maskz_loadu_epi8(live, levels + i));
  }
  alignas(64) uint8_t lanes[64];
  _mm512_store_si512(lanes, m);
  uint8_t r = 0;
  for (uint8_t v : lanes) r = v > r ? v : r;
  return r;
}

}  // namespace

const LevelKernels kAvx512LevelKernels = {ge_mask, max_level, compress_pext, count_words, offsets_of};

}  // namespace pqfast::levels
