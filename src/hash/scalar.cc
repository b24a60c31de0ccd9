// The hash family's scalar reference kernels.
#include "hash/kernels.h"
#include "hash/xxh64_scalar.h"

namespace pqfast::hash {
namespace {

void fixed4(const uint8_t* values, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = xxh64_fixed4_scalar(load_u32_le(values + 4 * i));
}

void fixed8(const uint8_t* values, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = xxh64_fixed8_scalar(load_u64_le(values + 8 * i));
}

void fixed_width(const uint8_t* values, size_t width, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = xxh64_scalar(values + i * width, width, 0);
}

}  // namespace

const HashKernels kScalarHashKernels = {fixed4, fixed8, fixed_width};

}  // namespace pqfast::hash
