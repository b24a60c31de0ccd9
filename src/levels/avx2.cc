// AVX2 levels: 32 levels per compare, movemask into the bitmap.
#include <immintrin.h>

#include <climits>

#include "levels/kernels.h"
#include "levels/or_bits.h"

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

const LevelKernels kAvx2LevelKernels = {ge_mask, max_level, compress_bits, count_bits, list_offsets};

}  // namespace pqfast::levels
