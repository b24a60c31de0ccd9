// AVX2: a group of 8 values is two 128-bit halves (values 0-3 from the
// group's first byte, 4-7 from the byte value 4 starts in); one vpshufb puts
// each value's 4-byte window in its 32-bit lane, vpsrlvd shifts it down and
// a mask keeps the width. Widths 26..32 (a window would need a fifth byte)
// are left to the scalar table.
#include <immintrin.h>

#include <cstring>

#include "unpack/kernels.h"
#include "unpack/pdep_bytes.h"

namespace pqfast::unpack {
namespace {

// The shuffle, shifts and mask of one width (built once per call), and the
// step that unpacks group g: unpack32 and the one-pass gather share it.
struct GroupUnpacker {
  __m256i shuf, shift, mask;
  size_t width, b4;  // b4: the byte value 4 starts in

  explicit GroupUnpacker(int w) : width(static_cast<size_t>(w)), b4(static_cast<size_t>((4 * w) >> 3)) {
    alignas(32) uint8_t s[32];
    alignas(32) uint32_t sh[8];
    for (int i = 0; i < 8; ++i) {
      const int bit = i * w;
      const int rel = (bit >> 3) - (i < 4 ? 0 : static_cast<int>(b4));
      for (int k = 0; k < 4; ++k) s[i * 4 + k] = static_cast<uint8_t>(rel + k);
      sh[i] = static_cast<uint32_t>(bit & 7);
    }
    shuf = _mm256_load_si256(reinterpret_cast<const __m256i*>(s));
    shift = _mm256_load_si256(reinterpret_cast<const __m256i*>(sh));
    mask = _mm256_set1_epi32(static_cast<int>((1u << w) - 1));
  }
  // Whether group g's two 16-byte loads stay inside nbytes.
  bool fits(size_t g, size_t nbytes) const { return g * width + b4 + 16 <= nbytes; }
  __m256i group(const uint8_t* src, size_t g) const {
    const uint8_t* p = src + g * width;
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + b4));
    const __m256i v = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), shuf);
    return _mm256_and_si256(_mm256_srlv_epi32(v, shift), mask);
  }
};

size_t unpack32(const uint8_t* src, size_t nbytes, int width, size_t groups, uint32_t* out) {
  if (width > 25 || width < 1) return 0;
  const GroupUnpacker u(width);
  size_t g = 0;
  for (; g < groups && u.fits(g, nbytes); ++g) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + g * 8), u.group(src, g));
  }
  return g;
}

uint32_t max32(const uint32_t* v, size_t n) {
  __m256i m = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_epu32(m, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i)));
  __m128i h = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0x4e));
  h = _mm_max_epu32(h, _mm_shuffle_epi32(h, 0xb1));
  uint32_t r = static_cast<uint32_t>(_mm_cvtsi128_si32(h));
  for (; i < n; ++i) r = v[i] > r ? v[i] : r;
  return r;
}

// vpgatherdd / vpgatherdq, 8 and 4 entries a time (indices below 2^31: a
// dictionary holds at most INT32_MAX entries); the tail one by one.
void gather4(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) {
  const int* d = reinterpret_cast<const int*>(dict);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i vi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i * 4), _mm256_i32gather_epi32(d, vi, 4));
  }
  for (; i < n; ++i) std::memcpy(out + i * 4, dict + size_t{idx[i]} * 4, 4);
}

void gather8(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) {
  const long long* d = reinterpret_cast<const long long*>(dict);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i vi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i * 8), _mm256_i32gather_epi64(d, vi, 8));
  }
  for (; i < n; ++i) std::memcpy(out + i * 8, dict + size_t{idx[i]} * 8, 8);
}

// unpack32's group step, then the group's 8 indices clamped to the
// dictionary (vpminud; an index that changed sets `over`), stored to L1 and
// gathered by scalar loads, all in one pass. Scalar loads, not vpgatherdd:
// on AMD Zen 3 this loop over a page of dates took 4.5 ms per 6 million
// values with them, 5.1-7.7 with vpgatherdd (and 7.1 for the two passes
// before it); Intel's gathers are microcoded since the GDS mitigation.
template <size_t E>
size_t unpack_gather_groups(const uint8_t* src, size_t nbytes, int width, size_t groups, const uint8_t* dict,
                            uint32_t dict_size, uint8_t* out, bool* bad) {
  const GroupUnpacker u(width);
  const __m256i vlast = _mm256_set1_epi32(static_cast<int>(dict_size - 1));
  __m256i over = _mm256_setzero_si256();
  alignas(32) uint32_t idx[8];
  size_t g = 0;
  for (; g < groups && u.fits(g, nbytes); ++g) {
    const __m256i v = u.group(src, g);
    const __m256i c = _mm256_min_epu32(v, vlast);  // (unsigned: min(idx, size - 1))
    over = _mm256_or_si256(over, _mm256_xor_si256(c, v));
    _mm256_store_si256(reinterpret_cast<__m256i*>(idx), c);
    uint8_t* o = out + g * 8 * E;
    for (int k = 0; k < 8; ++k) std::memcpy(o + k * E, dict + size_t{idx[k]} * E, E);
  }
  if (!_mm256_testz_si256(over, over)) *bad = true;
  return g;
}

size_t unpack_gather(const uint8_t* src, size_t nbytes, int width, size_t groups, const uint8_t* dict,
                     uint32_t dict_size, int elem, uint8_t* out, bool* bad) {
  if (dict_size == 0 || width < 1 || width > 25) return 0;
  switch (elem) {
    case 1: return unpack_gather_groups<1>(src, nbytes, width, groups, dict, dict_size, out, bad);
    case 2: return unpack_gather_groups<2>(src, nbytes, width, groups, dict, dict_size, out, bad);
    case 4: return unpack_gather_groups<4>(src, nbytes, width, groups, dict, dict_size, out, bad);
    case 8: return unpack_gather_groups<8>(src, nbytes, width, groups, dict, dict_size, out, bad);
    case 16: return unpack_gather_groups<16>(src, nbytes, width, groups, dict, dict_size, out, bad);
    default: return 0;
  }
}

}  // namespace

size_t unpack_gather_avx2(const uint8_t* src, size_t nbytes, int width, size_t groups, const uint8_t* dict,
                          uint32_t dict_size, int elem, uint8_t* out, bool* bad) {
  return unpack_gather(src, nbytes, width, groups, dict, dict_size, elem, out, bad);
}

const UnpackKernels kAvx2UnpackKernels{unpack32, unpack8_pdep, max32, gather4, gather8, unpack_gather};

}  // namespace pqfast::unpack
