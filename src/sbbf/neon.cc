// SBBF kernels for AArch64 Advanced SIMD: a block is two 128-bit halves;
// NEON's per-lane variable shift builds the eight masks directly.
#include <arm_neon.h>

#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

struct Masks {
  uint32x4_t lo, hi;
};

inline Masks make_masks(uint32_t key) {
  const uint32x4_t k = vdupq_n_u32(key);
  const uint32x4_t ones = vdupq_n_u32(1);
  // mask[i] = 1 << ((key * SALT[i]) >> 27); vshlq takes signed shift counts
  const int32x4_t s_lo = vreinterpretq_s32_u32(vshrq_n_u32(vmulq_u32(k, vld1q_u32(kSbbfSalt)), 27));
  const int32x4_t s_hi = vreinterpretq_s32_u32(vshrq_n_u32(vmulq_u32(k, vld1q_u32(kSbbfSalt + 4)), 27));
  return {vshlq_u32(ones, s_lo), vshlq_u32(ones, s_hi)};
}

inline bool check_block(const uint32_t* block, uint32_t key) {
  const Masks m = make_masks(key);
  // A lane is missing a bit when mask & ~block is non-zero.
  const uint32x4_t miss = vorrq_u32(vbicq_u32(m.lo, vld1q_u32(block)), vbicq_u32(m.hi, vld1q_u32(block + 4)));
  return vmaxvq_u32(miss) == 0;
}

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return check_block(words + size_t{block_index(hash, num_blocks)} * 8, block_key(hash));
}

void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  uint32_t* block = words + size_t{block_index(hash, num_blocks)} * 8;
  const Masks m = make_masks(block_key(hash));
  vst1q_u32(block, vorrq_u32(vld1q_u32(block), m.lo));
  vst1q_u32(block + 4, vorrq_u32(vld1q_u32(block + 4), m.hi));
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) {
      __builtin_prefetch(words + size_t{block_index(hashes[i + kPrefetchDistance], num_blocks)} * 8);
    }
    out[i] = check_hash(words, num_blocks, hashes[i]) ? 1 : 0;
  }
}

void insert_hashes(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) {
      __builtin_prefetch(words + size_t{block_index(hashes[i + kPrefetchDistance], num_blocks)} * 8, 1);
    }
    insert_hash(words, num_blocks, hashes[i]);
  }
}

}  // namespace

const SbbfKernels kNeonSbbfKernels = {check_hash, insert_hash, check_hashes, insert_hashes};

}  // namespace pqfast::sbbf
