// SBBF kernels for AVX2: a block is one 256-bit register, the eight salts one
// multiply, the eight masks one variable shift, the test one vptest. Value ->
// verdict calls hash four values per register (xxh64_avx2.h).
#include <immintrin.h>

#include "hash/xxh64_avx2.h"
#include "sbbf/insert_x86.h"
#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

inline __m256i make_mask(uint32_t key) {
  const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSbbfSalt));
  const __m256i prod = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(key)), salt);
  // mask[i] = 1 << ((key * SALT[i]) >> 27)
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(prod, 27));
}

inline bool test_block(const uint32_t* block, uint32_t key) {
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
  return _mm256_testc_si256(b, make_mask(key));  // (~block & mask) == 0
}

inline void insert_block(uint32_t* block, uint32_t key) {
  auto* p = reinterpret_cast<__m256i*>(block);
  _mm256_storeu_si256(p, _mm256_or_si256(_mm256_loadu_si256(p), make_mask(key)));
}

struct Avx2Block {
  static bool test(const uint32_t* block, uint32_t key) { return test_block(block, key); }
  static void insert(uint32_t* block, uint32_t key) { insert_block(block, key); }
};
// The calls this ISA does not specialise come from the shared template.
using Base = BlockKernels<Avx2Block>;
using Test = Base::Test;

void hash8_chunk(const uint8_t* v, size_t m, uint64_t* h) {
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + 8 * i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + i), hash::xxh64_fixed8_x4(x));
  }
  for (; i < m; ++i) h[i] = hash::xxh64_fixed8_scalar(hash::load_u64_le(v + 8 * i));
}

void hash4_chunk(const uint8_t* v, size_t m, uint64_t* h) {
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + 4 * i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + i), hash::xxh64_fixed4_x4(x));
  }
  for (; i < m; ++i) h[i] = hash::xxh64_fixed4_scalar(hash::load_u32_le(v + 4 * i));
}

void check_fixed4(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values_pipeline(words, num_blocks, values, 4, n, out, distance, hash4_chunk, Test{});
}

void check_fixed8(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values_pipeline(words, num_blocks, values, 8, n, out, distance, hash8_chunk, Test{});
}

}  // namespace

const SbbfKernels kAvx2SbbfKernels = {Base::check_hash,     Base::insert_hash,  Base::check_hashes,
                                      insert_hashes_x86,    Base::check_product, Base::check_gather,
                                      check_fixed4,        check_fixed8};

}  // namespace pqfast::sbbf
