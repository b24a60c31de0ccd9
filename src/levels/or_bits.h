// Internal: appending bits to a zeroed bitmap, shared by the levels tables
// (a static inline helper: each ISA unit gets its own copy).
#pragma once

#include <cstdint>
#include <cstring>

namespace pqfast::levels {
namespace {

// ORs the low k bits of v (k <= 64, higher bits zero) into dst at bit pos.
inline void or_bits(uint8_t* dst, int64_t pos, uint64_t v, int k) {
  if (k == 0) return;
  uint8_t* at = dst + (pos >> 3);
  const int sh = static_cast<int>(pos & 7);
  uint64_t w;
  std::memcpy(&w, at, 8);
  w |= v << sh;
  std::memcpy(at, &w, 8);
  if (sh + k > 64) at[8] = static_cast<uint8_t>(at[8] | (v >> (64 - sh)));
}

}  // namespace
}  // namespace pqfast::levels
