// Internal: 64-bit windows of a bitmap at any bit position, for the ISA
// units of the nulls family (static inline: each unit has its own copy).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace pqfast::nulls {
namespace {

// Bits [p, p + 64) of b (reads 9 bytes from byte p / 8).
inline uint64_t load_bits(const uint8_t* b, int64_t p) {
  const uint8_t* q = b + (p >> 3);
  const int s = static_cast<int>(p & 7);
  uint64_t lo;
  std::memcpy(&lo, q, 8);
  return s ? (lo >> s) | (uint64_t{q[8]} << (64 - s)) : lo;
}

// Overwrites bits [p, p + k) of b with the low k bits of v (1 <= k <= 64).
inline void store_bits(uint8_t* b, int64_t p, uint64_t v, int k) {
  uint8_t* q = b + (p >> 3);
  const int s = static_cast<int>(p & 7);
  const uint64_t mask = k == 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1;
  v &= mask;
  uint64_t lo;
  std::memcpy(&lo, q, 8);
  lo = (lo & ~(mask << s)) | (v << s);
  std::memcpy(q, &lo, 8);
  if (s + k > 64) {
    const uint8_t m2 = static_cast<uint8_t>((1u << (s + k - 64)) - 1);
    q[8] = static_cast<uint8_t>((q[8] & ~m2) | ((v >> (64 - s)) & m2));
  }
}

#if defined(__BMI2__)
// Dense bits into the valid slots, 64 slots a step: out bit t = validity bit
// t ? next source bit : 0, which is BMI2's pdep.
inline void spread_bits_pdep(const uint8_t* src, uint8_t* dst, const uint8_t* validity, int64_t off, size_t count) {
  int64_t j = 0;  // next dense source bit
  for (size_t i = 0; i < count; i += 64) {
    const int k = count - i < 64 ? static_cast<int>(count - i) : 64;
    uint64_t v = load_bits(validity, off + static_cast<int64_t>(i));
    if (k < 64) v &= (uint64_t{1} << k) - 1;
    store_bits(dst, off + static_cast<int64_t>(i), _pdep_u64(load_bits(src, j), v), k);
    j += __builtin_popcountll(v);
  }
}
#endif

}  // namespace
}  // namespace pqfast::nulls
