// Internal: the hash family's per-ISA table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/dispatch.h"

namespace pqfast::hash {

// Every kernel reads values with unaligned loads and writes n hashes.
struct HashKernels {
  // out[i] = XXH64(values[4i .. 4i+4), seed 0)
  void (*xxh64_fixed4)(const uint8_t* values, size_t n, uint64_t* out);
  // out[i] = XXH64(values[8i .. 8i+8), seed 0)
  void (*xxh64_fixed8)(const uint8_t* values, size_t n, uint64_t* out);
  // out[i] = XXH64(values[w*i .. w*i+w), seed 0) for 1 <= width <= kMaxSimdWidth
  // (FIXED_LEN_BYTE_ARRAY of small widths, INT96 = 12).
  void (*xxh64_fixed_width)(const uint8_t* values, size_t width, size_t n, uint64_t* out);
};

// Widths the fixed-width kernels take (XXH64 below 32 bytes has no stripes).
inline constexpr size_t kMaxSimdWidth = 31;

extern const HashKernels kScalarHashKernels;
#if defined(PQFAST_ARCH_X86)
extern const HashKernels kAvx2HashKernels;
extern const HashKernels kAvx512HashKernels;
#endif

// The tables by level (entries for levels the family lacks are nullptr).
const detail::KernelTables<HashKernels>& hash_kernel_tables();

}  // namespace pqfast::hash
