// Internal: the compare family: fixed-width values (a decoded filter column,
// a dictionary page) compared with a constant or a small set into bitmaps,
// one table per ISA. The scan engine evaluates a filter atom over a row
// group's values with one call per decoded run instead of a branchy loop
// per value.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/dispatch.h"

namespace pqfast::compare {

enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// Every kernel writes bit i of out (64-bit words, LSB first) for i < n and
// zeroes the bits of the last word past n; out holds ceil(n / 64) words.
struct alignas(8) CompareKernels {
  // out[i] = x[i] OP v. Floats compare as IEEE does (C++'s operators): a
  // NaN is unordered, so only kNe holds for it.
  void (*cmp_i32)(const int32_t* x, size_t n, CmpOp op, int32_t v, uint64_t* out);
  void (*cmp_u32)(const uint32_t* x, size_t n, CmpOp op, uint32_t v, uint64_t* out);
  void (*cmp_i64)(const int64_t* x, size_t n, CmpOp op, int64_t v, uint64_t* out);
  void (*cmp_u64)(const uint64_t* x, size_t n, CmpOp op, uint64_t v, uint64_t* out);
  void (*cmp_f32)(const float* x, size_t n, CmpOp op, float v, uint64_t* out);
  void (*cmp_f64)(const double* x, size_t n, CmpOp op, double v, uint64_t* out);
  // out[i] = x[i] is one of set[0..m): equal bit patterns (how Arrow's
  // is_in matches floats too). Costs n * m compares: for small sets.
  void (*in_u32)(const uint32_t* x, size_t n, const uint32_t* set, size_t m, uint64_t* out);
  void (*in_u64)(const uint64_t* x, size_t n, const uint64_t* set, size_t m, uint64_t* out);
};

extern const CompareKernels kScalarCompareKernels;
#if defined(PQFAST_ARCH_X86)
extern const CompareKernels kAvx2CompareKernels;
extern const CompareKernels kAvx512CompareKernels;
#endif

const detail::KernelTables<CompareKernels>& compare_kernel_tables();
// The table of the active SIMD level (cached; see simd/dispatch.h).
const CompareKernels& active_compare_kernels();

}  // namespace pqfast::compare
