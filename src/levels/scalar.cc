// The scalar reference of the levels family: what every SIMD table must equal.
#include "levels/kernels.h"
#include "levels/word_kernels.h"

namespace pqfast::levels {

namespace {

void ge_mask(const uint8_t* levels, size_t n, uint8_t threshold, uint64_t* out) {
  size_t w = 0;
  for (size_t i = 0; i < n; i += 64, ++w) {
    const size_t m = n - i < 64 ? n - i : 64;
    uint64_t bits = 0;
    for (size_t k = 0; k < m; ++k) bits |= uint64_t{levels[i + k] >= threshold} << k;
    out[w] = bits;
  }
}

uint8_t max_level(const uint8_t* levels, size_t n) {
  uint8_t m = 0;
  for (size_t i = 0; i < n; ++i) m = levels[i] > m ? levels[i] : m;
  return m;
}

// The bits of `bits` where `select` is set, gathered low to high.
uint64_t gather(uint64_t bits, uint64_t select) {
  uint64_t out = 0;
  int k = 0;
  for (; select; select &= select - 1, ++k) out |= ((bits >> __builtin_ctzll(select)) & 1u) << k;
  return out;
}

int64_t compress_bits(const uint64_t* bits, const uint64_t* select, size_t words, uint8_t* dst, int64_t dst_pos) {
  return compress_with(gather, bits, select, words, dst, dst_pos);
}

}  // namespace

const LevelKernels kScalarLevelKernels = {ge_mask, max_level, compress_bits, count_words, offsets_of};

}  // namespace pqfast::levels
