// AVX-512 compares: 8 or 16 values per compare straight into a mask
// register; the last partial vector is loaded and compared under a mask.
#include <immintrin.h>

#include <type_traits>

#include "compare/float_predicate.h"
#include "compare/kernels.h"
#include "compare/op_switch.h"

namespace pqfast::compare {

namespace {

constexpr int int_predicate(CmpOp op) {
  switch (op) {
    case CmpOp::kEq: return _MM_CMPINT_EQ;
    case CmpOp::kNe: return _MM_CMPINT_NE;
    case CmpOp::kLt: return _MM_CMPINT_LT;
    case CmpOp::kLe: return _MM_CMPINT_LE;
    case CmpOp::kGt: return _MM_CMPINT_NLE;
    case CmpOp::kGe: return _MM_CMPINT_NLT;
  }
  return _MM_CMPINT_EQ;
}

// Lanes of p (those set in `live`, the others read as nothing) OP v.
template <CmpOp Op, class T>
inline uint32_t vector_mask(const T* p, T v, uint32_t live) {
  constexpr int ip = int_predicate(Op), fp = float_predicate(Op);
  if constexpr (sizeof(T) == 4) {
    const __mmask16 k = static_cast<__mmask16>(live);
    if constexpr (std::is_same_v<T, float>) {
      return _mm512_mask_cmp_ps_mask(k, _mm512_maskz_loadu_ps(k, p), _mm512_set1_ps(v), fp);
    } else if constexpr (std::is_signed_v<T>) {
      return _mm512_mask_cmp_epi32_mask(k, _mm512_maskz_loadu_epi32(k, p), _mm512_set1_epi32(v), ip);
    } else {
      return _mm512_mask_cmp_epu32_mask(k, _mm512_maskz_loadu_epi32(k, p),
                                        _mm512_set1_epi32(static_cast<int32_t>(v)), ip);
    }
  } else {
    const __mmask8 k = static_cast<__mmask8>(live);
    if constexpr (std::is_same_v<T, double>) {
      return _mm512_mask_cmp_pd_mask(k, _mm512_maskz_loadu_pd(k, p), _mm512_set1_pd(v), fp);
    } else if constexpr (std::is_signed_v<T>) {
      return _mm512_mask_cmp_epi64_mask(k, _mm512_maskz_loadu_epi64(k, p), _mm512_set1_epi64(v), ip);
    } else {
      return _mm512_mask_cmp_epu64_mask(k, _mm512_maskz_loadu_epi64(k, p),
                                        _mm512_set1_epi64(static_cast<int64_t>(v)), ip);
    }
  }
}

constexpr uint32_t live_lanes(size_t left, size_t lanes) {
  return left >= lanes ? (lanes == 16 ? 0xFFFFu : 0xFFu) : ((uint32_t{1} << left) - 1);
}

// The word of bits for x[0..count): 64 / lanes vectors, the last ones masked.
template <CmpOp Op, class T>
inline uint64_t word(const T* x, size_t count, T v) {
  constexpr size_t kLanes = 64 / sizeof(T);
  uint64_t w = 0;
  for (size_t k = 0; k < count; k += kLanes) {
    w |= uint64_t{vector_mask<Op>(x + k, v, live_lanes(count - k, kLanes))} << k;
  }
  return w;
}

template <CmpOp Op, class T>
void cmp_op(const T* x, size_t n, T v, uint64_t* out) {
  for (size_t i = 0; i < n; i += 64) out[i / 64] = word<Op>(x + i, n - i < 64 ? n - i : 64, v);
}

template <class T>
void cmp(const T* x, size_t n, CmpOp op, T v, uint64_t* out) {
  with_op(op, [&](auto o) { cmp_op<decltype(o)::value>(x, n, v, out); });
}

template <class U>
void in_set(const U* x, size_t n, const U* set, size_t m, uint64_t* out) {
  for (size_t i = 0; i < n; i += 64) {
    const size_t count = n - i < 64 ? n - i : 64;
    uint64_t w = 0;
    for (size_t k = 0; k < m; ++k) w |= word<CmpOp::kEq>(x + i, count, set[k]);  // x[j] == set[k]
    out[i / 64] = w;
  }
}

}  // namespace

const CompareKernels kAvx512CompareKernels = {cmp<int32_t>, cmp<uint32_t>, cmp<int64_t>, cmp<uint64_t>,
                                              cmp<float>,   cmp<double>,   in_set<uint32_t>, in_set<uint64_t>};

}  // namespace pqfast::compare
