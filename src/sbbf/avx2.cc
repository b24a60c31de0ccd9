// SBBF kernels for AVX2: a block is one 256-bit register, the eight salts one
// multiply, the eight masks one variable shift, the test one vptest.
#include <immintrin.h>

#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

inline __m256i make_mask(uint32_t key) {
  const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSbbfSalt));
  const __m256i prod = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(key)), salt);
  // mask[i] = 1 << ((key * SALT[i]) >> 27)
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(prod, 27));
}

inline const uint32_t* block_of(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return words + size_t{block_index(hash, num_blocks)} * 8;
}

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  const __m256i block =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block_of(words, num_blocks, hash)));
  return _mm256_testc_si256(block, make_mask(block_key(hash)));  // (~block & mask) == 0
}

void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  auto* block = reinterpret_cast<__m256i*>(words + size_t{block_index(hash, num_blocks)} * 8);
  _mm256_storeu_si256(block, _mm256_or_si256(_mm256_loadu_si256(block), make_mask(block_key(hash))));
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out) {
  size_t i = 0;
  const size_t prefetched_end = n > kPrefetchDistance ? n - kPrefetchDistance : 0;
  for (; i < prefetched_end; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(
                     block_of(words, num_blocks, hashes[i + kPrefetchDistance])),
                 _MM_HINT_T0);
    out[i] = check_hash(words, num_blocks, hashes[i]);
  }
  for (; i < n; ++i) out[i] = check_hash(words, num_blocks, hashes[i]);
}

void insert_hashes(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n) {
  size_t i = 0;
  const size_t prefetched_end = n > kPrefetchDistance ? n - kPrefetchDistance : 0;
  for (; i < prefetched_end; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(
                     block_of(words, num_blocks, hashes[i + kPrefetchDistance])),
                 _MM_HINT_T0);
    insert_hash(words, num_blocks, hashes[i]);
  }
  for (; i < n; ++i) insert_hash(words, num_blocks, hashes[i]);
}

}  // namespace

const SbbfKernels kAvx2SbbfKernels = {check_hash, insert_hash, check_hashes, insert_hashes};

}  // namespace pqfast::sbbf
