// SBBF kernels for AArch64 Advanced SIMD: a block is two 128-bit halves;
// NEON's per-lane variable shift builds the eight masks directly.
#include <arm_neon.h>

#include "hash/xxh64_scalar.h"
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

struct Test {
  uint8_t operator()(const uint32_t* block, uint32_t key) const { return check_block(block, key); }
};

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return check_block(block_ptr(words, num_blocks, hash), block_key(hash));
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

// Value -> verdict: scalar XXH64 (NEON has no 64-bit lane multiply), then
// the NEON probe through the value pipeline.
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

const SbbfKernels kNeonSbbfKernels = {check_hash,    insert_hash,  check_hashes,
                                      insert_hashes, check_product, check_gather,
                                      check_fixed4,  check_fixed8};

}  // namespace pqfast::sbbf
