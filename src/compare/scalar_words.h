// Internal: the compare family's scalar meaning, one 64-bit word of bits at
// a time (static inline templates: each ISA unit compiles its own copy and
// uses them for the values past its last full vector).
#pragma once

#include <cstddef>
#include <cstdint>

#include "compare/kernels.h"
#include "compare/op_switch.h"

namespace pqfast::compare {
namespace {

template <CmpOp Op, class T>
inline bool holds(T x, T v) {
  if constexpr (Op == CmpOp::kEq) return x == v;
  if constexpr (Op == CmpOp::kNe) return x != v;
  if constexpr (Op == CmpOp::kLt) return x < v;
  if constexpr (Op == CmpOp::kLe) return x <= v;
  if constexpr (Op == CmpOp::kGt) return x > v;
  if constexpr (Op == CmpOp::kGe) return x >= v;
}

// Bits of x[0..count) OP v, count <= 64.
template <CmpOp Op, class T>
inline uint64_t cmp_word(const T* x, size_t count, T v) {
  uint64_t m = 0;
  for (size_t j = 0; j < count; ++j) m |= uint64_t{holds<Op>(x[j], v)} << j;
  return m;
}

// Words of bits for x[from..n), from a multiple of 64.
template <CmpOp Op, class T>
inline void cmp_words_from(const T* x, size_t from, size_t n, T v, uint64_t* out) {
  for (size_t i = from; i < n; i += 64) out[i / 64] = cmp_word<Op>(x + i, n - i < 64 ? n - i : 64, v);
}

template <class T>
inline void cmp_scalar_from(const T* x, size_t from, size_t n, CmpOp op, T v, uint64_t* out) {
  with_op(op, [&](auto o) { cmp_words_from<decltype(o)::value>(x, from, n, v, out); });
}

// Words of bits for "x[i] is in set" over x[from..n), from a multiple of 64.
template <class U>
inline void in_scalar_from(const U* x, size_t from, size_t n, const U* set, size_t m, uint64_t* out) {
  for (size_t i = from; i < n; i += 64) {
    const size_t count = n - i < 64 ? n - i : 64;
    uint64_t w = 0;
    for (size_t k = 0; k < m; ++k) w |= cmp_word<CmpOp::kEq>(x + i, count, set[k]);
    out[i / 64] = w;
  }
}

}  // namespace
}  // namespace pqfast::compare
