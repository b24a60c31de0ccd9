// SBBF kernels for SSE4.1/4.2: a block is two 128-bit halves. Hashing for the
// value -> verdict calls is the scalar XXH64 (SSE4 has no 64-bit multiply).
#include <immintrin.h>

#include "hash/xxh64_scalar.h"
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

void check_fixed4(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values_pipeline(
      words, num_blocks, values, 4, n, out, distance,
      [](const uint8_t* v, size_t m, uint64_t* h) {
        for (size_t i = 0; i < m; ++i) h[i] = hash::xxh64_fixed4_scalar(hash::load_u32_le(v + 4 * i));
      },
      Test{});
}

void check_fixed8(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values_pipeline(
      words, num_blocks, values, 8, n, out, distance,
      [](const uint8_t* v, size_t m, uint64_t* h) {
        for (size_t i = 0; i < m; ++i) h[i] = hash::xxh64_fixed8_scalar(hash::load_u64_le(v + 8 * i));
      },
      Test{});
}

}  // namespace

const SbbfKernels kSse4SbbfKernels = {check_hash,    insert_hash,  check_hashes,
                                      insert_hashes, check_product, check_gather,
                                      check_fixed4,  check_fixed8};

}  // namespace pqfast::sbbf
