// XXH64 of fixed-width values with AVX2: four lanes, 64-bit multiplies
// emulated with vpmuludq (see xxh64_avx2.h); two registers per step for ILP.
#include "hash/kernels.h"
#include "hash/xxh64_avx2.h"

namespace pqfast::hash {
namespace {

void fixed8(const uint8_t* values, size_t n, uint64_t* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + 8 * i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + 8 * i + 32));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), xxh64_fixed8_x4(a));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 4), xxh64_fixed8_x4(b));
  }
  for (; i < n; ++i) out[i] = xxh64_fixed8_scalar(load_u64_le(values + 8 * i));
}

void fixed4(const uint8_t* values, size_t n, uint64_t* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i ab = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + 4 * i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        xxh64_fixed4_x4(_mm256_castsi256_si128(ab)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 4),
                        xxh64_fixed4_x4(_mm256_extracti128_si256(ab, 1)));
  }
  for (; i < n; ++i) out[i] = xxh64_fixed4_scalar(load_u32_le(values + 4 * i));
}

void fixed_width(const uint8_t* values, size_t width, size_t n, uint64_t* out) {
  size_t i = 0;
  if (width >= 4 && width <= kMaxSimdWidth) {
    const long long w = static_cast<long long>(width);
    const __m256i step = _mm256_set1_epi64x(4 * w);
    __m256i offsets = _mm256_setr_epi64x(0, w, 2 * w, 3 * w);
    for (; i + 4 <= n; i += 4) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), xxh64_width_x4(values, offsets, width));
      offsets = _mm256_add_epi64(offsets, step);
    }
  }
  for (; i < n; ++i) out[i] = xxh64_scalar(values + i * width, width, 0);
}

}  // namespace

const HashKernels kAvx2HashKernels = {fixed4, fixed8, fixed_width};

}  // namespace pqfast::hash
