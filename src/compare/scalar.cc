// The compare family's scalar reference: one value at a time.
#include "compare/kernels.h"
#include "compare/scalar_words.h"

namespace pqfast::compare {

namespace {

template <class T>
void cmp(const T* x, size_t n, CmpOp op, T v, uint64_t* out) {
  cmp_scalar_from(x, 0, n, op, v, out);
}

template <class U>
void in_set(const U* x, size_t n, const U* set, size_t m, uint64_t* out) {
  in_scalar_from(x, 0, n, set, m, out);
}

}  // namespace

const CompareKernels kScalarCompareKernels = {cmp<int32_t>, cmp<uint32_t>, cmp<int64_t>, cmp<uint64_t>,
                                              cmp<float>,   cmp<double>,   in_set<uint32_t>, in_set<uint64_t>};

}  // namespace pqfast::compare
