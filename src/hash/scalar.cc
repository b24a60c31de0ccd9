// The hash family's scalar reference kernels.
#include "hash/kernels.h"
#include "hash/xxh64_scalar.h"

namespace pqfast::hash {
namespace {

void fixed4(const uint32_t* values, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = xxh64_fixed4_scalar(values[i]);
}

void fixed8(const uint64_t* values, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = xxh64_fixed8_scalar(values[i]);
}

}  // namespace

const HashKernels kScalarHashKernels = {fixed4, fixed8};

}  // namespace pqfast::hash
