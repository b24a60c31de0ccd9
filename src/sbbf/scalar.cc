// The SBBF reference kernels, written from parquet-format BloomFilter.md.
// Branch-free per block: the eight word tests are ANDed, not early-exited.
// The batched calls share the prefetch pipelines of kernels.h.
#include <cstring>

#include "hash/xxh64_scalar.h"
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

struct Test {
  uint8_t operator()(const uint32_t* block, uint32_t key) const { return test_block(block, key); }
};

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  return test_block(block_ptr(words, num_blocks, hash), block_key(hash));
}

void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  insert_block(words + size_t{block_index(hash, num_blocks)} * 8, block_key(hash));
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out, size_t distance) {
  check_pipeline(HashCursor{words, num_blocks, hashes}, n, out, distance, Test{});
}

void insert_hashes(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                   size_t distance) {
  insert_pipeline(words, num_blocks, hashes, n, distance,
                  [](uint32_t* block, uint32_t key) { insert_block(block, key); });
}

void check_product(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                   size_t num_hashes, uint8_t* out, size_t distance) {
  check_product_pipeline(filters, num_filters, hashes, num_hashes, out, distance, Test{});
}

void check_gather(const SbbfRef* filters, const uint32_t* ids, const uint64_t* hashes, size_t n,
                  uint8_t* out, size_t distance) {
  check_pipeline(GatherCursor{filters, ids, hashes}, n, out, distance, Test{});
}

void check_fixed4(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values_pipeline(
      words, num_blocks, values, 4, n, out, distance,
      [](const uint8_t* v, size_t m, uint64_t* h) {
        for (size_t i = 0; i < m; ++i) h[i] = hash::xxh64_fixed4_scalar(hash::load_u32_le(v + 4 * i));
      },
      Test{});
}

void check_fixed8(const uint32_t* words, uint32_t num_blocks, const uint8_t* values, size_t n,
                  uint8_t* out, size_t distance) {
  check_values_pipeline(
      words, num_blocks, values, 8, n, out, distance,
      [](const uint8_t* v, size_t m, uint64_t* h) {
        for (size_t i = 0; i < m; ++i) h[i] = hash::xxh64_fixed8_scalar(hash::load_u64_le(v + 8 * i));
      },
      Test{});
}

}  // namespace

const SbbfKernels kScalarSbbfKernels = {check_hash,    insert_hash,  check_hashes,
                                        insert_hashes, check_product, check_gather,
                                        check_fixed4,  check_fixed8};

}  // namespace pqfast::sbbf
