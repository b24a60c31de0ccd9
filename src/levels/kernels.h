// Internal: the levels family: repetition and definition levels (one byte
// each) compared in blocks against a node's threshold into bitmaps, one
// table per ISA. The nested reader builds validity bitmaps and list offsets
// from these masks with popcounts instead of walking levels one by one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/dispatch.h"

namespace pqfast::levels {

struct alignas(8) LevelKernels {
  // Bit i of out (64-bit words, LSB first) = levels[i] >= threshold, for
  // i < n; the bits of the last word past n are zero. out holds
  // ceil(n / 64) words.
  void (*ge_mask)(const uint8_t* levels, size_t n, uint8_t threshold, uint64_t* out);
  // The largest of n levels (0 when n is 0).
  uint8_t (*max_level)(const uint8_t* levels, size_t n);
  // Appends, for each set bit of select[0..words), the bit of `bits` at the
  // same place to the bitmap dst from bit dst_pos on (a bitmap's compress:
  // a node's validity from the levels that make its slots). dst must be
  // zero from dst_pos on, with 8 bytes of room past the last bit written.
  // Returns the bits appended.
  int64_t (*compress_bits)(const uint64_t* bits, const uint64_t* select, size_t words, uint8_t* dst, int64_t dst_pos);
  // Set bits of words[0..n).
  int64_t (*count_bits)(const uint64_t* words, size_t n);
  // A list's offsets: for each set bit of slots[0..words) in order, the
  // set bits of `child` before it go to *out++; then the total. Returns the
  // total, or -1 (out partly written) when it passes INT32_MAX.
  int64_t (*list_offsets)(const uint64_t* slots, const uint64_t* child, size_t words, int32_t* out);
};

extern const LevelKernels kScalarLevelKernels;
#if defined(PQFAST_ARCH_X86)
extern const LevelKernels kAvx2LevelKernels;
extern const LevelKernels kAvx512LevelKernels;
#endif

const detail::KernelTables<LevelKernels>& level_kernel_tables();
// The table of the active SIMD level (cached; see simd/dispatch.h).
const LevelKernels& active_level_kernels();

}  // namespace pqfast::levels
