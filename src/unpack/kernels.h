// Internal: bit unpacking of the RLE / bit-packed hybrid's bit-packed runs
// (dictionary indices, levels) and the gathers of unpacked dictionary
// indices, one table per ISA. A group is 8 values of `width`
// bits, exactly `width` bytes, LSB first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/dispatch.h"

namespace pqfast::unpack {

struct alignas(8) UnpackKernels {
  // Unpacks up to `groups` groups of width 1..32 from src, which holds
  // `nbytes` readable bytes (at least groups * width). Returns the groups
  // written to out (8 values each); a kernel may stop early where its wide
  // loads would pass nbytes, and the caller finishes with the scalar table.
  size_t (*unpack32)(const uint8_t* src, size_t nbytes, int width, size_t groups, uint32_t* out);
  // The same for widths 1..8 into one byte per value (repetition and
  // definition levels, which the nested reader keeps a byte each).
  size_t (*unpack8)(const uint8_t* src, size_t nbytes, int width, size_t groups, uint8_t* out);
  // The largest of n unpacked values (0 when n is 0): the bound check of a
  // batch of dictionary indices (SSE2 has no unsigned 32-bit max: emulated,
  // it took a third of gathering a dictionary-encoded date column).
  uint32_t (*max32)(const uint32_t* v, size_t n);
  // out[i] = dict[idx[i]] for i < n, entries of 4 (gather4) or 8 (gather8)
  // bytes: a batch of dictionary indices already checked below the
  // dictionary's size (gathered date, int and key columns).
  void (*gather4)(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out);
  void (*gather8)(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out);
  // Unpacks up to `groups` groups of `width`-bit dictionary indices (as
  // unpack32) and writes out[i] = dict[idx[i]], entries of `elem` bytes (4,
  // 8 or 16: dates and ints, longs and doubles, string views; 1 and 2:
  // narrowed small ints, and a filter's per-entry verdicts), without a
  // second pass over the indices or a store of them beyond L1 (TPC-H's
  // Q12 columns: unpack32, max32 and gather4/8 over 1,024-index batches took
  // a fifth more). An index at or above
  // dict_size is never read: *bad is set (the caller reports the error) and
  // that value's entry is unspecified. Returns the groups written; a kernel
  // may stop early as unpack32 does, and does nothing for dict_size 0.
  size_t (*unpack_gather)(const uint8_t* src, size_t nbytes, int width, size_t groups, const uint8_t* dict,
                          uint32_t dict_size, int elem, uint8_t* out, bool* bad);
};

extern const UnpackKernels kScalarUnpackKernels;
#if defined(PQFAST_ARCH_X86)
extern const UnpackKernels kAvx2UnpackKernels;
extern const UnpackKernels kAvx512UnpackKernels;
// AVX2's one-pass dictionary gather, which the AVX-512 table shares.
size_t unpack_gather_avx2(const uint8_t* src, size_t nbytes, int width, size_t groups, const uint8_t* dict,
                          uint32_t dict_size, int elem, uint8_t* out, bool* bad);
#endif

const detail::KernelTables<UnpackKernels>& unpack_kernel_tables();
// The table of the active SIMD level (cached; see simd/dispatch.h).
const UnpackKernels& active_unpack_kernels();

}  // namespace pqfast::unpack
