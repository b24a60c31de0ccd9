// Internal: XXH64 of fixed-width values, eight per 512-bit register, for
// AVX-512 translation units only (AVX512F + DQ: vpmullq, vprolq). Each lane
// follows xxh64_scalar() step for step, so results are bit-identical.
#pragma once

#include <immintrin.h>

#include "hash/xxh64_scalar.h"

namespace pqfast::hash {
namespace {  // internal linkage: every includer is an AVX-512 unit

inline __m512i x8_mul(__m512i a, uint64_t c) {
  return _mm512_mullo_epi64(a, _mm512_set1_epi64(static_cast<long long>(c)));
}
inline __m512i x8_add(__m512i a, uint64_t c) {
  return _mm512_add_epi64(a, _mm512_set1_epi64(static_cast<long long>(c)));
}

inline __m512i x8_avalanche(__m512i h) {
  h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 33));
  h = x8_mul(h, kPrime2);
  h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 29));
  h = x8_mul(h, kPrime3);
  return _mm512_xor_si512(h, _mm512_srli_epi64(h, 32));
}

// h ^= round(0, lane); h = rotl(h, 27) * P1 + P4
inline __m512i x8_step8(__m512i h, __m512i lane) {
  const __m512i k = x8_mul(_mm512_rol_epi64(x8_mul(lane, kPrime2), 31), kPrime1);
  return x8_add(x8_mul(_mm512_rol_epi64(_mm512_xor_si512(h, k), 27), kPrime1), kPrime4);
}

// h ^= lane32 * P1; h = rotl(h, 23) * P2 + P3   (lane32 zero-extended)
inline __m512i x8_step4(__m512i h, __m512i lane32) {
  h = _mm512_xor_si512(h, x8_mul(lane32, kPrime1));
  return x8_add(x8_mul(_mm512_rol_epi64(h, 23), kPrime2), kPrime3);
}

// h ^= byte * P5; h = rotl(h, 11) * P1
inline __m512i x8_step1(__m512i h, __m512i byte) {
  h = _mm512_xor_si512(h, x8_mul(byte, kPrime5));
  return x8_mul(_mm512_rol_epi64(h, 11), kPrime1);
}

// Eight 8-byte values.
inline __m512i xxh64_fixed8_x8(__m512i v) {
  return x8_avalanche(x8_step8(_mm512_set1_epi64(static_cast<long long>(kPrime5 + 8)), v));
}

// Eight 4-byte values.
inline __m512i xxh64_fixed4_x8(__m256i v) {
  return x8_avalanche(
      x8_step4(_mm512_set1_epi64(static_cast<long long>(kPrime5 + 4)), _mm512_cvtepu32_epi64(v)));
}

// Eight values of `width` bytes (4 <= width <= 31) at base + offsets[lane]:
// gathers read only bytes inside each value (trailing bytes come from the
// dword that ends at them).
inline __m512i xxh64_width_x8(const uint8_t* base, __m512i offsets, size_t width) {
  __m512i h = _mm512_set1_epi64(static_cast<long long>(kPrime5 + width));
  size_t p = 0;
  for (; p + 8 <= width; p += 8) {
    const __m512i at = x8_add(offsets, p);
    h = x8_step8(h, _mm512_i64gather_epi64(at, base, 1));
  }
  if (p + 4 <= width) {
    const __m512i at = x8_add(offsets, p);
    h = x8_step4(h, _mm512_cvtepu32_epi64(_mm512_i64gather_epi32(at, base, 1)));
    p += 4;
  }
  for (; p < width; ++p) {
    const __m512i at = x8_add(offsets, p - 3);  // p >= 4: stays inside the value
    const __m512i dw = _mm512_cvtepu32_epi64(_mm512_i64gather_epi32(at, base, 1));
    h = x8_step1(h, _mm512_srli_epi64(dw, 24));
  }
  return x8_avalanche(h);
}

}  // namespace
}  // namespace pqfast::hash
