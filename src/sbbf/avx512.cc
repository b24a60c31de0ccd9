// SBBF kernels for AVX-512: two blocks per 512-bit register, so a batch
// computes the masks of two keys with one multiply and tests both blocks
// with one vptestnm.
#include <immintrin.h>

#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

inline __m256i make_mask256(uint32_t key) {
  const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSbbfSalt));
  const __m256i prod = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(key)), salt);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(prod, 27));
}

inline const uint32_t* block_of(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return words + size_t{block_index(hash, num_blocks)} * 8;
}

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  const __m256i block =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block_of(words, num_blocks, hash)));
  return _mm256_testc_si256(block, make_mask256(block_key(hash)));
}

void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  auto* block = reinterpret_cast<__m256i*>(words + size_t{block_index(hash, num_blocks)} * 8);
  _mm256_storeu_si256(block,
                      _mm256_or_si256(_mm256_loadu_si256(block), make_mask256(block_key(hash))));
}

// Two probes at once: lanes 0-7 for hash a, 8-15 for hash b. Returns a 2-bit
// verdict: bit 0 for a, bit 1 for b.
inline unsigned check_pair(const uint32_t* words, uint32_t num_blocks, uint64_t a, uint64_t b) {
  const __m512i salt = _mm512_broadcast_i64x4(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSbbfSalt)));
  const __m512i keys = _mm512_inserti64x4(
      _mm512_set1_epi32(static_cast<int>(block_key(a))),
      _mm256_set1_epi32(static_cast<int>(block_key(b))), 1);
  const __m512i mask = _mm512_sllv_epi32(_mm512_set1_epi32(1),
                                         _mm512_srli_epi32(_mm512_mullo_epi32(keys, salt), 27));
  const __m512i blocks = _mm512_inserti64x4(
      _mm512_zextsi256_si512(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block_of(words, num_blocks, a)))),
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block_of(words, num_blocks, b))), 1);
  // A lane is "missing" when a mask bit is clear in the block.
  const __mmask16 missing = _mm512_test_epi32_mask(_mm512_andnot_si512(blocks, mask), mask);
  return ((missing & 0xff) == 0 ? 1u : 0u) | ((missing >> 8) == 0 ? 2u : 0u);
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out) {
  size_t i = 0;
  const size_t prefetched_end = n > kPrefetchDistance + 1 ? n - kPrefetchDistance - 1 : 0;
  for (; i < prefetched_end; i += 2) {
    _mm_prefetch(reinterpret_cast<const char*>(
                     block_of(words, num_blocks, hashes[i + kPrefetchDistance])),
                 _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(
                     block_of(words, num_blocks, hashes[i + kPrefetchDistance + 1])),
                 _MM_HINT_T0);
    const unsigned v = check_pair(words, num_blocks, hashes[i], hashes[i + 1]);
    out[i] = v & 1;
    out[i + 1] = v >> 1;
  }
  for (; i + 1 < n; i += 2) {
    const unsigned v = check_pair(words, num_blocks, hashes[i], hashes[i + 1]);
    out[i] = v & 1;
    out[i + 1] = v >> 1;
  }
  if (i < n) out[i] = check_hash(words, num_blocks, hashes[i]);
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

const SbbfKernels kAvx512SbbfKernels = {check_hash, insert_hash, check_hashes, insert_hashes};

}  // namespace pqfast::sbbf
