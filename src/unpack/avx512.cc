// AVX-512 (VBMI): one masked 64-byte load per group (never past the input),
// one vpermb placing each value's 8-byte window in its 64-bit lane,
// vpsrlvq, a mask, and vpmovqd narrowing the 8 values to 32 bits.
#include <immintrin.h>

#include <cstring>

// GCC 12's AVX-512 headers build their unmasked forms on an "undefined"
// vector that -Wuninitialized reports inside them (as in local_bloom/ and
// delta/avx512.cc).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "unpack/kernels.h"
#include "unpack/pdep_bytes.h"

namespace pqfast::unpack {
namespace {

size_t unpack32(const uint8_t* src, size_t nbytes, int width, size_t groups, uint32_t* out) {
  if (width < 1 || width > 32) return 0;
  const int w = width;
  alignas(64) uint8_t idx[64];
  alignas(64) uint64_t shifts[8];
  for (int i = 0; i < 8; ++i) {
    const int bit = i * w;
    for (int k = 0; k < 8; ++k) idx[i * 8 + k] = static_cast<uint8_t>((bit >> 3) + k);
    shifts[i] = static_cast<uint64_t>(bit & 7);
  }
  const __m512i vidx = _mm512_load_si512(idx);
  const __m512i vshift = _mm512_load_si512(shifts);
  const __m512i vmask = _mm512_set1_epi64(static_cast<long long>((uint64_t{1} << w) - 1));
  for (size_t g = 0; g < groups; ++g) {
    const size_t base = g * static_cast<size_t>(w);
    const size_t avail = nbytes - base;  // >= w: the caller's groups lie inside the input
    const __mmask64 m = avail >= 64 ? ~__mmask64{0} : ((__mmask64{1} << avail) - 1);
    __m512i v = _mm512_maskz_loadu_epi8(m, src + base);
    v = _mm512_permutexvar_epi8(vidx, v);
    v = _mm512_and_si512(_mm512_srlv_epi64(v, vshift), vmask);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + g * 8), _mm512_cvtepi64_epi32(v));
  }
  return groups;
}

uint32_t max32(const uint32_t* v, size_t n) {
  __m512i m = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) m = _mm512_max_epu32(m, _mm512_loadu_si512(v + i));
  if (i < n) {  // the tail under a mask (lanes past n stay 0)
    const __mmask16 k = static_cast<__mmask16>((1u << (n - i)) - 1);
    m = _mm512_max_epu32(m, _mm512_maskz_loadu_epi32(k, v + i));
  }
  // Halves folded in.
  m = _mm512_max_epu32(m, _mm512_shuffle_i64x2(m, m, 0x4e));
  __m128i h = _mm_max_epu32(_mm512_castsi512_si128(m), _mm512_castsi512_si128(_mm512_shuffle_i64x2(m, m, 0xb1)));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0x4e));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(h));
}

// vpgatherdd / vpgatherdq, 16 and 8 entries a time (indices below 2^31: a
// dictionary holds at most INT32_MAX entries); the tail one by one.
void gather4(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i vi = _mm512_loadu_si512(idx + i);
    _mm512_storeu_si512(out + i * 4, _mm512_i32gather_epi32(vi, dict, 4));
  }
  for (; i < n; ++i) std::memcpy(out + i * 4, dict + size_t{idx[i]} * 4, 4);
}

void gather8(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i vi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i));
    _mm512_storeu_si512(out + i * 8, _mm512_i32gather_epi64(vi, dict, 8));
  }
  for (; i < n; ++i) std::memcpy(out + i * 8, dict + size_t{idx[i]} * 8, 8);
}

}  // namespace

const UnpackKernels kAvx512UnpackKernels{unpack32, unpack8_pdep, max32, gather4, gather8,
                                          // (AVX2's one-pass kernel: the gather is scalar loads either way)
                                          unpack_gather_avx2};

}  // namespace pqfast::unpack
