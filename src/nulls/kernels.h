// Internal: the nulls family: dense decoded values spread over a validity
// bitmap (each null slot zeroed), one table per ISA. Flat and nested columns
// with nulls spend much of their decode here: the SIMD tables expand a block
// of values by its validity bits at once (AVX-512 expand, BMI2 pdep). And
// the inverse, for late materialization (take_selected): the elements or
// bits a selection keeps, packed (BMI2 pext, AVX2 permutes).
//
// Every bitmap argument must stay readable (and dst writable) 16 bytes past
// its last bit: the readers' buffers carry that slack (ReadBuffer::kSlack).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/dispatch.h"

namespace pqfast::nulls {

struct alignas(8) NullKernels {
  // `nonnull` dense elements of 8 (4) bytes at base[0..nonnull) spread in
  // place over the `count` slots whose validity starts at bit `off`.
  void (*spread8)(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull);
  void (*spread4)(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull);
  // Dense bits src[0..) into dst bits [off, off + count) where valid (0
  // where null); dst bits outside the range are kept.
  void (*spread_bits)(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t off, size_t count);
  // The bits of v where mask is set, packed from bit 0 (BMI2's pext).
  uint64_t (*extract_bits)(uint64_t v, uint64_t mask);
  // The elements of 8 (4) bytes at src[0..count) (count <= 64) whose bit
  // is set in `bits`, appended at dst in order; returns how many. dst must
  // stay writable 32 bytes past what is appended.
  size_t (*compress8)(const uint8_t* src, uint64_t bits, int count, uint8_t* dst);
  size_t (*compress4)(const uint8_t* src, uint64_t bits, int count, uint8_t* dst);
};

extern const NullKernels kScalarNullKernels;
// The scalar spreads, for tables without a SIMD version of their own.
void spread8_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull);
void spread4_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull);
#if defined(PQFAST_ARCH_X86)
// The AVX2 + BMI2 packing, shared by the AVX-512 table.
uint64_t extract_bits_pext(uint64_t v, uint64_t mask);
size_t compress8_avx2(const uint8_t* src, uint64_t bits, int count, uint8_t* dst);
size_t compress4_avx2(const uint8_t* src, uint64_t bits, int count, uint8_t* dst);
extern const NullKernels kAvx2NullKernels;
extern const NullKernels kAvx512NullKernels;
#endif

const detail::KernelTables<NullKernels>& null_kernel_tables();
// The table of the active SIMD level (cached; see simd/dispatch.h).
const NullKernels& active_null_kernels();

}  // namespace pqfast::nulls
