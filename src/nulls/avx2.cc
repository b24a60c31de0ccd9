// AVX2 + BMI2 nulls: bits spread by pdep, 64 slots per step; 8- and
// 4-byte elements by the scalar loop (AVX2 has no expand).
#include <immintrin.h>

#include "nulls/bit_window.h"
#include "nulls/kernels.h"
#include "nulls/spread_scalar.h"

namespace pqfast::nulls {

namespace {

void spread8(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  spread_scalar<8>(base, validity, off, count, nonnull);
}

void spread4(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  spread_scalar<4>(base, validity, off, count, nonnull);
}

void spread_bits(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t off, size_t count) {
  int64_t j = 0;  // next dense source bit
  for (size_t i = 0; i < count; i += 64) {
    const int k = count - i < 64 ? static_cast<int>(count - i) : 64;
    uint64_t v = load_bits(validity, off + static_cast<int64_t>(i));
    if (k < 64) v &= (uint64_t{1} << k) - 1;
    // out bit t = v bit t ? next source bit : 0
    store_bits(dst, off + static_cast<int64_t>(i), _pdep_u64(load_bits(src, j), v), k);
    j += static_cast<int64_t>(_mm_popcnt_u64(v));
  }
}

}  // namespace

const NullKernels kAvx2NullKernels = {spread8, spread4, spread_bits};

}  // namespace pqfast::nulls
