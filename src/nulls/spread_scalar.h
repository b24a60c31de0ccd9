// Internal: the scalar spread of dense elements over a validity bitmap,
// back to front in place (the reference the nulls tables are checked
// against, and the path of element widths no table has).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pqfast::nulls {
// Internal linkage: ISA units include it too, and a shared (COMDAT) copy
// compiled for AVX-512 must never serve the scalar callers.
namespace {

inline bool valid_bit(const uint8_t* v, int64_t i) { return (v[i >> 3] >> (i & 7)) & 1; }

template <size_t E>
void spread_scalar(uint8_t* base, const uint8_t* validity, int64_t off, size_t count, size_t nonnull) {
  size_t j = nonnull;
  for (size_t i = count; i-- > 0;) {
    if (valid_bit(validity, off + static_cast<int64_t>(i))) {
      --j;
      if (j != i) std::memcpy(base + i * E, base + j * E, E);
    } else {
      std::memset(base + i * E, 0, E);
    }
    if (j == i) break;  // everything below is in place
  }
}

}  // namespace
}  // namespace pqfast::nulls
