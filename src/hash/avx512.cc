// XXH64 of fixed-width values with AVX-512 (F, DQ, VL): eight lanes of
// 64-bit multiplies (vpmullq) and rotates (vprolq); tails use masked loads.
#include "hash/kernels.h"
#include "hash/xxh64_avx512.h"

namespace pqfast::hash {
namespace {

inline __mmask8 first_lanes(size_t k) { return static_cast<__mmask8>((1u << k) - 1u); }

void fixed8(const uint8_t* values, size_t n, uint64_t* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i a = _mm512_loadu_si512(values + 8 * i);
    const __m512i b = _mm512_loadu_si512(values + 8 * i + 64);
    _mm512_storeu_si512(out + i, xxh64_fixed8_x8(a));
    _mm512_storeu_si512(out + i + 8, xxh64_fixed8_x8(b));
  }
  for (; i < n; i += 8) {
    const __mmask8 m = first_lanes(n - i < 8 ? n - i : 8);
    const __m512i a = _mm512_maskz_loadu_epi64(m, values + 8 * i);
    _mm512_mask_storeu_epi64(out + i, m, xxh64_fixed8_x8(a));
  }
}

void fixed4(const uint8_t* values, size_t n, uint64_t* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i ab = _mm512_loadu_si512(values + 4 * i);
    _mm512_storeu_si512(out + i, xxh64_fixed4_x8(_mm512_castsi512_si256(ab)));
    _mm512_storeu_si512(out + i + 8, xxh64_fixed4_x8(_mm512_extracti64x4_epi64(ab, 1)));
  }
  for (; i < n; i += 8) {
    const __mmask8 m = first_lanes(n - i < 8 ? n - i : 8);
    const __m256i a = _mm256_maskz_loadu_epi32(m, values + 4 * i);
    _mm512_mask_storeu_epi64(out + i, m, xxh64_fixed4_x8(a));
  }
}

void fixed_width(const uint8_t* values, size_t width, size_t n, uint64_t* out) {
  size_t i = 0;
  if (width >= 4 && width <= kMaxSimdWidth) {
    const __m512i step = _mm512_set1_epi64(static_cast<long long>(8 * width));
    __m512i offsets = _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                         _mm512_set1_epi64(static_cast<long long>(width)));
    for (; i + 8 <= n; i += 8) {
      _mm512_storeu_si512(out + i, xxh64_width_x8(values, offsets, width));
      offsets = _mm512_add_epi64(offsets, step);
    }
  }
  for (; i < n; ++i) out[i] = xxh64_scalar(values + i * width, width, 0);
}

}  // namespace

const HashKernels kAvx512HashKernels = {fixed4, fixed8, fixed_width};

}  // namespace pqfast::hash
