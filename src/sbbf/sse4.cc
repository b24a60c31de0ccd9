// SBBF kernels for SSE4.1/4.2: a block is two 128-bit halves. Hashing for the
// value -> verdict calls is the scalar XXH64 (SSE4 has no 64-bit multiply).
#include <immintrin.h>

#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

// SSE has no per-lane variable shift; 1 << s for s in 0..31 is built from the
// float 2^s (exponent s + 127). cvttps gives 0x80000000 for 2^31, which is
// exactly 1 << 31, so every lane equals the scalar mask.
inline __m128i one_shl(__m128i s) {
  const __m128i exponent = _mm_slli_epi32(_mm_add_epi32(s, _mm_set1_epi32(127)), 23);
  return _mm_cvttps_epi32(_mm_castsi128_ps(exponent));
}

struct Masks {
  __m128i lo, hi;
};

inline Masks make_masks(uint32_t key) {
  const __m128i k = _mm_set1_epi32(static_cast<int>(key));
  const __m128i salt_lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSbbfSalt));
  const __m128i salt_hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSbbfSalt + 4));
  // mask[i] = 1 << ((key * SALT[i]) >> 27)
  return {one_shl(_mm_srli_epi32(_mm_mullo_epi32(k, salt_lo), 27)),
          one_shl(_mm_srli_epi32(_mm_mullo_epi32(k, salt_hi), 27))};
}

inline bool test_block(const uint32_t* block, uint32_t key) {
  const Masks m = make_masks(key);
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 4));
  // testc: (~block & mask) == 0, i.e. every mask bit is set
  return _mm_testc_si128(lo, m.lo) & _mm_testc_si128(hi, m.hi);
}

inline void insert_block(uint32_t* block, uint32_t key) {
  const Masks m = make_masks(key);
  __m128i* lo = reinterpret_cast<__m128i*>(block);
  __m128i* hi = reinterpret_cast<__m128i*>(block + 4);
  _mm_storeu_si128(lo, _mm_or_si128(_mm_loadu_si128(lo), m.lo));
  _mm_storeu_si128(hi, _mm_or_si128(_mm_loadu_si128(hi), m.hi));
}

struct Sse4Block {
  static bool test(const uint32_t* block, uint32_t key) { return test_block(block, key); }
  static void insert(uint32_t* block, uint32_t key) { insert_block(block, key); }
};

}  // namespace

const SbbfKernels kSse4SbbfKernels = BlockKernels<Sse4Block>::table();

}  // namespace pqfast::sbbf
