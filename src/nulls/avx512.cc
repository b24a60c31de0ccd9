// AVX-512 nulls: blocks of 8 (16) elements expanded by their validity bits
// in one instruction, back to front in place; bits spread by pdep.
#include <immintrin.h>

#include "nulls/bit_window.h"
#include "nulls/kernels.h"
#include "nulls/spread_scalar.h"

namespace pqfast::nulls {

namespace {

// Block [i, i + L) takes the k dense elements ending at j (j <= i: the
// loads stay below every store still to come, so in place is safe).
void spread8(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  size_t i = count, j = nonnull;
  while (i >= 8 && j < i) {
    i -= 8;
    const __mmask8 m = static_cast<__mmask8>(load_bits(validity, off + static_cast<int64_t>(i)));
    const unsigned k = static_cast<unsigned>(_mm_popcnt_u32(m));
    j -= k;
    const __m512i dense = _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << k) - 1), base + j * 8);
    _mm512_storeu_si512(base + i * 8, _mm512_maskz_expand_epi64(m, dense));
  }
  if (j < i) spread_scalar<8>(base, validity, off, i, j);
}

void spread4(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  size_t i = count, j = nonnull;
  while (i >= 16 && j < i) {
    i -= 16;
    const __mmask16 m = static_cast<__mmask16>(load_bits(validity, off + static_cast<int64_t>(i)));
    const unsigned k = static_cast<unsigned>(_mm_popcnt_u32(m));
    j -= k;
    const __m512i dense = _mm512_maskz_loadu_epi32(static_cast<__mmask16>((1u << k) - 1), base + j * 4);
    _mm512_storeu_si512(base + i * 4, _mm512_maskz_expand_epi32(m, dense));
  }
  if (j < i) spread_scalar<4>(base, validity, off, i, j);
}

}  // namespace

const NullKernels kAvx512NullKernels = {spread8, spread4, spread_bits_pdep};

}  // namespace pqfast::nulls
