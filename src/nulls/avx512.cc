// AVX-512 nulls: blocks of 8 (16) elements expanded by their validity bits
// in one instruction, back to front in place; bits spread by pdep.
#include <immintrin.h>

#include "nulls/bit_window.h"
#include "nulls/kernels.h"
#include "nulls/spread_scalar.h"

namespace pqfast::nulls {

namespace {

// Block [i, i + L) of E-byte elements takes the k dense elements ending at
// j (j <= i: the loads stay below every store still to come, so in place
// is safe). L = 64 / E lanes of one register.
template <size_t E>
void spread(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  constexpr size_t L = 64 / E;
  size_t i = count, j = nonnull;
  while (i >= L && j < i) {
    i -= L;
    const uint32_t m = static_cast<uint32_t>(load_bits(validity, off + static_cast<int64_t>(i))) & ((1u << L) - 1);
    const unsigned k = static_cast<unsigned>(_mm_popcnt_u32(m));
    j -= k;
    const uint32_t low = (1u << k) - 1;
    __m512i out;
    if constexpr (E == 8) {
      out = _mm512_maskz_expand_epi64(static_cast<__mmask8>(m),
                                      _mm512_maskz_loadu_epi64(static_cast<__mmask8>(low), base + j * 8));
    } else {
      out = _mm512_maskz_expand_epi32(static_cast<__mmask16>(m),
                                      _mm512_maskz_loadu_epi32(static_cast<__mmask16>(low), base + j * 4));
    }
    _mm512_storeu_si512(base + i * E, out);
  }
  if (j < i) spread_scalar<E>(base, validity, off, i, j);
}

}  // namespace

// (Packing: the AVX2 table's.)
const NullKernels kAvx512NullKernels = {spread<8>,         spread<4>,      spread_bits_pdep,
                                        extract_bits_pext, compress8_avx2, compress4_avx2};

}  // namespace pqfast::nulls
