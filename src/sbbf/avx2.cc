// SBBF kernels for AVX2: a block is one 256-bit register, the eight salts one
// multiply, the eight masks one variable shift, the test one vptest. Value ->
// verdict calls hash four values per register (xxh64_avx2.h).
#include <immintrin.h>

#include "hash/xxh64_avx2.h"
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

struct Test {
  uint8_t operator()(const uint32_t* block, uint32_t key) const { return test_block(block, key); }
};

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return test_block(block_ptr(words, num_blocks, hash), block_key(hash));
}

void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  insert_block(words + size_t{block_index(hash, num_blocks)} * 8, block_key(hash));
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out, size_t distance) {
  check_pipeline(HashCursor{words, num_blocks, hashes}, n, out, distance, Test{});
}

void insert_hashes(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                   size_t distance) {
  insert_pipeline(words, num_blocks, hashes, n, distance,
                  [](uint32_t* block, uint32_t key) { insert_block(block, key); });
}

void check_product(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                   size_t num_hashes, uint8_t* out, size_t distance) {
  check_product_pipeline(filters, num_filters, hashes, num_hashes, out, distance, Test{});
}

void check_gather(const SbbfRef* filters, const uint32_t* ids, const uint64_t* hashes, size_t n,
                  uint8_t* out, size_t distance) {
  check_pipeline(GatherCursor{filters, ids, hashes}, n, out, distance, Test{});
}

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

const SbbfKernels kAvx2SbbfKernels = {check_hash,    insert_hash,  check_hashes,
                                      insert_hashes, check_product, check_gather,
                                      check_fixed4,  check_fixed8};

}  // namespace pqfast::sbbf
