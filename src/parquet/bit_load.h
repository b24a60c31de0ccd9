// Internal: a window of up to 64 bits of an LSB-first bitmap at any bit
// position, for the scan's predicate evaluation and the taking of selected
// rows (buffers with slack past their end: ReadBuffer); the set bits of a
// word without POPCNT.
#pragma once

#include <cstdint>
#include <cstring>

namespace pqfast::parquet::detail {

// Bits [start, start + count) of `bits` (count <= 64), the rest zero; reads
// 9 bytes from byte start / 8.
inline uint64_t load_bits(const uint8_t* bits, int64_t start, int count) {
  uint64_t lo;
  std::memcpy(&lo, bits + (start >> 3), 8);
  const int shift = static_cast<int>(start & 7);
  uint64_t w = lo >> shift;
  if (shift && count > 64 - shift) w |= static_cast<uint64_t>(bits[(start >> 3) + 8]) << (64 - shift);
  return count == 64 ? w : (w & ((uint64_t{1} << count) - 1));
}

// Set bits of x. The portable build has no POPCNT: std::popcount there is
// a call into libgcc (1% of a filtered scan's CPU); this is a dozen
// instructions inline.
inline int count_bits(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

}  // namespace pqfast::parquet::detail
