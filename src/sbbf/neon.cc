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

// A block of a view over a file's bitset need not be 4-byte aligned: load
// and store bytes (LD1/ST1 take any address) rather than through a uint32_t
// vector pointer, which GCC's vld1q_u32 dereferences as 4-byte aligned.
inline uint32x4_t load4(const uint32_t* p) { return vreinterpretq_u32_u8(vld1q_u8(reinterpret_cast<const uint8_t*>(p))); }
inline void store4(uint32_t* p, uint32x4_t v) { vst1q_u8(reinterpret_cast<uint8_t*>(p), vreinterpretq_u8_u32(v)); }

inline bool check_block(const uint32_t* block, uint32_t key) {
  const Masks m = make_masks(key);
  // A lane is missing a bit when mask & ~block is non-zero.
  const uint32x4_t miss = vorrq_u32(vbicq_u32(m.lo, load4(block)), vbicq_u32(m.hi, load4(block + 4)));
  return vmaxvq_u32(miss) == 0;
}

inline void insert_block(uint32_t* block, uint32_t key) {
  const Masks m = make_masks(key);
  store4(block, vorrq_u32(load4(block), m.lo));
  store4(block + 4, vorrq_u32(load4(block + 4), m.hi));
}

struct NeonBlock {
  static bool test(const uint32_t* block, uint32_t key) { return check_block(block, key); }
  static void insert(uint32_t* block, uint32_t key) { insert_block(block, key); }
};

}  // namespace

const SbbfKernels kNeonSbbfKernels = BlockKernels<NeonBlock>::table();

}  // namespace pqfast::sbbf
