// The SBBF reference kernels, written from parquet-format BloomFilter.md.
// Branch-free per block: the eight word tests are ANDed, not early-exited.
// The batched calls share the prefetch pipelines of kernels.h.
#include <cstring>

#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

// Words are read and written with memcpy: a bitset inside a file buffer need
// not be 4-byte aligned (the SIMD kernels use unaligned loads too).
inline uint32_t load_word(const uint32_t* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

inline bool test_block(const uint32_t* block, uint32_t key) {
  uint32_t all_set = 1;
  for (int i = 0; i < 8; ++i) {
    const uint32_t bit = (key * kSbbfSalt[i]) >> 27;
    all_set &= load_word(block + i) >> bit;
  }
  return (all_set & 1) != 0;
}

inline void insert_block(uint32_t* block, uint32_t key) {
  for (int i = 0; i < 8; ++i) {
    const uint32_t w = load_word(block + i) | (uint32_t{1} << ((key * kSbbfSalt[i]) >> 27));
    std::memcpy(block + i, &w, 4);
  }
}

struct ScalarBlock {
  static bool test(const uint32_t* block, uint32_t key) { return test_block(block, key); }
  static void insert(uint32_t* block, uint32_t key) { insert_block(block, key); }
};

}  // namespace

const SbbfKernels kScalarSbbfKernels = BlockKernels<ScalarBlock>::table();

}  // namespace pqfast::sbbf
