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

inline void insert_block(uint32_t* block, uint32_t key) {
  const Masks m = make_masks(key);
  vst1q_u32(block, vorrq_u32(vld1q_u32(block), m.lo));
  vst1q_u32(block + 4, vorrq_u32(vld1q_u32(block + 4), m.hi));
}

struct NeonBlock {
  static bool test(const uint32_t* block, uint32_t key) { return check_block(block, key); }
  static void insert(uint32_t* block, uint32_t key) { insert_block(block, key); }
};

}  // namespace

const SbbfKernels kNeonSbbfKernels = BlockKernels<NeonBlock>::table();

}  // namespace pqfast::sbbf
