// Dense values spread over the validity bitmap, back to front in place:
// 4- and 8-byte elements and bits by the nulls family's tables.
#include <cstring>

#include "nulls/kernels.h"
#include "nulls/spread_scalar.h"
#include "parquet/decode.h"

namespace pqfast::parquet::detail {

using nulls::spread_scalar;
using nulls::valid_bit;

void spread_fixed(uint8_t* base, size_t elem, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  if (nonnull == count) return;
  switch (elem) {
    case 1: return spread_scalar<1>(base, validity, off, count, nonnull);
    case 2: return spread_scalar<2>(base, validity, off, count, nonnull);
    case 4: return nulls::active_null_kernels().spread4(base, validity, off, count, nonnull);
    case 8: return nulls::active_null_kernels().spread8(base, validity, off, count, nonnull);
    case 12: return spread_scalar<12>(base, validity, off, count, nonnull);
    case 16: return spread_scalar<16>(base, validity, off, count, nonnull);
    case 32: return spread_scalar<32>(base, validity, off, count, nonnull);
    default: break;
  }
  size_t j = nonnull;
  for (size_t i = count; i-- > 0;) {
    if (valid_bit(validity, off + static_cast<int64_t>(i))) {
      --j;
      if (j != i) std::memmove(base + i * elem, base + j * elem, elem);
    } else {
      std::memset(base + i * elem, 0, elem);
    }
    if (j == i) break;
  }
}

template <class Offset>
void spread_offsets(Offset* o, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  if (nonnull == count) return;
  size_t j = nonnull;
  for (size_t i = count; i > 0; --i) {
    o[i] = o[j];
    if (valid_bit(validity, off + static_cast<int64_t>(i - 1))) --j;
    if (j == i - 1) break;
  }
}
template void spread_offsets<int32_t>(int32_t*, const uint8_t*, int64_t, size_t, size_t);
template void spread_offsets<int64_t>(int64_t*, const uint8_t*, int64_t, size_t, size_t);

void spread_bits(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t off, size_t count) {
  nulls::active_null_kernels().spread_bits(src, dst, validity, off, count);
}

}  // namespace pqfast::parquet::detail
