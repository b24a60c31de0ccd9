// AVX2 + BMI2 nulls: bits spread by pdep, 64 slots per step; 8- and
// 4-byte elements by the scalar loop (AVX2 has no expand). Packing: bits
// by pext, elements a 32-byte register at a time through a permute picked
// by their bits (AVX2 has no compress either).
#include <immintrin.h>

#include <cstring>

#include "nulls/bit_window.h"
#include "nulls/kernels.h"

namespace pqfast::nulls {

namespace {

// perm.v[m]: the vpermd indices that move the elements of a 32-byte
// register whose bit is set in m to its front, in order (an 8-byte element
// is two 32-bit lanes).
template <size_t W>
struct alignas(32) PermTable {
  static constexpr int kLanes = static_cast<int>(32 / W);
  int32_t v[1 << kLanes][8];
};

template <size_t W>
constexpr PermTable<W> make_perm() {
  PermTable<W> t{};
  constexpr int per = static_cast<int>(W / 4);  // 32-bit lanes per element
  for (int m = 0; m < (1 << PermTable<W>::kLanes); ++m) {
    int k = 0;
    for (int e = 0; e < PermTable<W>::kLanes; ++e) {
      if (!((m >> e) & 1)) continue;
      for (int l = 0; l < per; ++l) t.v[m][k * per + l] = e * per + l;
      ++k;
    }
  }
  return t;
}

constexpr PermTable<8> kPerm8 = make_perm<8>();  // 16 entries, 512 bytes
constexpr PermTable<4> kPerm4 = make_perm<4>();  // 256 entries, 8 KiB

template <size_t W>
size_t compress(const uint8_t* src, uint64_t bits, int count, uint8_t* dst, const PermTable<W>& perm) {
  constexpr int L = PermTable<W>::kLanes;
  size_t at = 0;
  int j = 0;
  for (; j + L <= count; j += L) {
    const unsigned m = static_cast<unsigned>(bits >> j) & ((1u << L) - 1);
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + static_cast<size_t>(j) * W));
    const __m256i p = _mm256_load_si256(reinterpret_cast<const __m256i*>(perm.v[m]));
    // All 32 bytes stored: the next store starts where the kept ones end.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + at * W), _mm256_permutevar8x32_epi32(x, p));
    at += static_cast<size_t>(_mm_popcnt_u32(m));
  }
  for (; j < count; ++j) {
    std::memcpy(dst + at * W, src + static_cast<size_t>(j) * W, W);
    at += static_cast<size_t>((bits >> j) & 1);
  }
  return at;
}

}  // namespace

uint64_t extract_bits_pext(uint64_t v, uint64_t mask) { return _pext_u64(v, mask); }

size_t compress8_avx2(const uint8_t* src, uint64_t bits, int count, uint8_t* dst) {
  return compress<8>(src, bits, count, dst, kPerm8);
}

size_t compress4_avx2(const uint8_t* src, uint64_t bits, int count, uint8_t* dst) {
  return compress<4>(src, bits, count, dst, kPerm4);
}

const NullKernels kAvx2NullKernels = {spread8_scalar,    spread4_scalar, spread_bits_pdep,
                                      extract_bits_pext, compress8_avx2, compress4_avx2};

}  // namespace pqfast::nulls
