// AVX-512 levels: 64 levels per compare straight into a mask register.
#include <immintrin.h>

#include <climits>

#include "levels/kernels.h"
#include "levels/or_bits.h"

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

// BMI2's pext gathers the selected bits in one instruction.
int64_t compress_bits(const uint64_t* bits, const uint64_t* select, size_t words, uint8_t* dst, int64_t dst_pos) {
  const int64_t start = dst_pos;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t s = select[w];
    const int k = static_cast<int>(_mm_popcnt_u64(s));
    or_bits(dst, dst_pos, _pext_u64(bits[w], s), k);
    dst_pos += k;
  }
  return dst_pos - start;
}


int64_t count_bits(const uint64_t* words, size_t n) {
  int64_t c = 0;
  for (size_t i = 0; i < n; ++i) c += static_cast<int64_t>(_mm_popcnt_u64(words[i]));
  return c;
}

int64_t list_offsets(const uint64_t* slots, const uint64_t* child, size_t words, int32_t* out) {
  int64_t base = 0;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t c = child[w];
    for (uint64_t s = slots[w]; s; s &= s - 1) {
      // offset = child slots before this slot's entry
      *out++ = static_cast<int32_t>(base + static_cast<int64_t>(_mm_popcnt_u64(c & ((uint64_t{1} << _tzcnt_u64(s)) - 1))));
    }
    base += static_cast<int64_t>(_mm_popcnt_u64(c));
    if (base > INT32_MAX) return -1;
  }
  *out = static_cast<int32_t>(base);
  return base;
}

}  // namespace

const LevelKernels kAvx512LevelKernels = {ge_mask, max_level, compress_bits, count_bits, list_offsets};

}  // namespace pqfast::levels
