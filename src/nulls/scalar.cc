// The scalar reference of the nulls family.
#include "nulls/kernels.h"
#include "nulls/spread_scalar.h"

namespace pqfast::nulls {

void spread8_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  spread_scalar<8>(base, validity, off, count, nonnull);
}

void spread4_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  spread_scalar<4>(base, validity, off, count, nonnull);
}

namespace {

void spread_bits(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t off, size_t count) {
  size_t j = 0;
  for (size_t i = 0; i < count; ++i) {
    const int64_t k = off + static_cast<int64_t>(i);
    bool v = false;
    if (valid_bit(validity, k)) {
      v = valid_bit(src, static_cast<int64_t>(j));
      ++j;
    }
    if (v) dst[k >> 3] |= uint8_t(1u << (k & 7));
    else dst[k >> 3] &= uint8_t(~(1u << (k & 7)));
  }
}

}  // namespace

const NullKernels kScalarNullKernels = {spread8_scalar, spread4_scalar, spread_bits};

}  // namespace pqfast::nulls
