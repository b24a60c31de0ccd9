// Internal: XXH64 of fixed-width values, four per 256-bit register, for AVX2
// translation units only. AVX2 has no 64-bit low multiply: a * c (mod 2^64)
// for a constant c is lo(a)*lo(c) + ((hi(a)*lo(c) + lo(a)*hi(c)) << 32),
// three vpmuludq. Each lane follows xxh64_scalar() step for step.
#pragma once

#include <immintrin.h>

#include "hash/xxh64_scalar.h"

namespace pqfast::hash {
namespace {  // internal linkage: every includer is an AVX2 (or later) unit

inline __m256i x4_mul(__m256i a, uint64_t c) {
  const __m256i c_lo = _mm256_set1_epi64x(static_cast<long long>(c & 0xffffffffu));
  const __m256i c_hi = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
  const __m256i lo = _mm256_mul_epu32(a, c_lo);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), c_lo),
                                         _mm256_mul_epu32(a, c_hi));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}
// 32-bit a (upper half zero): a * c = a*lo(c) + (a*hi(c) << 32).
inline __m256i x4_mul_u32(__m256i a, uint64_t c) {
  const __m256i c_lo = _mm256_set1_epi64x(static_cast<long long>(c & 0xffffffffu));
  const __m256i c_hi = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
  return _mm256_add_epi64(_mm256_mul_epu32(a, c_lo), _mm256_slli_epi64(_mm256_mul_epu32(a, c_hi), 32));
}
inline __m256i x4_add(__m256i a, uint64_t c) {
  return _mm256_add_epi64(a, _mm256_set1_epi64x(static_cast<long long>(c)));
}
template <int R>
inline __m256i x4_rotl(__m256i x) {
  return _mm256_or_si256(_mm256_slli_epi64(x, R), _mm256_srli_epi64(x, 64 - R));
}

inline __m256i x4_avalanche(__m256i h) {
  h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 33));
  h = x4_mul(h, kPrime2);
  h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 29));
  h = x4_mul(h, kPrime3);
  return _mm256_xor_si256(h, _mm256_srli_epi64(h, 32));
}

inline __m256i x4_step8(__m256i h, __m256i lane) {
  const __m256i k = x4_mul(x4_rotl<31>(x4_mul(lane, kPrime2)), kPrime1);
  return x4_add(x4_mul(x4_rotl<27>(_mm256_xor_si256(h, k)), kPrime1), kPrime4);
}

inline __m256i x4_step4(__m256i h, __m256i lane32) {
  h = _mm256_xor_si256(h, x4_mul_u32(lane32, kPrime1));
  return x4_add(x4_mul(x4_rotl<23>(h), kPrime2), kPrime3);
}

inline __m256i x4_step1(__m256i h, __m256i byte) {
  h = _mm256_xor_si256(h, x4_mul_u32(byte, kPrime5));
  return x4_mul(x4_rotl<11>(h), kPrime1);
}

inline __m256i xxh64_fixed8_x4(__m256i v) {
  return x4_avalanche(x4_step8(_mm256_set1_epi64x(static_cast<long long>(kPrime5 + 8)), v));
}

inline __m256i xxh64_fixed4_x4(__m128i v) {
  return x4_avalanche(
      x4_step4(_mm256_set1_epi64x(static_cast<long long>(kPrime5 + 4)), _mm256_cvtepu32_epi64(v)));
}

// Four values of `width` bytes (4 <= width <= 31) at base + offsets[lane].
inline __m256i xxh64_width_x4(const uint8_t* base, __m256i offsets, size_t width) {
  __m256i h = _mm256_set1_epi64x(static_cast<long long>(kPrime5 + width));
  const auto* b64 = reinterpret_cast<const long long*>(base);
  const auto* b32 = reinterpret_cast<const int*>(base);
  size_t p = 0;
  for (; p + 8 <= width; p += 8) {
    h = x4_step8(h, _mm256_i64gather_epi64(b64, x4_add(offsets, p), 1));
  }
  if (p + 4 <= width) {
    h = x4_step4(h, _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(b32, x4_add(offsets, p), 1)));
    p += 4;
  }
  for (; p < width; ++p) {
    const __m256i dw = _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(b32, x4_add(offsets, p - 3), 1));
    h = x4_step1(h, _mm256_srli_epi64(dw, 24));
  }
  return x4_avalanche(h);
}

}  // namespace
}  // namespace pqfast::hash
