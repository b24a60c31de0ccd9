// Internal: widths 1..8 into bytes with BMI2's pdep, shared by the AVX2 and
// AVX-512 tables (a static inline function: each ISA unit compiles its own
// copy with its own flags). A group's 8 values are its `width` bytes; pdep
// deposits each value's bits in the low bits of its own byte.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pqfast::unpack {
namespace {

inline size_t unpack8_pdep(const uint8_t* src, size_t nbytes, int width, size_t groups, uint8_t* out) {
  if (width < 1 || width > 8) return 0;
  const size_t w = static_cast<size_t>(width);
  // The low `width` bits of every byte: where pdep puts the 8 values.
  const uint64_t spread = 0x0101010101010101ull * ((uint64_t{1} << width) - 1);
  size_t g = 0;
  for (; g < groups && g * w + 8 <= nbytes; ++g) {
    uint64_t v;
    std::memcpy(&v, src + g * w, 8);  // (bits past the group's are not deposited)
    const uint64_t bytes = _pdep_u64(v, spread);
    std::memcpy(out + g * 8, &bytes, 8);
  }
  // The last groups of the input: their own `width` bytes only.
  for (; g < groups && g * w + w <= nbytes; ++g) {
    uint64_t v = 0;
    std::memcpy(&v, src + g * w, w);
    const uint64_t bytes = _pdep_u64(v, spread);
    std::memcpy(out + g * 8, &bytes, 8);
  }
  return g;
}

}  // namespace
}  // namespace pqfast::unpack
