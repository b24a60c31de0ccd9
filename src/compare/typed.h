// Internal: the compare table's entry for an element type, chosen at
// compile time (for callers outside the ISA units: the scan's predicates
// and the tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "compare/kernels.h"

namespace pqfast::compare {

template <class T>
void compare_values(const CompareKernels& k, const T* x, size_t n, CmpOp op, T v, uint64_t* out) {
  if constexpr (std::is_same_v<T, int32_t>) k.cmp_i32(x, n, op, v, out);
  if constexpr (std::is_same_v<T, uint32_t>) k.cmp_u32(x, n, op, v, out);
  if constexpr (std::is_same_v<T, int64_t>) k.cmp_i64(x, n, op, v, out);
  if constexpr (std::is_same_v<T, uint64_t>) k.cmp_u64(x, n, op, v, out);
  if constexpr (std::is_same_v<T, float>) k.cmp_f32(x, n, op, v, out);
  if constexpr (std::is_same_v<T, double>) k.cmp_f64(x, n, op, v, out);
}

}  // namespace pqfast::compare
