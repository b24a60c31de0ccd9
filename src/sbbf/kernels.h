// Internal: the SBBF family's per-ISA table and the block arithmetic every
// implementation shares.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pqfast/sbbf.h"
#include "simd/dispatch.h"

namespace pqfast::sbbf {

// Kernels take the bitset as 32-bit words (8 per block) and arrays of hashes.
struct SbbfKernels {
  bool (*check_hash)(const uint32_t* words, uint32_t num_blocks, uint64_t hash);
  void (*insert_hash)(uint32_t* words, uint32_t num_blocks, uint64_t hash);
  // out[i] = 1 when every bit of hashes[i]'s mask is set in its block, else 0.
  void (*check_hashes)(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes,
                       size_t n, uint8_t* out);
  void (*insert_hashes)(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n);
};

extern const SbbfKernels kScalarSbbfKernels;
#if defined(PQFAST_ARCH_X86)
extern const SbbfKernels kSse4SbbfKernels;
extern const SbbfKernels kAvx2SbbfKernels;
extern const SbbfKernels kAvx512SbbfKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
extern const SbbfKernels kNeonSbbfKernels;
#endif

const detail::KernelTables<SbbfKernels>& sbbf_kernel_tables();

namespace {  // internal linkage: safe to include from ISA translation units

// Lemire's fastrange of the upper 32 hash bits over num_blocks.
inline uint32_t block_index(uint64_t hash, uint32_t num_blocks) {
  return static_cast<uint32_t>(((hash >> 32) * num_blocks) >> 32);
}

inline uint32_t block_key(uint64_t hash) { return static_cast<uint32_t>(hash); }

// Blocks ahead that batched loops prefetch (a miss takes ~100 ns; a probe
// in cache a few ns, so 16-32 keeps enough lines in flight).
constexpr size_t kPrefetchDistance = 16;

}  // namespace
}  // namespace pqfast::sbbf
