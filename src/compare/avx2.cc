// AVX2 compares: 4 or 8 values per compare, movemask to bits. AVX2 has
// only signed greater-than and equality on integers: the other orders are
// those two with the operands swapped or the bits inverted, and unsigned
// values compare as signed after flipping their top bit. The last partial
// word takes the scalar loop.
#include <immintrin.h>

#include <type_traits>

#include "compare/float_predicate.h"
#include "compare/kernels.h"
#include "compare/op_switch.h"
#include "compare/scalar_words.h"

namespace pqfast::compare {

namespace {

// One vector of integers: eq or gt lanes as a movemask, swapped or inverted per Op.
template <CmpOp Op, bool Wide>
inline uint32_t int_mask(__m256i x, __m256i v) {
  auto eq = [](__m256i a, __m256i b) {
    return Wide ? static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b))))
                : static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
  };
  auto gt = [](__m256i a, __m256i b) {
    return Wide ? static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b))))
                : static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b))));
  };
  constexpr uint32_t all = Wide ? 0xFu : 0xFFu;
  if constexpr (Op == CmpOp::kEq) return eq(x, v);
  if constexpr (Op == CmpOp::kNe) return eq(x, v) ^ all;
  if constexpr (Op == CmpOp::kGt) return gt(x, v);
  if constexpr (Op == CmpOp::kLt) return gt(v, x);
  if constexpr (Op == CmpOp::kLe) return gt(x, v) ^ all;  // !(x > v)
  if constexpr (Op == CmpOp::kGe) return gt(v, x) ^ all;  // !(v > x)
  return 0;
}

// Bits of one vector (8 or 4 values) at p.
template <CmpOp Op, class T>
inline uint32_t vector_mask(const T* p, T v) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<uint32_t>(
        _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(p), _mm256_set1_ps(v), float_predicate(Op))));
  } else if constexpr (std::is_same_v<T, double>) {
    return static_cast<uint32_t>(
        _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(p), _mm256_set1_pd(v), float_predicate(Op))));
  } else {
    constexpr bool kWide = sizeof(T) == 8;
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256i b = kWide ? _mm256_set1_epi64x(static_cast<int64_t>(v)) : _mm256_set1_epi32(static_cast<int32_t>(v));
    if constexpr (std::is_unsigned_v<T>) {  // unsigned order = signed order with the top bit flipped
      const __m256i top = kWide ? _mm256_set1_epi64x(INT64_MIN) : _mm256_set1_epi32(INT32_MIN);
      x = _mm256_xor_si256(x, top);
      b = _mm256_xor_si256(b, top);
    }
    return int_mask<Op, kWide>(x, b);
  }
}

template <CmpOp Op, class T>
void cmp_op(const T* x, size_t n, T v, uint64_t* out) {
  constexpr size_t kLanes = 32 / sizeof(T);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t w = 0;
    for (size_t k = 0; k < 64; k += kLanes) w |= uint64_t{vector_mask<Op>(x + i + k, v)} << k;
    out[i / 64] = w;
  }
  cmp_words_from<Op>(x, i, n, v, out);
}

template <class T>
void cmp(const T* x, size_t n, CmpOp op, T v, uint64_t* out) {
  with_op(op, [&](auto o) { cmp_op<decltype(o)::value>(x, n, v, out); });
}

template <class U>
void in_set(const U* x, size_t n, const U* set, size_t m, uint64_t* out) {
  constexpr size_t kLanes = 32 / sizeof(U);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t w = 0;
    for (size_t k = 0; k < 64; k += kLanes) {
      uint32_t lanes = 0;
      for (size_t s = 0; s < m; ++s) lanes |= vector_mask<CmpOp::kEq>(x + i + k, set[s]);  // x[j] == set[s]
      w |= uint64_t{lanes} << k;
    }
    out[i / 64] = w;
  }
  in_scalar_from(x, i, n, set, m, out);
}

}  // namespace

const CompareKernels kAvx2CompareKernels = {cmp<int32_t>, cmp<uint32_t>, cmp<int64_t>, cmp<uint64_t>,
                                            cmp<float>,   cmp<double>,   in_set<uint32_t>, in_set<uint64_t>};

}  // namespace pqfast::compare
