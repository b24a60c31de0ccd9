// AVX2 + BMI2 nulls: bits spread by pdep, 64 slots per step; 8- and
// 4-byte elements by the scalar loop (AVX2 has no expand).
#include <immintrin.h>

#include "nulls/bit_window.h"
#include "nulls/kernels.h"

namespace pqfast::nulls {

const NullKernels kAvx2NullKernels = {spread8_scalar, spread4_scalar, spread_bits_pdep};

}  // namespace pqfast::nulls
