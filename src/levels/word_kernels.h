// Internal: the levels family's work on 64-bit mask words, shared by every
// table (static inline: each ISA unit compiles its own copy, so with
// -mpopcnt -mbmi2 the builtins below become single instructions).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "levels/or_bits.h"

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace pqfast::levels {
namespace {

inline int64_t count_words(const uint64_t* words, size_t n) {
  // Four sums: one chain of adds would hold POPCNT to one word a cycle
  // (a folded 64 KiB Bloom filter is 8192 words).
  int64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    c0 += __builtin_popcountll(words[i]);
    c1 += __builtin_popcountll(words[i + 1]);
    c2 += __builtin_popcountll(words[i + 2]);
    c3 += __builtin_popcountll(words[i + 3]);
  }
  for (; i < n; ++i) c0 += __builtin_popcountll(words[i]);
  return c0 + c1 + c2 + c3;
}

inline int64_t offsets_of(const uint64_t* slots, const uint64_t* child, size_t words, int32_t* out) {
  int64_t base = 0;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t c = child[w];
    for (uint64_t s = slots[w]; s; s &= s - 1) {
      // offset = child slots before this slot's entry
      *out++ = static_cast<int32_t>(base + __builtin_popcountll(c & ((uint64_t{1} << __builtin_ctzll(s)) - 1)));
    }
    base += __builtin_popcountll(c);
    if (base > INT32_MAX) return -1;
  }
  *out = static_cast<int32_t>(base);
  return base;
}

// compress_bits with `gather(bits, select)`: the selected bits, low to high.
template <class Gather>
int64_t compress_with(Gather gather, const uint64_t* bits, const uint64_t* select, size_t words, uint8_t* dst,
                      int64_t dst_pos) {
  const int64_t start = dst_pos;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t s = select[w];
    const int k = __builtin_popcountll(s);
    or_bits(dst, dst_pos, s == ~uint64_t{0} ? bits[w] : gather(bits[w], s), k);
    dst_pos += k;
  }
  return dst_pos - start;
}

#if defined(__BMI2__)
// BMI2's pext gathers the selected bits in one instruction.
inline int64_t compress_pext(const uint64_t* bits, const uint64_t* select, size_t words, uint8_t* dst,
                             int64_t dst_pos) {
  return compress_with([](uint64_t b, uint64_t s) { return _pext_u64(b, s); }, bits, select, words, dst, dst_pos);
}
#endif

}  // namespace
}  // namespace pqfast::levels
