// Internal: 64-bit windows of a bitmap at any bit position, for the ISA
// units of the nulls family (static inline: each unit has its own copy).
#pragma once

#include <cstdint>
#include <cstring>

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

}  // namespace
}  // namespace pqfast::nulls
